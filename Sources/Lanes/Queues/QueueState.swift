import Synchronization
import DequeModule

/// An entry in a ready bucket or a barrier's held list. It is live while its generation matches the node's.
struct Entry {
    let node: WorkNode
    let generation: UInt32

    var parts: (WorkNode, UInt32) {
        consuming get { (node, generation) }
    }

    /// Whether the node's entry has not gone stale since this one was made (moved, cancelled).
    var isCurrent: Bool { generation == node.slot.generation.load(ordering: .relaxed) }

    /// Whether the entry stands for its node in the ready bucket of `level`.
    func isListed(at level: Int) -> Bool { isCurrent && node.slot.level.load(ordering: .relaxed) == level }
}

/// Items admitted between two barriers. Segment 0 is the one allowed to run.
struct Segment {
    /// Unfinished non-barrier items admitted into this segment.
    var unfinished = 0
    /// The barrier that closes the segment, if any.
    var barrier: WorkNode?
    var barrierReady = false
    var barrierCancelled = false
    /// Ready items waiting for the barriers before them to finish.
    var held: [Entry] = []
}

/// What a queue must do after releasing its lock.
struct QueueAction {
    var runners = 0
    /// The most urgent ready level when runners were asked for (a hint for the executor's choice of thread level).
    var runnerPriority = WorkPriority.background
    /// Waiters on an idle queue to wake (see `WorkQueue.whenIdle`).
    var idleWaiters: [@Sendable () -> Void] = []
}

/// The scheduling state of one queue. Never scans blocked items: a node enters a bucket only when it is ready, and
/// every operation is O(1) amortised (stale bucket entries are skipped once when popped).
struct QueueState {
    var limit: Int
    var suspended = false
    var epoch: UInt64 = 0
    var buckets = [Deque<Entry>](repeating: [], count: WorkPriority.count)
    /// Live entries in the buckets.
    var live = 0
    var running = 0
    var syncRunning = 0
    /// Runners requested or attached.
    var workers = 0
    /// Admitted items not yet finished (waiting, ready, held or running). Ready items are found through the
    /// buckets, waiting ones through `waitingNodes`, running ones through `runningNodes`: no per-item hashing on the
    /// ready path.
    var unfinished = 0
    /// Admitted items still waiting for dependencies; each knows its index (`slot.waitingIndex`) for O(1) removal.
    var waitingNodes: [WorkNode] = []
    /// Running items a cancel-all must reach (async and callback items, barriers, synchronous items with
    /// `onCancel` handlers, and every item while events are observed); each knows its index (`slot.runningIndex`)
    /// for O(1) removal. Other synchronous items learn of a cancel-all through the epoch alone, and finish cancelled.
    var runningNodes: [WorkNode] = []
    var idleWaiters: [@Sendable () -> Void] = []
    var segmentBase = 0
    var segments: Deque<Segment> = [Segment()]
    var barrierRunning = false
    var completedCount: UInt64 = 0
    /// Cancel-all sweeps still finishing detached items; the queue is not idle until they are done.
    var sweeping = 0
    /// Items ready below this priority level are speculative: at most `speculativeLimit` of them run at once, so the
    /// rest of the width stays free for more urgent items (0: no cap, the default).
    var speculativeBelow = 0
    var speculativeLimit = Int.max
    /// Live bucket entries below `speculativeBelow`.
    var speculativeLive = 0
    /// Running items popped below `speculativeBelow`; their `slot.level` reads `speculativeMark` until they finish.
    var speculativeRunning = 0
    static let speculativeMark = -2
    /// Batches of claimed items not ended by their owners (see ``ClaimBatch``).
    var claims: [ClaimBatch] = []
    /// Items claimed beyond the one popped, items stolen from a batch, items given back: for tests and benchmarks.
    var claimCounts = ClaimCounts()
    /// Whether runners claim batches when the queue lock was free too (tests); otherwise only when it was held.
    var claimWhenUncontended = false
    /// At most this many items per claim (1: no batches). 64 rather than 8: on 8 threads over 2 cores the cost of an
    /// item follows the contended acquisitions per item, which 64 cuts about 7× against 8 (see BENCHMARKS.md,
    /// "Batch claims"); a queue with few ready items claims fewer anyway (ready / runners).
    static let maxClaim = 64

    /// Every ready item gets a runner of its own, beyond the limit (``WorkQueue/main``: a turn on the main queue per
    /// item, taken when the item becomes ready).
    let turnPerItem: Bool

