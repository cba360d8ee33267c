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
    func run(lingering nanoseconds: UInt64, level: ThreadLevel, ceiling: ThreadLevel) -> WorkRunner? {
        var started = 0
        let handed = queue.drain(
            maxItems: .max, linger: nanoseconds, level: level, ceiling: ceiling, first: first, started: &started)
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

extension WorkQueue {
    /// Runs ready items until none is left (or `maxItems` ran). A runner given a `linger` (the thread pool's) that
    /// finds the queue empty stays attached that many nanoseconds, watching for new work without the lock, before it
    /// detaches: a producer adding items one by one then hands them to a running thread instead of waking a parked
    /// one for each (a wake is a system call and a context switch, ten times the cost of an item).
    ///
    /// A runner given a `level` (the pool's) returns the first popped item whose priority maps to another level,
    /// unstarted, keeping its place among the queue's workers, for the caller to hand to a thread of that level.
    /// A runner given `first` starts with that item.
    func drain(
        maxItems: Int, linger: UInt64 = 0, level: ThreadLevel? = nil, ceiling: ThreadLevel = .normal,
        first: WorkNode? = nil, started: inout Int
    ) -> WorkNode? {
        var handed = first
        var finished: WorkNode?
        var count = 0
        var mayLinger = linger > 0
        var lingerDeadline: UInt64? = nil
        var breaks: UInt32 = 0
        // A batch of claimed items (see `ClaimBatch`): run without the lock while nothing more urgent is ready and
        // the queue is not suspended, their ends accounted in the next acquisition.
        var batch: ClaimBatch?
        var batchBreaks: UInt32 = 0
        var batchDone: [WorkNode] = []
        let mayClaim = maxItems == .max
        let outer = CurrentLane.queueID
        CurrentLane.queueID = id
        defer { CurrentLane.queueID = outer }
        while true {
            var action = QueueAction()
            var returned: WorkNode?
            if let claimed = batch {
                var tracked = false
                if let done = finished.take() {
                    batchDone.append(done)
                    // A tracked item (it registered an `onCancel` handler) leaves the running list under the lock.
                    tracked = done.slot.runningIndex.load(ordering: .relaxed) >= 0
                }
                if !tracked, lingerBreaks.load(ordering: .acquiring) == batchBreaks,
                    readyTopMirror.load(ordering: .relaxed) <= claimed.level, let node = claimed.take()
                {
                    // Its priority may have changed since it was claimed: it starts only if nothing more urgent is
                    // ready and it belongs to this thread's level.
                    if node.effectiveLevel.load(ordering: .relaxed) >= readyTopMirror.load(ordering: .relaxed),
                        level == nil || min(ThreadLevel(node.effectivePriority), ceiling) == level
                    {
                        handed = node
                    } else {
                        returned = node
                    }
                }
            }
            let done = finished.take()
            // Nothing to run now, but the queue may get work at any moment: stay attached and watch for it.
            var lingerNow = false
            var stale: WorkNode?
            let next: WorkNode? = if let handed = handed.take() { handed } else { lockedNotingContention { state, contended in
                if let claimed = batch.take() {
                    for node in batchDone { state.finishedClaimed(node) }
                    batchDone.removeAll(keepingCapacity: true)
                    stale = state.endClaim(claimed, returning: returned)
                }
                if let done { state.finished(done, ran: true, sync: true) }
                state.collectIdle(into: &action)
                if count < maxItems, let node = state.pop() {
                    // A batch only pays when runners queue for the lock: with a free lock, one acquisition per item is
                    // cheaper than the batch's upkeep (`scaling/fanout`, whose ready items come one per acquisition).
                    if mayClaim, contended || state.claimWhenUncontended,
                        level == nil || min(ThreadLevel(node.effectivePriority), ceiling) == level,
                        let claimed = state.claim(after: node)
                    {
                        batch = claimed
                        batchBreaks = lingerBreaks.load(ordering: .relaxed)
                    }
                    return node
                }
                if count < maxItems, let node = state.steal() { return node }
                if mayLinger, count < maxItems, !state.suspended, state.workers <= state.limit {
                    lingerNow = true
                    breaks = lingerBreaks.load(ordering: .relaxed)
                    return nil
                }
                state.workers -= 1
                // A turn-per-item queue's runner that found the limit reached leaves its items to the turns the
                // running item's end asks for: asking again now would spin while an async item is suspended.
                if !state.turnPerItem || state.running < state.limit { state.requestRunners(into: &action) }
                return nil
            } }
            perform(action)
            if let stale { sweep([stale]) }
            guard let node = next else {
                if !lingerNow {
                    recheckInbox()
                    return nil
                }
                // Work seen: back to the lock for it. Time up: one last look under the lock, then detach.
                if !awaitWork(for: linger, until: &lingerDeadline, breaks: breaks) { mayLinger = false }
                continue
            }
            mayLinger = linger > 0
            lingerDeadline = nil
            if let level, min(ThreadLevel(node.effectivePriority), ceiling) != level { return node }
            count += 1
            guard let body = node.start() else {
                // Cancelled between pop and start; it was accounted for as unrun. A claimed item's slot is its batch's.
                if batch == nil { updateRequestingRunners { $0.unrun(node, sync: node.isSync) } }
                continue
            }
            started += 1
            WorkEvents.emit(.started, node: node, queue: self, state: .running)
            switch consume body {
            case .sync(let function):
                // The body is consumed by the call, so what it captured is released before the item completes.
                do {
                    node.complete(success: try Self.run(consume function, WorkContext(node: node)))
                } catch {
                    node.complete(.failure(error))
                }
                finished = consume node
            case .async(let function):
                let context = WorkContext(node: node)
                let priority = node.effectivePriority
                // On Lanes' pool the body's jobs run on the pool's threads of the item's level.
                let preferred = executor.taskExecutor(priority: priority)
                let task = Task(executorPreference: preferred, priority: priority.taskPriority) {
                    let result: Result<any Sendable, any Error>
                    do { result = .success(try await function(context)) } catch { result = .failure(error) }
                    if node.complete(result) { self.nodeFinished(node, ran: true) }
                }
                node.setTask(task)
            case .callback(let function):
                function(WorkContext(node: node)) { result in
                    if node.complete(result) { self.nodeFinished(node, ran: true) }
                }
            }
        }
    }
}

extension WorkQueue {
    /// Runs a synchronous body. It is passed owned, so it is dropped when this returns, before the item completes.
    static func run(_ function: consuming any SyncBody, _ context: WorkContext) throws -> any Sendable {
        try function.run(context)
    }
}

extension WorkPriority {
    var taskPriority: TaskPriority {
        switch self {
        case .background: .background
        case .utility: .utility
        case .prefetch: .low
        case .normal: .medium
        case .visible: .userInitiated
        }
    }
}
