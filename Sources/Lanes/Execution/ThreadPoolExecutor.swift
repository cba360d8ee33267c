import Dispatch
import DequeModule
import Foundation
import Synchronization

/// Lanes' own elastic thread pool, the default executor. A queue asks for one runner per item it may start, so a
/// queue limited to 8 whose items block gets 8 threads at once (the Dispatch pool on Linux grows far more slowly).
/// Idle threads park and exit after a few seconds without work.
///
/// ```swift
/// let io = WorkQueue("io", maxConcurrency: 8, executor: ThreadPoolExecutor.shared)
/// ```
public final class ThreadPoolExecutor: WorkExecutor {
    /// The pool every queue uses unless told otherwise.
    public static let shared = ThreadPoolExecutor(maxThreads: 512, idleTimeout: 5)

    /// What a pool thread runs: a queue's runner, or a one-off job (cancel-all's sweep).
    private enum Job: Sendable {
        case runner(WorkRunner)
        case closure(@Sendable () -> Void)

        func run() {
            switch self {
            case .runner(let runner): runner.runLingering()
            case .closure(let body): body()
            }
        }
    }

    private final class Worker: Sendable {
        let wakeUp = DispatchSemaphore(value: 0)
        let assignment = LockedValue<Job?>(nil)
    }

    private struct PoolState {
        var idle: [Worker] = []
        var backlog: Deque<Job> = []
        var threads = 0
        var spawned = 0
    }

    private let state = LockedValue(PoolState())
    private let maxThreads: Int
    private let idleTimeout: Double

    /// Creates a pool.
    /// - Parameters:
    ///   - maxThreads: the most threads it will run at once; runners beyond that wait their turn.
    ///   - idleTimeout: seconds an idle thread waits for work before it exits.
    public init(maxThreads: Int, idleTimeout: Double) {
        self.maxThreads = max(1, maxThreads)
        self.idleTimeout = idleTimeout
    }

    /// Threads alive now (running or parked).
    public var threadCount: Int { state.withLock { $0.threads } }

    public func schedule(_ runner: WorkRunner) {
        submit(.runner(runner))
    }

    /// Runs a one-off closure on a pool thread.
    func run(_ body: @escaping @Sendable () -> Void) {
        submit(.closure(body))
    }

    private func submit(_ job: Job) {
        enum Decision { case wake(Worker), spawn(Int), queued }
        let decision = state.withLock { state -> Decision in
            if let worker = state.idle.popLast() {
                worker.assignment.withLock { $0 = job }
                return .wake(worker)
            }
            if state.threads < maxThreads {
                state.threads += 1
                state.spawned += 1
                return .spawn(state.spawned)
            }
            state.backlog.append(job)
            return .queued
        }
        switch decision {
        case .wake(let worker): worker.wakeUp.signal()
        case .spawn(let number): spawn(number: number, first: job)
        case .queued: break
        }
    }

    private func spawn(number: Int, first: Job) {
        let thread = Thread { [self] in self.workerLoop(first: first) }
        thread.name = "lanes-worker-\(number)"
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func workerLoop(first: Job) {
        let worker = Worker()
        var job: Job? = first
        while true {
            job?.run()
            job = state.withLock { state -> Job? in
                if let next = state.backlog.popFirst() { return next }
                state.idle.append(worker)
                return nil
            }
            if job != nil { continue }
            if worker.wakeUp.wait(timeout: .now() + idleTimeout) == .timedOut {
                let leave = state.withLock { state -> Bool in
                    guard let index = state.idle.firstIndex(where: { $0 === worker }) else { return false }
                    state.idle.remove(at: index)
                    state.threads -= 1
                    return true
                }
                if leave { return }
                // Someone assigned work just as the wait timed out; its signal is on the way.
                worker.wakeUp.wait()
            }
            job = worker.assignment.withLock { assignment in
                defer { assignment = nil }
                return assignment
            }
        }
    }
}

/// Runs a queue's items on a dispatch queue, `batch` items per dispatch turn. `WorkQueue.main` uses the main
/// dispatch queue this way.
///
/// ```swift
/// let ui = WorkQueue("ui", maxConcurrency: 1, executor: DispatchExecutor(queue: .main))
/// ```
public struct DispatchExecutor: WorkExecutor {
    let queue: DispatchQueue
    let batch: Int

    /// - Parameters:
    ///   - queue: where items run.
    ///   - batch: how many items one dispatch turn may run before yielding to other work on that queue.
    public init(queue: DispatchQueue, batch: Int = 16) {
        self.queue = queue
        self.batch = max(1, batch)
    }

    public func schedule(_ runner: WorkRunner) {
        let batch = batch
        queue.async { runner.run(maxItems: batch) }
    }
}
