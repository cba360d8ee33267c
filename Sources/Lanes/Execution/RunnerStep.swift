import Dispatch
import Synchronization
/// What a runner does next, decided in one place (``WorkQueue/nextStep(_:)``).
enum RunnerStep {
    /// Start this item (it holds a running slot, or belongs to the runner's batch).
    case run(WorkNode)
    /// Nothing may start now but the queue may get work at any moment: watch for it without the lock (the value of
    /// `lingerBreaks` to watch), then decide again.
    case linger(breaks: UInt32)
    /// This item belongs to another thread level: return it, unstarted, with its slot, for a thread of that level.
    case handOff(WorkNode)
    /// Nothing to do: the runner has left the queue's workers.
    case detach
}

/// A runner's own books between two decisions: what it was handed or ran last, its batch, its lingering.
struct RunnerBooks {
    let maxItems: Int
    /// How long the runner lingers for new work (0: it detaches at once).
    let linger: UInt64
    /// The thread level the runner runs items of (nil: any), and the pool's ceiling.
    let level: ThreadLevel?
    let ceiling: ThreadLevel
    /// An item to start with, handed over by another runner.
    var handed: WorkNode?
    /// The synchronous item it ran last, to account for at the next decision.
    var finished: WorkNode?
    /// The one item of this queue that the end of `finished` made ready (a chain's next link), not yet listed: the
    /// next decision lists it, before admitting the inbox, in the acquisition that accounts for `finished` and pops
    /// (Tokio's "next" slot, but through the buckets, so FIFO and priority order hold exactly). Set only when the
    /// inbox was empty at its end (nothing in the inbox then was added before it was ready) or held the item itself
    /// (it is listed in its place when the inbox is admitted).
    var next: WorkNode?
    /// Items it started or tried to.
    var count = 0
    var mayLinger: Bool
    var lingerDeadline: UInt64?
    /// Its batch (see ``RunnerBatch``), the linger-break count when it was taken, the batch's items it ran, and one it
    /// took but did not start (a more urgent item came): all settled at the next decision under the lock.
    var batch: RunnerBatch?
    var batchBreaks: UInt32 = 0
    var batchDone: [WorkNode] = []
    var returned: WorkNode?
    /// Its references to the synchronous items it ran, for the queue's retired stack once its other references are
    /// gone (the next decision), and how many it pushed there in a row that no producer emptied (see
    /// ``WorkQueue/retire(_:into:)``).
    var retiring: [Unmanaged<WorkNode>] = []
    var retiredInARow = 0
    /// Whether it hands its nodes to the retired stack (true) or frees them itself after each decision: it stops
    /// after ``WorkQueue/retiredLimit`` in a row that no producer emptied, and starts again when it finds items in the
    /// inbox before a decision (a producer is adding: see ``WorkQueue/publishRetiring(_:)``).
    var handsBack = true

    /// The pool whose waiting runners end its lingering early (see ``PoolWidth``): a lingering runner holds a place.
    let pool: ThreadPoolExecutor?
    /// `pool` without a reference of its own, read on every decision (``poolRunnersWaiting``); `pool` keeps it alive.
    private let poolView: Unmanaged<ThreadPoolExecutor>?
    /// When it started (uptime nanoseconds; pool runners only): after a quantum it gives its place to a waiting runner.
    let began: UInt64

    init(
        maxItems: Int, linger: UInt64, level: ThreadLevel?, ceiling: ThreadLevel, first: WorkNode?,
        pool: ThreadPoolExecutor? = nil
    ) {
        self.pool = pool
        self.poolView = pool.map { Unmanaged.passUnretained($0) }
        self.began = pool == nil ? 0 : DispatchTime.now().uptimeNanoseconds
        self.maxItems = maxItems
        self.linger = linger
        self.level = level
        self.ceiling = ceiling
        self.handed = first
        self.mayLinger = linger > 0
    }

    /// Whether the runner owes its place in the pool's width to a waiting runner: others wait and it has run for a
    /// quantum (``ThreadPoolExecutor/quantum``), so one busy queue cannot keep another's runners waiting for good.
    /// It then leaves as if it had run `maxItems`, asking for a runner for what is left, which waits its turn.
    func owesPlace() -> Bool {
        guard poolRunnersWaiting else { return false }
        return DispatchTime.now().uptimeNanoseconds &- began >= ThreadPoolExecutor.quantum
    }

    /// Whether runners wait for the pool's width (false off the pool), read without retaining the pool: the pool is
    /// weakly referenced (by its monitor's closure), so each retain and release of it goes through its side table, an
    /// atomic on one cache line that every runner shares; taken on every decision, the pair cost a fan-out's runners
    /// about a tenth of their time (`perf`, benchmarks/log/2026-11-29-engine.md).
    var poolRunnersWaiting: Bool {
        guard let poolView else { return false }
        return poolView._withUnsafeGuaranteedRef { $0.runnersWaiting }
    }

    /// Whether `node` runs on this runner's thread level.
    func belongs(_ node: WorkNode) -> Bool {
        level == nil || min(ThreadLevel(node.effectivePriority), ceiling) == level
    }
}