    init(limit: Int, turnPerItem: Bool = false) {
        self.limit = limit
        self.turnPerItem = turnPerItem
    }

    // MARK: Membership

    /// Admits a pending node. It may have finished since it became pending (cancelled), in which case it is not
    /// admitted; a waiting node whose dependencies finished meanwhile is re-checked (node locks may nest inside the
    /// queue lock, never the other way round).
    mutating func admit(_ node: WorkNode, ready: Bool) {
        guard !node.finishedFlag.load(ordering: .acquiring) else { return }
        node.slot.member.store(true, ordering: .relaxed)
        unfinished += 1
        node.slot.epoch.store(epoch, ordering: .relaxed)
        node.slot.level.store(-1, ordering: .relaxed)
        let index = segments.count - 1
        node.slot.segment.store(segmentBase + index, ordering: .relaxed)
        if node.isBarrier {
            segments[index].barrier = node
            segments.append(Segment())
        } else {
            segments[index].unfinished += 1
        }
        if ready, index == 0, !node.isBarrier {
            push(node)  // the common case (no barrier pending): what `becameReady` would check was just set
        } else if ready || node.isReadyToRun {
            becameReady(node)
        } else {
            node.slot.waitingIndex.store(waitingNodes.count, ordering: .relaxed)
            waitingNodes.append(node)
        }
    }

    /// A waiting member's last dependency finished (the `becameReady` effect): list it. Only a node in the waiting
    /// list is: one whose dependencies finished between its enqueue and its admission was listed by the admission
    /// itself, and listing it again would count it twice in `live` (the second entry goes stale when the first is
    /// popped, but stays counted).
    mutating func dependenciesFinished(_ node: WorkNode) {
        guard node.slot.waitingIndex.load(ordering: .relaxed) >= 0 else { return }
        becameReady(node)
    }

    mutating func becameReady(_ node: WorkNode) {
        guard node.slot.member.load(ordering: .relaxed), node.slot.epoch.load(ordering: .relaxed) == epoch else { return }
        if !waitingNodes.isEmpty { unwait(node) }
        let index = node.slot.segment.load(ordering: .relaxed) - segmentBase
        if node.isBarrier {
            segments[index].barrierReady = true
        } else if index == 0 {
            push(node)
        } else {
            segments[index].held.append(Entry(node: node, generation: node.slot.generation.load(ordering: .relaxed)))
        }
    }

    /// Removes the node from the waiting list, if it is there.
    private mutating func unwait(_ node: WorkNode) {
        let index = node.slot.waitingIndex.exchange(-1, ordering: .relaxed)
        guard index >= 0, index < waitingNodes.count, waitingNodes[index] === node else { return }
        let last = waitingNodes.removeLast()
        if index < waitingNodes.count {
            waitingNodes[index] = last
            last.slot.waitingIndex.store(index, ordering: .relaxed)
        }
    }

    /// Lists `node` in the bucket of its level: last, or first for an item a claim gives back (see ``endClaim``).
    mutating func push(_ node: WorkNode, first: Bool = false) {
        let level = node.effectiveLevel.load(ordering: .relaxed)
        let generation = node.slot.generation.load(ordering: .relaxed)
        node.slot.level.store(level, ordering: .relaxed)
        let entry = Entry(node: node, generation: generation)
        if first { buckets[level].prepend(entry) } else { buckets[level].append(entry) }
        live += 1
        if level < speculativeBelow { speculativeLive += 1 }
    }

    /// Makes the node's bucket or held entry stale.
    mutating func unlist(_ node: WorkNode) {
        node.slot.generation.wrappingAdd(1, ordering: .relaxed)
        let level = node.slot.level.load(ordering: .relaxed)
        if level >= 0 {
            node.slot.level.store(-1, ordering: .relaxed)
            // Entries from before a cancel-all were detached with their buckets and no longer count as live.
            if node.slot.epoch.load(ordering: .relaxed) == epoch {
                live -= 1
                if level < speculativeBelow { speculativeLive -= 1 }
            }
        }
    }

    mutating func reprioritize(_ node: WorkNode) {
        let current = node.slot.level.load(ordering: .relaxed)
        let wanted = node.effectiveLevel.load(ordering: .relaxed)
        guard current >= 0, current != wanted, node.slot.epoch.load(ordering: .relaxed) == epoch,
            node.slot.member.load(ordering: .relaxed)
        else { return }
        unlist(node)
        push(node)
        compactIfNeeded(current)
    }

