import Foundation
import Lanes
import Testing

/// The `.heavy` trait: a CPU-heavy test (or every test of a suite) runs on LanesTesting's own threads instead of
/// Swift's global executor, at most one such test per core at a time, and its time limit starts when its turn comes.
public struct HeavyTestTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applies to every test of a suite, and of the suites inside it.
    public var isRecursive: Bool { true }

    /// Once per test function, around all of its cases: swift-testing starts each case's time limit inside this scope,
    /// so the wait for a turn is not counted as the test's running time.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite || testCase != nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A heavy test inside a heavy suite takes one turn, not two (two would deadlock at a width of two).
        if HeavyTurns.isHeld { return try await function() }
        await HeavyTurns.shared.acquire()
        defer { HeavyTurns.shared.release() }
        try await HeavyTurns.$isHeld.withValue(true) {
            try await TestThreads.run { try await function() }
        }
    }
}

extension Trait where Self == HeavyTestTrait {
    /// Runs a CPU-heavy test, or every test of a suite, on LanesTesting's own threads, one test per core at a time.
    ///
    /// Swift's global executor has one thread per core (two on a two-core machine, shared on Linux with
    /// `DispatchQueue.global()`); a test body that computes for a minute holds one of them, and every other test's
    /// `await` resumption waits behind it. A heavy test holds none of them: its body, and everything its task runs,
    /// runs on a thread of LanesTesting's pool. Heavy tests take turns, one per core, and a test's time limit starts
    /// with its turn, so a limit measures the test, not the queue in front of it. `#expect` works as anywhere else.
    /// (swift-testing's macros do not expand in the docs' compile check: *Testing with Lanes* compiles and runs this
    /// pattern in its "Heavy tests on a busy machine" section.)
    ///
    /// ```swift fragment
    /// @Suite(.timeLimit(.minutes(5)), .heavy)
    /// struct ThumbnailTests {
    ///     @Test func aLargeImageShrinks() {
    ///         let pixels = (0..<4_000_000).map { UInt8(truncatingIfNeeded: $0) }
    ///         #expect(pixels.count == 4_000_000)
    ///     }
    /// }
    /// ```
    public static var heavy: Self { Self() }
}

/// The turns heavy tests take: as many as the machine has cores (at least two), granted first come, first served.
/// A waiting test suspends; it holds no thread.
final class HeavyTurns: Sendable {
    static let shared = HeavyTurns(width: max(2, ProcessInfo.processInfo.activeProcessorCount))

    /// Whether the current task holds a turn.
    @TaskLocal static var isHeld = false

    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: LockedValue<State>

    init(width: Int) { state = LockedValue(State(free: width)) }

    /// Suspends until a turn is free, and takes it.
    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state -> Bool in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if granted { continuation.resume() }
        }
    }

    /// Gives a turn back: to the longest-waiting test, if any.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
