import DequeModule
import Dispatch
import Foundation
import Synchronization

/// A named queue of work items with an exact concurrency limit, priorities, barriers, suspension and cancel-all.
///
/// Move slow work off the main queue and ship the result back to it (the pattern of WWDC 2010's "Introducing Blocks
/// and Grand Central Dispatch on iPhone"):
///
/// ```swift
/// let processing = WorkQueue("processing", maxConcurrency: 4)
/// let smoothed = processing.add(label: "smooth AAPL") { ctx in
///     try smooth(prices, isCancelled: { ctx.isCancelled })
/// }
/// smoothed.onMainCompletion { result in          // chart is @MainActor
///     if case .success(let series) = result { chart.show(series) }
/// }
/// // The user left the screen:
/// processing.cancelAll()
/// ```
///
/// A limit of 1 makes a serial FIFO lane (within one priority level). The limit is honoured exactly: Lanes runs
/// items on its own threads, so the concurrency you set is the concurrency you get, even when bodies block.
public final class WorkQueue: Sendable, Hashable, CustomStringConvertible {
    private static let ids = Atomic<UInt64>(0)

    /// The queue's name, shown in events, traces and errors.
    public let name: String
    let id: UInt64
    let executor: any WorkExecutor
    let state: Lock<QueueState>
    /// Mirrors the state's cancel-all epoch for lock-free cancellation checks.
    let cancelEpoch = Atomic<UInt64>(0)
    /// Nodes enqueued ready, not yet moved into the buckets.
    let inbox = ReadyInbox()
    /// Mirrors `state.workers` and `state.limit`, so a producer can tell without the lock whether a runner may be
    /// missing.
    let workersMirror = Atomic<Int>(0)
    let limitMirror: Atomic<Int>
    /// Mirrors whether a runner could pop an item now, for runners lingering outside the lock (see `drain`).
    let poppableMirror = Atomic<Bool>(false)
    /// At least the most urgent level of the ready items (buckets and inbox): a runner checks it before starting
    /// each item of its claimed batch (see ``ClaimBatch``). Producers raise it; the lock's holder lowers it.
    let readyTopMirror = Atomic<Int>(-1)
    /// Bumped (under the lock) by a suspend or a lowered limit, so lingering runners detach at once.
    let lingerBreaks = Atomic<UInt32>(0)
    /// Whether each ready item gets a runner of its own (``main``; see `init(_:maxConcurrency:executor:turnPerItem:)`).
    let turnPerItem: Bool
    #if DEBUG || LANES_INTERNAL_CHECKS
    /// Test hooks on the runners (see `RunnerHooks`).
    let debugHooks = DebugHooks()
    #endif

    /// Creates a queue.
    /// - Parameters:
    ///   - name: shown in events, traces and errors.
    ///   - maxConcurrency: how many items may run at once (values below 1 are treated as 1; use
    ///     ``setMaxConcurrency(_:)`` to get an error instead). Defaults to the number of active processors.
    ///   - executor: where bodies run; Lanes' own thread pool by default.
    public convenience init(
        _ name: String, maxConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount,
        executor: (any WorkExecutor)? = nil
    ) {
        self.init(name, maxConcurrency: maxConcurrency, executor: executor, turnPerItem: false)
    }

    /// With `turnPerItem`, every item that becomes ready asks the executor for a runner of its own at once, whatever
    /// the limit (a runner that finds the limit reached leaves without asking again): on a serial dispatch queue, with
    /// a batch of 1, each item then takes its place among the queue's other blocks when it is enqueued.
    init(_ name: String, maxConcurrency: Int, executor: (any WorkExecutor)?, turnPerItem: Bool) {
        self.name = name
        self.id = Self.ids.add(1, ordering: .relaxed).newValue
        self.executor = executor ?? ThreadPoolExecutor.shared
        self.turnPerItem = turnPerItem
        self.state = Lock(QueueState(limit: max(1, maxConcurrency), turnPerItem: turnPerItem))
        self.limitMirror = Atomic(max(1, maxConcurrency))
    }

