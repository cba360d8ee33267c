/// A wait that gave up: the condition did not hold before the deadline. Thrown out of a test, it fails the test
/// with its description (what was awaited, for how long, and where).
public struct WaitTimedOut: Error, CustomStringConvertible {
    /// What the test was waiting for.
    public let condition: String
    /// How long it waited.
    public let timeout: Duration
    /// Where the wait is in the test's source.
    public let file: String
    /// The line of the wait in `file`.
    public let line: Int

    public var description: String {
        "waited \(timeout) for \(condition) at \(file):\(line), in vain"
    }
}

/// Polls `condition` until it holds, or throws ``WaitTimedOut`` once `timeout` has passed: a regression fails the
/// test with a message instead of hanging it. It yields between polls and, after the first few, naps a millisecond
/// so a long wait leaves the CPU to the code it waits for. Use it where nothing can be awaited directly (a counter
/// another thread bumps); prefer a ``Gate`` or the item's own `value` when there is one.
///
/// The deadline is a backstop for a hang, not a measure of speed: keep CPU-heavy and blocking work off Swift's
/// global executor (`.heavy`: ``HeavyTestTrait``; ``onDedicatedThread(_:)``) so a wait never queues behind it, and
/// leave the default (a minute) for conditions that hold within milliseconds at rest.
///
/// ```swift nonisolated
/// try await waitUntil("three bodies running") { running.load(ordering: .relaxed) == 3 }
/// ```
public func waitUntil(
    _ condition: @autoclosure () -> String = "the condition", timeout: Duration = .seconds(60),
    file: String = #fileID, line: Int = #line, _ predicate: () -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    var polls = 0
    while !predicate() {
        if clock.now >= deadline {
            throw WaitTimedOut(condition: condition(), timeout: timeout, file: file, line: line)
        }
        polls += 1
        if polls < 100 {
            await Task.yield()
        } else {
            // A nap, not a timed wait: the condition is still what ends the loop.
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
}
