import Dispatch
import Foundation
import Lanes

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A synchronous main-loop driver for tests and tools that own the process's main thread: runs main-queue work
/// (`WorkQueue.main` items, `DispatchQueue.main` blocks, `@MainActor` jobs) on the calling main thread until a
/// condition holds or a deadline passes. Unlike `MainLoop` it never waits forever.
///
/// swift-testing runs tests off the main thread (its process parks the main thread in `dispatchMain()`), so a test
/// that checks main-thread behaviour runs this in a child process whose real main thread is free.
///
/// ```swift
/// var answer: Int?
/// queue.add { _ in 6 * 7 }.onMainCompletion { answer = try? $0.get() }
/// let done = MainQueuePump.run(until: { answer != nil }, timeout: .seconds(5))
/// assert(done && answer == 42)
/// ```
///
/// A `@MainActor` test, which swift-testing runs on the main queue, drives main-queue deliveries with
/// ``runPending(limit:)`` instead: they run inside the call, in order, on the test's own thread.
public enum MainQueuePump {
    /// Runs the `WorkQueue.main` items waiting now, and those they add, here on the main actor, in the order the
    /// main queue would; returns how many ran. Every main-queue delivery of Lanes goes through `WorkQueue.main`
    /// (`onMainCompletion(_:)`, `LaneTimer.afterOnMain`, a `Debouncer(onMain:)`, LanesLists' bindings),
    /// so a `@MainActor` test with a `VirtualClock` and `ManualExecutor` queues is exact: what the app would do on
    /// its next main-loop turns happens inside this call. Raw `DispatchQueue.main` blocks and other tasks' jobs are
    /// not run (they run once the test suspends or returns). Called from inside a `WorkQueue.main` item it runs
    /// nothing (the main queue runs one item at a time).
    ///
    /// (swift-testing's macros do not expand in the docs' compile check: *Testing with Lanes* runs a `@MainActor`
    /// test like this one.)
    ///
    /// ```swift fragment
    /// @MainActor final class Label { var text = "" }
    ///
    /// @Test @MainActor func showsTheResult() {
    ///     let background = ManualExecutor()
    ///     let queue = WorkQueue("work", executor: background)
    ///     let label = Label()
    ///     queue.add { _ in "42" }.onMainCompletion { label.text = (try? $0.get()) ?? "" }
    ///     background.runAll()           // the body runs; its completion waits for the main queue
    ///     #expect(label.text == "")
    ///     MainQueuePump.runPending()    // the main queue's turn
    ///     #expect(label.text == "42")
    /// }
    /// ```
    @MainActor
    @discardableResult
    public static func runPending(limit: Int = .max) -> Int {
        WorkQueue.main.runOnCaller(maxItems: limit)
    }

    /// Drains main-queue work until `condition` holds (checked before each wait and after each drain) or `timeout`
    /// passes. Returns whether the condition held. Main thread only.
    @discardableResult
    public static func run(until condition: @MainActor () -> Bool, timeout: Duration = .seconds(10)) -> Bool {
        precondition(Thread.isMainThread, "MainQueuePump.run must be called on the main thread")
        func holds() -> Bool { MainActor.assumeIsolated { condition() } }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        MainQueueDriver.drain()
        while !holds() {
            let left = clock.now.duration(to: deadline)
            guard left > .zero else { return false }
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            if let fd = MainQueueDriver.wakeupDescriptor {
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&descriptor, 1, min(milliseconds, 100)) > 0 { MainQueueDriver.drain() }
            } else {
                _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: min(Double(milliseconds) / 1000, 0.1)))
            }
        }
        return true
    }
}