    /// A serial queue whose items run through the main dispatch queue, in order with `DispatchQueue.main` blocks and
    /// `@MainActor` jobs (``WorkItem/onMainCompletion(_:)`` hands results to main-actor code). Use it to ship results
    /// to the UI.
    ///
    /// **Order.** Each item takes its turn on the main dispatch queue when it is enqueued (an item with dependencies:
    /// when they finish), exactly as a `DispatchQueue.main.async` block would, and each turn runs the most urgent
    /// item waiting, first come first served within a priority. So:
    /// - items of the same priority, enqueued from one thread, run in that order with the `DispatchQueue.main` blocks
    ///   and `@MainActor` jobs that thread enqueues between them;
    /// - an item never waits behind main-queue work enqueued after it: a flood of `DispatchQueue.main` blocks
    ///   delays it by none of those that came later;
    /// - a more urgent item runs at the first turn of any waiting item, ahead of less urgent ones enqueued before it
    ///   (completion handlers and the toolkit's deliveries are `.visible`;
    ///   ``add(label:priority:after:policy:_:)-7xwzo`` defaults to `.normal`). Give items the same priority where
    ///   their relative order matters;
    /// - while an `async` item is suspended the queue runs nothing else: items that became ready meanwhile take new
    ///   turns when it finishes.
    ///
    /// Its items run on the process's main thread when the main thread runs a loop that drains the main queue:
    /// ``MainLoop``, Foundation's `RunLoop`, or a GUI toolkit's loop bridged with ``MainQueueDriver``. A program
    /// parked in `dispatchMain()` or an `async main` (on Linux) still runs them serially on the main queue (so
    /// ``MainQueue/isCurrent`` holds and `@MainActor` code may run), but on a worker thread: see ``MainLoop``.
    ///
    /// ```swift
    /// MainLoop.run {
    ///     WorkQueue.main.add { _ in print("first") }
    ///     DispatchQueue.main.async { print("second") }
    ///     WorkQueue.main.add { _ in print("third") }
    /// }
    /// ```
    public static let main = WorkQueue(
        "main", maxConcurrency: 1, executor: MainTurnExecutor(), turnPerItem: true)

    public var description: String { "WorkQueue(\(name))" }
    public static func == (lhs: WorkQueue, rhs: WorkQueue) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    // MARK: Limits and suspension

    /// How many items may run at once.
    public var maxConcurrency: Int { locked { $0.limit } }

    /// Changes the concurrency limit while the queue runs. Raising it starts waiting items at once; lowering it lets
    /// running items finish and starts no new ones until fewer than `limit` run.
    ///
    /// ```swift
    /// try downloads.setMaxConcurrency(2)   // scrolling fast: leave the CPU to the main queue
    /// ```
    public func setMaxConcurrency(_ limit: Int) throws(LanesError) {
        guard limit >= 1 else { throw .invalidLimit(limit) }
        updateRequestingRunners { state in
            if limit < state.limit { lingerBreaks.wrappingAdd(1, ordering: .releasing) }
            state.limit = limit
        }
    }

    /// Caps how many items below `priority` run at once, so they never take the whole width: the remaining slots
    /// stay free for items at `priority` or above (a visible row never waits behind running prefetches). Items
    /// already running are not interrupted; `limit` `Int.max` (or a `priority` of `.background`) removes the cap.
    ///
    /// ```swift
    /// let renders = WorkQueue("renders", maxConcurrency: 4)
    /// renders.setSpeculativeLimit(3, below: .normal)   // prefetch takes at most 3 threads; one is kept for the screen
    /// ```
    public func setSpeculativeLimit(_ limit: Int, below priority: WorkPriority) {
        updateRequestingRunners { $0.setSpeculative(below: limit == .max ? 0 : priority.rawValue, limit: max(0, limit)) }
    }

