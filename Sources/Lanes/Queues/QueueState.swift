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

/// What a queue must do after releasing its lock.
struct QueueAction {
    var runners = 0
    /// The most urgent ready level when runners were asked for (a hint for the executor's choice of thread level).
    var runnerPriority = WorkPriority.background
    /// Waiters on an idle queue to wake (see `WorkQueue.whenIdle`).
    var idleWaiters: [@Sendable () -> Void] = []
}

/// The scheduling state of one queue, behind its lock. Never scans blocked items: a node enters a bucket only when it
/// is ready, and every operation is O(1) amortised (stale bucket entries are skipped once when popped).
///
/// Three sub-states live in files of their own, each with its invariant checks: ``BarrierSegments`` (what waits
/// behind a barrier), ``SpeculativeCap`` (how many low-priority items may run) and ``RunnerBatches`` (items runners
/// took in a batch). This file admits items and lists them; `QueueState+Running.swift` pops and accounts for them.
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
    var completedCount: UInt64 = 0
    /// Cancel-all sweeps still finishing detached items; the queue is not idle until they are done.
    var sweeping = 0
    var barriers = BarrierSegments()
    var speculative = SpeculativeCap()
    var batches = RunnerBatches()

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
        let index = barriers.admit(node)
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
        let index = barriers.index(of: node)
        if node.isBarrier {
            barriers.segments[index].barrierReady = true
        } else if index == 0 {
            push(node)
        } else {
            barriers.hold(node, at: index)
        }
    }

    /// Removes the node from the waiting list, if it is there.
    mutating func unwait(_ node: WorkNode) {
        let index = node.slot.waitingIndex.exchange(-1, ordering: .relaxed)
        guard index >= 0, index < waitingNodes.count, waitingNodes[index] === node else { return }
        let last = waitingNodes.removeLast()
        if index < waitingNodes.count {
            waitingNodes[index] = last
            last.slot.waitingIndex.store(index, ordering: .relaxed)
        }
    }

    /// Lists `node` in the bucket of its level: last, or first for an item a batch gives back (see ``endBatch``).
    mutating func push(_ node: WorkNode, first: Bool = false) {
        let level = node.effectiveLevel.load(ordering: .relaxed)
        let generation = node.slot.generation.load(ordering: .relaxed)
        node.slot.level.store(level, ordering: .relaxed)
        let entry = Entry(node: node, generation: generation)
        if first { buckets[level].prepend(entry) } else { buckets[level].append(entry) }
        live += 1
        if speculative.covers(level) { speculative.live += 1 }
    }

    /// Lists the held items a barrier's end released, those still current and of this epoch.
    mutating func pushReleased(_ entries: [Entry]) {
        for entry in entries where entry.isCurrent && entry.node.slot.epoch.load(ordering: .relaxed) == epoch {
            push(entry.node)
        }
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
                if speculative.covers(level) { speculative.live -= 1 }
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
    mutating func dropStaleEntries() {
        for level in buckets.indices where !buckets[level].isEmpty {
            buckets[level].removeAll { !$0.isListed(at: level) }
        }
    }

    private mutating func compactIfNeeded(_ level: Int) {
        let count = buckets[level].count
        guard count > 64, count > 2 * live else { return }
        buckets[level].removeAll { !$0.isListed(at: level) }
    }

    /// Caps the items running below `level` at `limit` (`level` 0: no cap).
    mutating func setSpeculative(below level: Int, limit: Int) {
        let epoch = self.epoch
        speculative.set(below: level, limit: limit, buckets: buckets) { entry, level in
            entry.isListed(at: level) && entry.node.slot.epoch.load(ordering: .relaxed) == epoch
        }
    }

    /// Whether a bucket entry still stands for a ready member of this epoch.
    func isLive(_ entry: Entry, level: Int) -> Bool {
        entry.isListed(at: level) && entry.node.slot.epoch.load(ordering: .relaxed) == epoch
    }

    /// The most urgent level with entries in the buckets (stale entries included), -1 when all are empty.
    var topBucketLevel: Int {
        var level = WorkPriority.count - 1
        while level >= 0, buckets[level].isEmpty { level -= 1 }
        return level
    }
}