    /// Once the last listed node is taken, every entry left in a bucket is stale (a node moved to another level, or
    /// cancelled): drop them, so an idle queue does not keep finished nodes — and their results — alive until its next
    /// pop past them.
    private mutating func dropStaleEntries() {
        for level in buckets.indices where !buckets[level].isEmpty {
            buckets[level].removeAll { !$0.isListed(at: level) }
        }
    }

    private mutating func compactIfNeeded(_ level: Int) {
        let count = buckets[level].count
        guard count > 64, count > 2 * live else { return }
        buckets[level].removeAll { !$0.isListed(at: level) }
    }

    /// Accounts for a node that finished. `ran` is true when it held a running slot.
    mutating func finished(_ node: WorkNode, ran: Bool, sync: Bool) {
        if ran { releaseSlot(node, sync: sync) }
        account(node, ran: ran)
    }

    /// Gives back the running slot of a node that was popped and went stale before it started (it was cancelled,
    /// alone or by a cancel-all, between the pop and the start). A barrier that never ran lets the segments after it
    /// go on, as a cancelled barrier that was never popped does.
    mutating func unrun(_ node: WorkNode, sync: Bool) {
        releaseSlot(node, sync: sync)
        if node.isBarrier, barrierRunning {
            barrierRunning = false
            skipCancelledBarriers()
        }
    }

    /// Gives back the running slot of a node that was popped.
    private mutating func releaseSlot(_ node: WorkNode, sync: Bool) {
        running -= 1
        if sync { syncRunning -= 1 }
        if speculativeRunning > 0, node.slot.level.load(ordering: .relaxed) == Self.speculativeMark {
            node.slot.level.store(-1, ordering: .relaxed)
            speculativeRunning -= 1
        }
        untrack(node)
    }

    /// Takes the node out of the running list, if it is there.
    mutating func untrack(_ node: WorkNode) {
        let index = node.slot.runningIndex.exchange(-1, ordering: .relaxed)
        guard index >= 0, index < runningNodes.count, runningNodes[index] === node else { return }
        let last = runningNodes.removeLast()
        if index < runningNodes.count {
            runningNodes[index] = last
            last.slot.runningIndex.store(index, ordering: .relaxed)
        }
    }

    /// Puts a running synchronous node in the running list (it registered an `onCancel` handler).
    mutating func track(_ node: WorkNode) {
        guard node.slot.runningIndex.load(ordering: .relaxed) < 0 else { return }
        markRunning(node)
    }

    private mutating func markRunning(_ node: WorkNode) {
        node.slot.runningIndex.store(runningNodes.count, ordering: .relaxed)
        runningNodes.append(node)
    }

    /// Bookkeeping for a node that finished, if it was a member.
    private mutating func account(_ node: WorkNode, ran: Bool) {
        guard node.slot.member.exchange(false, ordering: .relaxed) else { return }
        if !waitingNodes.isEmpty { unwait(node) }
        unfinished -= 1
        completedCount &+= 1
        if !ran { unlist(node) }
        let index = node.slot.segment.load(ordering: .relaxed) - segmentBase
        if node.isBarrier {
            if ran {
                barrierRunning = false
                advanceSegment()
            } else if index >= 0 && index < segments.count {
                segments[index].barrierCancelled = true
            }
        } else if index >= 0 && index < segments.count {
            segments[index].unfinished -= 1
        }
        skipCancelledBarriers()
    }

    /// Moves past front segments that are empty and closed by a cancelled barrier.
    private mutating func skipCancelledBarriers() {
        while let front = segments.first, front.unfinished == 0, front.barrierCancelled, !barrierRunning,
            segments.count > 1
        {
            advanceSegment()
        }
    }

    /// Cancel-all, O(1) in the number of items: bumps the epoch (so nothing admitted before can start, become ready
    /// or be re-listed), detaches the buckets and barrier segments, and returns the members to sweep. Their nodes are
    /// finished by ``WorkQueue/sweep(_:)`` outside the lock; until then they count as unfinished and report
    /// themselves cancelled through the epoch.
    mutating func beginCancelAll() -> (nodes: [WorkNode], buckets: [Deque<Entry>]) {
        epoch &+= 1
        let detached = buckets
        buckets = [Deque<Entry>](repeating: [], count: WorkPriority.count)
        live = 0
        speculativeLive = 0
        var nodes = waitingNodes + runningNodes
        // Claimed items not started yet never start: the sweep finishes them with the rest.
        for batch in claims { nodes += batch.takeRest() }
        for node in waitingNodes { node.slot.waitingIndex.store(-1, ordering: .relaxed) }
        waitingNodes = []
        for index in segments.indices {
            nodes += segments[index].held.map(\.node)
            segments[index].held = []
            if let barrier = segments[index].barrier {
                nodes.append(barrier)
                segments[index].barrierCancelled = true
            }
            segments[index].barrierReady = false
        }
        return (nodes, detached)
    }

