import Foundation
import Lanes

/// The threads LanesTesting runs test code on when it must not hold one of Swift's global executor threads: a Lanes
/// ``ThreadPoolExecutor`` of its own, used as the task executor (SE-0417) of the test's own task.
///
/// On Linux the global executor has one thread per core (two on a two-core machine), and `DispatchQueue.global()`
/// shares them. A test body that computes for a minute, or blocks on a child process, holds one of them; every other
/// test's `await` resumption queues behind it and their time limits run out with nothing wrong. Code run on these
/// threads holds none of them. The pool grows a thread per body that needs one, so blocked bodies never wait for each
/// other; the `.heavy` trait bounds how many CPU-heavy tests run at once.
enum TestThreads {
    /// The pool: elastic, so a body that blocks never waits for a thread another blocked body holds.
    static let pool = ThreadPoolExecutor(maxThreads: 256, idleTimeout: 2)

    /// The pool as a task executor: code of a task that prefers it runs on the pool's threads.
    static let executor: any TaskExecutor = pool.taskExecutor(priority: .normal)!

    /// Runs `body` on a pool thread, in the calling task (its task-local values, `Test.current` among them, stay in
    /// place, so `#expect` inside works). The explicit hop matters: a nonisolated closure may start on the thread it
    /// was called from, and a synchronous body never suspends to move.
    static func run<T, Failure: Error>(_ body: () async throws(Failure) -> T) async throws(Failure) -> T {
        try await withTaskExecutorPreference(executor) { () async throws(Failure) -> T in
            await hop()
            return try await body()
        }
    }

    /// Suspends and resumes on the preferred executor (the pool, inside ``run(_:)``).
    @concurrent private static func hop() async {}
}

/// Runs blocking or CPU-heavy code (waiting on a child process, polling a file, a long synchronous computation) on a
/// thread of LanesTesting's own pool and returns its result, so the test never holds one of Swift's global executor
/// threads while it works. On a two-core Linux machine that executor has two threads: two tests blocking them stall
/// every other test in the process, whose time limits then run out. The body runs in the calling task, so `#expect`
/// and `Issue.record` inside it count for the test.
///
/// ```swift nonisolated
/// let status = try await onDedicatedThread {
///     let process = Process()
///     process.executableURL = URL(fileURLWithPath: "/bin/true")
///     try process.run()
///     process.waitUntilExit()
///     return process.terminationStatus
/// }
/// #expect(status == 0)
/// ```
///
/// For a whole test (or suite) of CPU-heavy work, use the `.heavy` trait (``HeavyTestTrait``) instead: it also bounds
/// how many such tests run at once, so their time limits do not count the wait for a core.
public func onDedicatedThread<T, Failure: Error>(_ body: () throws(Failure) -> T) async throws(Failure) -> T {
    try await TestThreads.run { () throws(Failure) -> T in try body() }
}
