import Dispatch
import DequeModule
import Foundation
import Synchronization

/// Lanes' own elastic thread pool, the default executor. A queue asks for one runner per item it may start, so a
/// queue limited to 8 whose items block gets 8 threads at once (the Dispatch pool on Linux grows far more slowly).
/// A runner that runs out of work lingers a few microseconds for more before its thread parks, so a producer adding
/// items one at a time does not pay a thread wake-up per item; idle threads exit after a few seconds without work.
///
/// ```swift
/// let io = WorkQueue("io", maxConcurrency: 8, executor: ThreadPoolExecutor.shared)
/// ```
public final class ThreadPoolExecutor: WorkExecutor {
    /// The pool every queue uses unless told otherwise.
    public static let shared = ThreadPoolExecutor(maxThreads: 512, idleTimeout: 5)

    /// Counters since the pool was made.
    public struct Statistics: Sendable, Equatable {
        /// Threads started (a thread that exited after its idle timeout and a new one count twice).
        public var threadsStarted = 0
        /// Runners queues asked the pool for.
        public var runners = 0
        /// Runners that woke a parked thread (each one a system call and a context switch).
        public var wakeUps = 0
    }


    private final class Worker: Sendable {
        let wakeUp = DispatchSemaphore(value: 0)
        let assignment = LockedValue<WorkRunner?>(nil)
    }

    private struct PoolState {
        var idle: [Worker] = []
        var backlog: Deque<WorkRunner> = []
        var threads = 0
        var statistics = Statistics()
    }

    private let state = LockedValue(PoolState())
    private let maxThreads: Int
    private let idleTimeout: Double
    private let lingerNanoseconds: UInt64

    /// Creates a pool.
    /// - Parameters:
    ///   - maxThreads: the most threads it will run at once; runners beyond that wait their turn.
    ///   - idleTimeout: seconds an idle thread waits for work before it exits.
    ///   - linger: how long a runner whose queue ran dry keeps watching it for new items (yielding the processor
    ///     as it does) before it lets its thread park. Zero parks at once.
    ///
    /// ```swift
    /// let pool = ThreadPoolExecutor(maxThreads: 4, idleTimeout: 10, linger: .microseconds(100))
    /// let parsing = WorkQueue("parsing", maxConcurrency: 4, executor: pool)
    /// ```
    public init(maxThreads: Int, idleTimeout: Double, linger: Duration = .microseconds(50)) {
        self.maxThreads = max(1, maxThreads)
        self.idleTimeout = idleTimeout
        let (seconds, attoseconds) = linger.components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        self.lingerNanoseconds = nanoseconds <= 0 ? 0 : UInt64(min(nanoseconds, 3.6e12))
    }

    /// Threads alive now (running or parked).
    public var threadCount: Int { state.withLock { $0.threads } }

    /// The pool's counters so far.
    ///
    /// ```swift
    /// let before = pool.statistics.wakeUps
    /// // ... a burst of work ...
    /// print("woke \(pool.statistics.wakeUps - before) parked threads")
    /// ```
    public var statistics: Statistics { state.withLock { $0.statistics } }

    public func schedule(_ runner: WorkRunner) {
        submit(runner)
    }

    private func submit(_ runner: WorkRunner) {
        enum Decision { case wake(Worker), spawn(Int), queued }
        let decision = state.withLock { state -> Decision in
            state.statistics.runners += 1
            if let worker = state.idle.popLast() {
                worker.assignment.withLock { $0 = runner }
                state.statistics.wakeUps += 1
                return .wake(worker)
            }
            if state.threads < maxThreads {
                state.threads += 1
                state.statistics.threadsStarted += 1
                return .spawn(state.statistics.threadsStarted)
            }
            state.backlog.append(runner)
            return .queued
        }
        switch decision {
        case .wake(let worker): worker.wakeUp.signal()
        case .spawn(let number): spawn(number: number, first: runner)
        case .queued: break
        }
    }

    private func spawn(number: Int, first: WorkRunner) {
        let thread = Thread { [self] in self.workerLoop(first: first) }
        thread.name = "lanes-worker-\(number)"
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func workerLoop(first: WorkRunner) {
        let worker = Worker()
        var next: WorkRunner? = first
        while true {
            if let next { next.run(lingering: lingerNanoseconds) }
            next = state.withLock { state -> WorkRunner? in
                if let queued = state.backlog.popFirst() { return queued }
                state.idle.append(worker)
                return nil
            }
            if next != nil { continue }
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
            next = worker.assignment.withLock { assignment in
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