    /// The front barrier finished: the next segment may run, and its held items enter the buckets.
    private mutating func advanceSegment() {
        guard segments.count > 1 else { return }
        segments.removeFirst()
        segmentBase += 1
        let held = segments[0].held
        segments[0].held = []
        for entry in held where entry.isCurrent && entry.node.slot.epoch.load(ordering: .relaxed) == epoch {
            push(entry.node)
        }
    }

    // MARK: Running

    /// The next item to run, or nil when none may start now.
    mutating func pop() -> WorkNode? {
        guard !suspended, !barrierRunning, running < limit else { return nil }
        if barrierRunnable, let barrier = segments[0].barrier {
            guard running == 0 else { return nil }
            barrierRunning = true
            running += 1
            if barrier.isSync { syncRunning += 1 }
            segments[0].barrierReady = false
            markRunning(barrier)
            return barrier
        }
        guard live > 0 else { return nil }
        var level = WorkPriority.count - 1
        while level >= 0 {
            // Speculative levels wait while they hold all the slots they may (one comparison when there is no cap).
            if level < speculativeBelow, speculativeRunning >= speculativeLimit { return nil }
            while let entry = buckets[level].popFirst() {
                // Taken apart so the node moves out of the entry (no retain and release of it).
                let (node, generation) = entry.parts
                if generation == node.slot.generation.load(ordering: .relaxed),
                    node.slot.level.load(ordering: .relaxed) == level
                {
                    if level < speculativeBelow {
                        node.slot.level.store(Self.speculativeMark, ordering: .relaxed)
                        speculativeLive -= 1
                        speculativeRunning += 1
                    } else {
                        node.slot.level.store(-1, ordering: .relaxed)
                    }
                    live -= 1
                    if live == 0 { dropStaleEntries() }
                    running += 1
                    if node.isSync {
                        syncRunning += 1
                        if WorkEvents.isObserved { markRunning(node) }
                    } else {
                        markRunning(node)
                    }
                    return node
                }
            }
            level -= 1
        }
        return nil
    }

    // MARK: Claims

    /// After `first` was popped: claims up to ``maxClaim`` - 1 more synchronous items of its level, if clearly more
    /// are ready than the queue's other runners can take (ready / runners ≥ 2), so a queue with few ready items runs
    /// exactly as with one pop per item. The batch shares `first`'s running slot; nil when nothing was claimed.
    mutating func claim(after first: WorkNode) -> ClaimBatch? {
        guard !turnPerItem, first.isSync, !first.isBarrier else { return nil }
        let level = first.effectiveLevel.load(ordering: .relaxed)
        guard level >= speculativeBelow else { return nil }
        let wanted = min(Self.maxClaim, (live + 1) / max(1, workers)) - 1
        guard wanted > 0 else { return nil }
        var nodes: [WorkNode] = []
        nodes.reserveCapacity(wanted)
        while nodes.count < wanted, let entry = buckets[level].first {
            guard entry.isListed(at: level) else {
                buckets[level].removeFirst()
                continue
            }
            guard entry.node.isSync, !entry.node.isBarrier else { break }
            buckets[level].removeFirst()
            entry.node.slot.level.store(-1, ordering: .relaxed)
            live -= 1
            nodes.append(entry.node)
        }
        if live == 0 { dropStaleEntries() }
        guard !nodes.isEmpty else { return nil }
        // While events are observed, a popped synchronous item joins the running list so a cancel-all reports it at
        // once; the items of a batch learn of a cancel-all through the epoch, as unobserved ones do.
        untrack(first)
        claimCounts.claimed += nodes.count
        let batch = ClaimBatch(nodes: nodes, level: level)
        claims.append(batch)
        return batch
    }

    /// A claimed item the owner ran finished (its slot is the batch's, given back by ``endClaim(_:returning:)``).
    mutating func finishedClaimed(_ node: WorkNode) {
        untrack(node)
        account(node, ran: true)
    }