    /// The cap set by ``setSpeculativeLimit(_:below:)``: at most `limit` items below `priority` run at once (nil: no
    /// cap).
    ///
    /// ```swift
    /// if let cap = renders.speculativeLimit { print("\(cap.limit) below \(cap.priority)") }
    /// ```
    public var speculativeLimit: (limit: Int, priority: WorkPriority)? {
        locked { state in
            state.speculativeBelow == 0 ? nil : (state.speculativeLimit, WorkPriority(rawValue: state.speculativeBelow)!)
        }
    }

    /// Whether the queue is suspended (running items continue; no new item starts).
    public var isSuspended: Bool { locked { $0.suspended } }

    /// Stops starting items until ``resume()``. Running items are not interrupted.
    public func suspend() {
        locked { state in
            state.suspended = true
            lingerBreaks.wrappingAdd(1, ordering: .releasing)
        }
    }

    /// Starts items again after ``suspend()``.
    public func resume() {
        updateRequestingRunners { $0.suspended = false }
    }

    /// A snapshot of the queue's counters.
    public struct Counts: Sendable, Equatable {
        /// Items enqueued and not yet finished (waiting, ready or running).
        public var unfinished: Int
        /// Items ready to start.
        public var ready: Int
        /// Items running.
        public var running: Int
        /// Items finished since the queue was made.
        public var completed: UInt64
        /// Runners attached to the queue: running its items, asked for, or lingering for more work.
        public var runners: Int = 0
    }

    /// The queue's counters now. An item's handle resolves a moment before the queue counts the item finished; to
    /// read settled counts after awaiting items, `await idle()` first.
    ///
    /// ```swift
    /// let counts = queue.counts
    /// print("\(counts.running) running, \(counts.ready) ready, \(counts.completed) done")
    /// ```
    public var counts: Counts {
        locked {
            Counts(
                unfinished: $0.unfinished, ready: $0.live + $0.pendingClaims, running: $0.running,
                completed: $0.completedCount, runners: $0.workers)
        }
    }

    // MARK: Cancellation

    /// Cancels every item in the queue, atomically and in O(1): once this returns, no item that was pending will
    /// start its body, and every item that was in the queue reports `isCancelled` and the `.cancelled` state. Their
    /// handles resolve, dependents are told, and running items' `onCancel` handlers run promptly afterwards, where
    /// the queue's executor puts that bookkeeping (``WorkExecutor/finishCancelled(_:)``): on a background thread by
    /// default (about 0.1 s for 200,000 items; `await idle()` waits for it), on the calling thread before this returns
    /// with LanesTesting's `ManualExecutor`. Items added afterwards run normally.
    ///
    /// ```swift
    /// func viewDidDisappear() { processing.cancelAll() }
    /// ```
    public func cancelAll() {
        // Not `locked`: the inbox is detached whole rather than admitted item by item. Its nodes were never members;
        // they carry the epoch they were pushed in, so they too report themselves cancelled at once.
        let (nodes, detached, inboxChain) = state.withLock { state in
            let chain = inbox.detach()
            let result = state.beginCancelAll()
            cancelEpoch.store(state.epoch, ordering: .releasing)
            state.sweeping += 1
            if InternalChecks.isEnabled { state._checkInvariants(queue: name) }
            return (result.nodes, result.buckets, UncheckedChain(head: chain))
        }
        // Finishing each item (resolving its handle, telling its dependents) touches every node; the executor decides
        // where: by default a background thread, promptly, while the caller goes on; a test's manual executor, here.
        executor.finishCancelled { [self] in
            self.sweep(ReadyInbox.nodes(from: inboxChain.head))
            for bucket in detached where !bucket.isEmpty { self.sweep(bucket.map(\.node)) }
            self.sweep(nodes)
            self.update { state, _ in state.sweeping -= 1 }
        }
    }