extension WorkQueue {
    /// The runner's next step. Without the lock when it can: the item it was handed, or the next of its batch while
    /// nothing more urgent is ready and the queue was neither suspended nor narrowed. Otherwise one acquisition of
    /// the lock settles what the runner did since the last one and ``decide(_:_:contended:action:)`` picks the step.
    func nextStep(_ books: inout RunnerBooks) -> RunnerStep {
        if let node = books.handed.take() { return books.belongs(node) ? .run(node) : .handOff(node) }
        // Checked for this thread's level in `nextFromBatch` (a second read could hand it off with the batch open).
        if let node = nextFromBatch(&books) { return .run(node) }
        var action = QueueAction()
        var stale: WorkNode?
        var freeRetired = false
        let next = books.next.take()
        if !books.handsBack, !inbox.isEmpty { books.handsBack = true }
        #if DEBUG || LANES_INTERNAL_CHECKS
        if let next { debugHooks.listsNext(next) }
        #endif
        let step = lockedNotingContention(listingFirst: next) { state, contended in
            if let batch = books.batch.take() {
                stale = state.endBatch(batch, done: books.batchDone, returning: books.returned.take())
                books.batchDone.removeAll(keepingCapacity: true)
            }
            if let done = books.finished.take() { state.finished(done, ran: true, sync: true) }
            // In the critical section that accounts for them: an idle queue's retired nodes are all on the stack.
            freeRetired = publishRetiring(&books)
            state.collectIdle(into: &action)
            let step = decide(&state, &books, contended: contended, action: &action)
            // More ready items than this runner takes: the runners `nodesBecameReady` would have asked for.
            if next != nil { state.requestRunners(into: &action) }
            return step
        }
        if freeRetired { releaseRetired() }
        // Before `perform` wakes `idle()` waiters: a runner that frees its own nodes has freed them by then.
        releaseOwnRetiring(&books)
        perform(action)
        if let stale { sweep([stale]) }
        return step
    }

    /// The decision, under the lock: pop the next item (taking a batch with it when runners queue for the lock),
    /// else steal from another runner's batch, else linger, else detach (asking for the runners still wanted). An
    /// item of another thread level is handed off, decided once here: a batch is taken only with an item this runner
    /// runs, so no batch is ever left open behind a hand-off.
    private func decide(
        _ state: inout QueueState, _ books: inout RunnerBooks, contended: Bool, action: inout QueueAction
    ) -> RunnerStep {
        if books.count < books.maxItems, !books.owesPlace() {
            if let node = state.pop() {
                // A runner back from lingering asks for runners for what else is ready: producers ask none while
                // one lingers (see ``WorkQueue/lingering``).
                if books.lingerDeadline != nil { state.requestRunners(into: &action) }
                guard books.belongs(node) else { return .handOff(node) }
                // A batch only pays when runners queue for the lock: with a free lock, one acquisition per item is
                // cheaper than the batch's upkeep (`scaling/fanout`, whose ready items come one per acquisition).
                if books.maxItems == .max, contended || state.batches.whenUncontended,
                    let batch = state.takeBatch(after: node)
                {
                    books.batch = batch
                    books.batchBreaks = lingerBreaks.load(ordering: .relaxed)
                }
                return .run(node)
            }
            if let node = state.steal() { return books.belongs(node) ? .run(node) : .handOff(node) }
            if books.mayLinger, !state.suspended, state.workers <= state.limit {
                return .linger(breaks: lingerBreaks.load(ordering: .relaxed))
            }
        }
        state.workers -= 1
        // A turn-per-item queue's runner that found the limit reached leaves its items to the turns the running
        // item's end asks for: asking again now would spin while an async item is suspended.
        if !state.turnPerItem || state.running < state.limit { state.requestRunners(into: &action) }
        return .detach
    }

    /// The next item of the runner's batch, without the lock, if it may start: nothing more urgent is ready, no
    /// suspend or narrowing happened since the batch was taken, the item ran last is not tracked (an item with an
    /// `onCancel` handler leaves the running list under the lock), and the item belongs to this thread's level.
    /// An item taken but not startable comes back at the next decision (`returned`).
    private func nextFromBatch(_ books: inout RunnerBooks) -> WorkNode? {
        guard let batch = books.batch else { return nil }
        if let done = books.finished.take() {
            books.batchDone.append(done)
            if done.slot.runningIndex.load(ordering: .relaxed) >= 0 { return nil }
        }
        // An item it made ready is listed first: it may be more urgent than the batch.
        guard books.next == nil, lingerBreaks.load(ordering: .acquiring) == books.batchBreaks,
            readyTopMirror.load(ordering: .relaxed) <= batch.level, let node = batch.take()
        else { return nil }
        // Its priority may have changed since it was batched.
        if node.effectiveLevel.load(ordering: .relaxed) >= readyTopMirror.load(ordering: .relaxed), books.belongs(node) {
            return node
        }
        books.returned = node
        return nil
    }
}