    /// The owner ends its batch: unstarted items (and `returned`, taken but not started) go back to the front of
    /// their buckets in order, and the batch's running slot is given back. Returns the returned item if a cancel-all
    /// came after it was taken (the caller sweeps it: no list of the cancel-all holds it).
    mutating func endClaim(_ batch: ClaimBatch, returning returned: WorkNode?) -> WorkNode? {
        var back = Array(batch.takeRest())
        var stale: WorkNode?
        if let returned {
            if returned.slot.epoch.load(ordering: .relaxed) == epoch {
                back.insert(returned, at: 0)
            } else {
                stale = returned
            }
        }
        for node in back.reversed() where node.slot.member.load(ordering: .relaxed) {
            claimCounts.givenBack += 1
            push(node, first: true)
        }
        running -= 1
        syncRunning -= 1
        if let index = claims.firstIndex(where: { $0 === batch }) { claims.remove(at: index) }
        return stale
    }

    /// Takes an unstarted item from another runner's batch, with a running slot of its own, when none is ready in
    /// the buckets (its owner may be blocked in a long body).
    mutating func steal() -> WorkNode? {
        guard !claims.isEmpty, !suspended, !barrierRunning, running < limit else { return nil }
        for batch in claims {
            guard let node = batch.take() else { continue }
            claimCounts.stolen += 1
            running += 1
            syncRunning += 1
            return node
        }
        return nil
    }

    /// Claimed items no one has taken yet.
    var pendingClaims: Int {
        claims.isEmpty ? 0 : claims.reduce(0) { $0 + $1.remaining }
    }

    /// The most urgent level with entries in the buckets (stale entries included), -1 when all are empty.
    var topBucketLevel: Int {
        var level = WorkPriority.count - 1
        while level >= 0, buckets[level].isEmpty { level -= 1 }
        return level
    }

    /// Whether ``pop()`` would return an item now.
    var canPop: Bool {
        guard !suspended, !barrierRunning, running < limit else { return false }
        return runnableLive > 0 || barrierRunnable
    }

    /// Live entries that may start now: all of them, but speculative ones beyond the slots they may still take.
    var runnableLive: Int {
        guard speculativeLive > 0 else { return live }
        return live - speculativeLive + min(speculativeLive, max(0, speculativeLimit - speculativeRunning))
    }

    /// Caps the items running below `level` at `limit` (`level` 0: no cap). Recounts the live speculative entries (a
    /// rare call: O(ready items)).
    mutating func setSpeculative(below level: Int, limit: Int) {
        speculativeBelow = level
        speculativeLimit = limit
        speculativeLive = 0
        for index in 0..<min(level, buckets.count) {
            for entry in buckets[index] where isLive(entry, level: index) { speculativeLive += 1 }
        }
    }

    /// Whether a bucket entry still stands for a ready member of this epoch.
    func isLive(_ entry: Entry, level: Int) -> Bool {
        entry.isListed(at: level) && entry.node.slot.epoch.load(ordering: .relaxed) == epoch
    }

    var barrierRunnable: Bool {
        guard let front = segments.first else { return false }
        return front.unfinished == 0 && front.barrierReady && !front.barrierCancelled && front.barrier != nil
    }

    /// How many more runners to ask the executor for.
    mutating func requestRunners(into action: inout QueueAction) {
        guard !suspended, !barrierRunning else { return }
        let ready = runnableLive + (barrierRunnable ? 1 : 0) + pendingClaims
        let wanted = turnPerItem ? ready : min(ready, limit - running)
        let free = workers - syncRunning
        if wanted > free {
            action.runners += wanted - free
            workers += wanted - free
            var level = max(topBucketLevel, action.runnerPriority.rawValue)
            if barrierRunnable { level = max(level, WorkPriority.normal.rawValue) }
            action.runnerPriority = WorkPriority(rawValue: level)!
        }
    }

    var isIdle: Bool { unfinished == 0 && sweeping == 0 }

    mutating func collectIdle(into action: inout QueueAction) {
        guard isIdle else { return }
        action.idleWaiters += idleWaiters
        idleWaiters = []
    }
}

/// What the claims of a queue did (see ``ClaimBatch``).
package struct ClaimCounts: Sendable, Equatable {
    /// Items claimed beyond the one popped with them.
    package var claimed = 0
    /// Claimed items another runner took.
    package var stolen = 0
    /// Claimed items given back unstarted (a more urgent item came, the queue was suspended).
    package var givenBack = 0
}