    /// Finishes the members a cancel-all detached, accounting for them in batches.
    func sweep(_ members: [WorkNode]) {
        var effects: [Effect] = []
        var batch: [WorkNode] = []
        batch.reserveCapacity(1024)
        func flush() {
            let nodes = batch
            batch.removeAll(keepingCapacity: true)
            updateRequestingRunners { state in
                for node in nodes { state.finished(node, ran: false, sync: node.isSync) }
            }
            var taken: [Effect] = []
            swap(&taken, &effects)
            Effects.run(taken)
        }
        for node in members {
            if node.cancel(into: &effects, batching: self) { batch.append(node) }
            if batch.count == 1024 || effects.count >= 1024 { flush() }
        }
        flush()
    }

    /// Whether a cancel-all happened after an item was admitted in `epoch`.
    @inline(__always)
    func cancelledAll(since epoch: UInt64) -> Bool {
        cancelEpoch.load(ordering: .acquiring) > epoch
    }

    // MARK: Waiting

    /// Returns when the queue has no unfinished item.
    ///
    /// ```swift
    /// await queue.idle()
    /// ```
    public func idle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            whenIdle { continuation.resume() }
        }
    }

    /// Blocks the calling thread until the queue has no unfinished item. Refused (with
    /// ``LanesError/wouldDeadlock(_:)``) on the main thread and from an item running on this queue.
    ///
    /// ```swift
    /// try queue.waitUntilIdle()   // from a command-line tool's worker thread
    /// ```
    public func waitUntilIdle() throws(LanesError) {
        if MainQueue.isCurrent {
            throw .wouldDeadlock("waitUntilIdle() on the main thread for queue '\(name)'")
        }
        if CurrentLane.isRunning(on: self) {
            throw .wouldDeadlock("waitUntilIdle() from an item running on queue '\(name)'")
        }
        let semaphore = DispatchSemaphore(value: 0)
        whenIdle { semaphore.signal() }
        semaphore.wait()
    }

    /// Calls `wake` once the queue has no unfinished item: at once if it has none now, otherwise from the critical
    /// section's action that leaves it idle.
    private func whenIdle(_ wake: @escaping @Sendable () -> Void) {
        let now = locked { state -> Bool in
            if state.isIdle { return true }
            state.idleWaiters.append(wake)
            return false
        }
        if now { wake() }
    }

    /// Runs the queue's ready items on the calling thread, as one more runner would (the queue's limit still
    /// holds: nothing runs while its limit's worth of items already runs). Returns how many bodies started. For
    /// LanesTesting's `MainQueuePump.runPending()`, which drains ``main`` from a `@MainActor` test.
    package func runOnCaller(maxItems: Int = .max) -> Int {
        update { state, _ in state.workers += 1 }
        return WorkRunner(queue: self).runCounting(maxItems: maxItems)
    }

    // MARK: Internal transitions

    /// Runs `body` under the lock, then performs the action it built.
    func update(_ body: (inout QueueState, inout QueueAction) -> Void) {
        var action = QueueAction()
        locked { state in
            body(&state, &action)
            state.collectIdle(into: &action)
        }
        perform(action)
    }

    /// Runs `body` under the lock, then asks the executor for the runners the queue wants now.
    @inline(__always)
    func updateRequestingRunners(_ body: (inout QueueState) -> Void) {
        update { state, action in
            body(&state)
            state.requestRunners(into: &action)
        }
    }

    /// Takes the lock, moves the inbox into the buckets first, and refreshes the mirrors last.
    @inline(__always)
    func locked<Result: Sendable>(_ body: (inout QueueState) -> Result) -> Result {
        state.withLock { state in underLock(&state, body) }
    }

    /// `locked`, telling `body` whether another thread held the lock when this one asked for it (a runner claims a
    /// batch only then: see ``ClaimBatch``).
    @inline(__always)
    func lockedNotingContention<Result: Sendable>(_ body: (inout QueueState, _ contended: Bool) -> Result) -> Result {
        state.withLockNotingContention { state, contended in underLock(&state) { body(&$0, contended) } }
    }

    /// What every acquisition of the queue lock does around its `body`.
    @inline(__always)
    private func underLock<Result: Sendable>(_ state: inout QueueState, _ body: (inout QueueState) -> Result) -> Result {
        if !inbox.isEmpty {
            inbox.takeAll { state.admit($0, ready: true) }
        }
        let result = body(&state)
        // Mirrors are only written under the lock, so a relaxed read here sees their latest value; storing only
        // changes keeps the producers' cache line quiet (a runner that pops an item changes neither).
        if workersMirror.load(ordering: .relaxed) != state.workers {
            workersMirror.store(state.workers, ordering: .sequentiallyConsistent)
        }
        if limitMirror.load(ordering: .relaxed) != state.limit {
            limitMirror.store(state.limit, ordering: .relaxed)
        }
        // Kept only while a batch exists (it is refreshed in the acquisition that claims one): the rest of the
        // time it may stay high, and producers, who only raise it, then never write it.
        if !state.claims.isEmpty { refreshReadyTop(state) }
        let poppable = state.canPop
        if poppableMirror.load(ordering: .relaxed) != poppable {
            poppableMirror.store(poppable, ordering: .releasing)
        }
        if InternalChecks.isEnabled { state._checkInvariants(queue: name) }
        return result
    }

    /// Sets ``readyTopMirror`` to the buckets' most urgent level (under the lock). A producer that pushed into the
    /// inbox meanwhile raised it itself, or is seen here and the old value stays (both sides sequentially consistent).
    private func refreshReadyTop(_ state: borrowing QueueState) {
        let top = state.topBucketLevel
        let current = readyTopMirror.load(ordering: .relaxed)
        if top > current {
            readyTopMirror.max(top, ordering: .sequentiallyConsistent)
        } else if top < current {
            readyTopMirror.store(top, ordering: .sequentiallyConsistent)
            if !inbox.isEmpty { readyTopMirror.max(current, ordering: .sequentiallyConsistent) }
        }
    }

    /// What the queue's claims did (see ``ClaimBatch``): for tests and benchmarks.
    package var _claimCounts: ClaimCounts { locked { $0.claimCounts } }

    /// Lets this queue's runners claim batches when the lock was free too (tests: a claim then does not depend on a
    /// race for the lock).
    package func _claimWhenUncontended() { locked { $0.claimWhenUncontended = true } }

    /// A runner detached. If a producer pushed meanwhile and saw every runner attached, make sure one comes.
    func recheckInbox() {
        guard !inbox.isEmpty else { return }
        updateRequestingRunners { _ in }
    }

    @inline(__always)
    func perform(_ action: QueueAction) {
        // Most critical sections decide nothing: keep that case to three tests.
        guard action.runners > 0 || !action.idleWaiters.isEmpty else { return }
        for _ in 0..<action.runners { executor.schedule(WorkRunner(queue: self, priority: action.runnerPriority)) }
        for wake in action.idleWaiters { wake() }
    }

    /// Lists waiting members whose dependencies finished, in one critical section.
    func nodesBecameReady(_ nodes: some Sequence<WorkNode>) {
        updateRequestingRunners { state in
            for node in nodes { state.dependenciesFinished(node) }
        }
    }

    func nodeFinished(_ node: WorkNode, ran: Bool) {
        updateRequestingRunners { $0.finished(node, ran: ran, sync: node.isSync) }
    }

    func reprioritize(_ node: WorkNode) {
        update { state, action in
            state.reprioritize(node)
            // A speculative item promoted above the cap may start now.
            if state.speculativeBelow > 0 { state.requestRunners(into: &action) }
        }
    }
}

/// A detached inbox chain on its way to the sweep. The nodes it points to are retained by the chain itself and are
/// touched by exactly one thread (the sweep) after the hand-off, so sending the raw pointer is safe.
struct UncheckedChain: @unchecked Sendable {
    let head: Unmanaged<WorkNode>?
}
