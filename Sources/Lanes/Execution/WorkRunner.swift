import Dispatch
import Synchronization

/// A request from a queue to run its items. An executor receives one per wanted thread of work and must call
/// ``run(maxItems:)`` exactly once, on whatever thread it chooses.
///
/// ```swift
/// struct InlineExecutor: WorkExecutor {
///     func schedule(_ runner: WorkRunner) { runner.run() }
/// }
/// ```
public struct WorkRunner: Sendable {
    let queue: WorkQueue
    /// The item to start with: one another runner popped and handed over to a thread of its level.
    let first: WorkNode?

    /// The priority of the most urgent item ready when the queue asked (it may have changed since): executors
    /// that run work at an operating-system level choose it from this.
    public let priority: WorkPriority

    init(queue: WorkQueue, priority: WorkPriority = .normal, first: WorkNode? = nil) {
        self.queue = queue
        self.priority = priority
        self.first = first
    }

    /// The queue that asked.
    public var queueName: String { queue.name }

    /// Runs ready items one after another, up to `maxItems`, then returns. If work remains, the queue asks its
    /// executor for another runner.
    public func run(maxItems: Int = .max) {
        _ = runCounting(maxItems: maxItems)
    }

    /// ``run(maxItems:)`` that tells how many bodies it started (items cancelled between the queue's ask and the
    /// run start none). For LanesTesting's `ManualExecutor`, whose counts are items, not runners.
    package func runCounting(maxItems: Int = .max) -> Int {
        var started = 0
        _ = queue.drain(maxItems: maxItems, first: first, started: &started)
        return started
    }

    /// Runs like ``run(maxItems:)``, then lingers up to `nanoseconds` for new work before returning (Lanes' own
    /// pool). Runs only items of `level`: the first item of another level ends the run and comes back as a runner
    /// that starts with it, for a thread of that level. Levels above `ceiling` count as `ceiling` (see
    /// ``ThreadPoolExecutor/init(maxThreads:idleTimeout:linger:ceiling:)``).
    func run(lingering nanoseconds: UInt64, level: ThreadLevel, ceiling: ThreadLevel, pool: ThreadPoolExecutor)
        -> WorkRunner?
    {
        var started = 0
        let handed = queue.drain(
            maxItems: .max, linger: nanoseconds, level: level, ceiling: ceiling, first: first, pool: pool,
            started: &started)
        guard let node = handed else { return nil }
        return WorkRunner(queue: queue, priority: node.effectivePriority, first: node)
    }
}

/// Where a queue's items run. Lanes' thread pool is the default; `DispatchExecutor` runs on a dispatch queue (the
/// main queue for UI work); LanesTesting's `ManualExecutor` runs items only when a test says so.
public protocol WorkExecutor: Sendable {
    /// Arranges for `runner.run(maxItems:)` to be called once, later or now.
    func schedule(_ runner: WorkRunner)

    /// Runs the bookkeeping a queue's ``WorkQueue/cancelAll()`` leaves behind: finishing every cancelled item
    /// (resolving its handle, posting its completions, telling its dependents). The default hands it to a Dispatch
    /// global queue, so `cancelAll()` returns at once whatever the number of items; LanesTesting's `ManualExecutor`
    /// runs it on the calling thread, so a test sees every handle resolved when `cancelAll()` returns.
    ///
    /// ```swift
    /// struct CallerThreadExecutor: WorkExecutor {
    ///     func schedule(_ runner: WorkRunner) { runner.run() }
    ///     func finishCancelled(_ sweep: @escaping @Sendable () -> Void) { sweep() }
    /// }
    /// ```
    func finishCancelled(_ sweep: @escaping @Sendable () -> Void)

    /// The task executor the `async` bodies of this executor's queues run on, at the level of `priority`; nil (the
    /// default) runs them on Swift's global pool.
    func taskExecutor(priority: WorkPriority) -> (any TaskExecutor)?
}

extension WorkExecutor {
    /// The task executor `async` bodies of a queue on this executor run on; nil runs them on Swift's global pool.
    public func taskExecutor(priority: WorkPriority) -> (any TaskExecutor)? { nil }

    /// Finishes a cancel-all's items on a Dispatch global queue, off the caller's thread (see
    /// ``WorkExecutor/finishCancelled(_:)``). A Dispatch queue, not Lanes' pool: handing it a closure never starts a
    /// thread on the caller's.
    public func finishCancelled(_ sweep: @escaping @Sendable () -> Void) {
        DispatchQueue.global(qos: .userInitiated).async(execute: sweep)
    }
}

/// The lane the current thread is running an item for, so blocking waits on it can be refused.
enum CurrentLane {
    private static let key = ThreadLocalKey()

    static var queueID: UInt64? {
        get { key.value }
        set { key.value = newValue }
    }

    static func isRunning(on queue: WorkQueue) -> Bool { key.value == queue.id }
}
