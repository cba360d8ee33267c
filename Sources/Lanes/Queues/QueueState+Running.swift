import Synchronization
import DequeModule

extension QueueState {
    // MARK: Popping

    /// The next item to run, or nil when none may start now: the front barrier if it may start, else the oldest
    /// live entry of the most urgent level (speculative levels only while the cap has room).
    mutating func pop() -> WorkNode? {
        guard !suspended, !barriers.running, running < limit else { return nil }
        if barriers.frontRunnable {
            guard running == 0, let barrier = barriers.startFront() else { return nil }
            running += 1
            if barrier.isSync { syncRunning += 1 }
            markRunning(barrier)
            return barrier
        }
        guard live > 0 else { return nil }
        var level = WorkPriority.count - 1
        while level >= 0 {
            // Speculative levels wait while they hold all the slots they may (one comparison when there is no cap).
            if speculative.covers(level), speculative.isFull { return nil }
            while let entry = buckets[level].popFirst() {
                // Taken apart so the node moves out of the entry (no retain and release of it).
                let (node, generation) = entry.parts
                if generation == node.slot.generation.load(ordering: .relaxed),
                    node.slot.level.load(ordering: .relaxed) == level
                {
                    popped(node, level: level)
                    return node
                }
            }
            level -= 1
        }
        return nil
    }

    /// Gives a live entry's node, just taken from the bucket of `level`, a running slot.
    private mutating func popped(_ node: WorkNode, level: Int) {
        if speculative.covers(level) {
            node.slot.level.store(SpeculativeCap.mark, ordering: .relaxed)
            speculative.live -= 1
            speculative.running += 1
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
    }

    /// Whether ``pop()`` would return an item now.
    var canPop: Bool {
        guard !suspended, !barriers.running, running < limit else { return false }
        return runnableLive > 0 || barriers.frontRunnable
    }

    /// Live entries that may start now: all of them, but speculative ones beyond the slots they may still take.
    var runnableLive: Int { speculative.runnable(of: live) }

    // MARK: Finishing

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
        pushReleased(barriers.unrun(node))
    }

    /// Gives back the running slot of a node that was popped.
    private mutating func releaseSlot(_ node: WorkNode, sync: Bool) {
        running -= 1
        if sync { syncRunning -= 1 }
        speculative.release(node)
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
    mutating func account(_ node: WorkNode, ran: Bool) {
        guard node.slot.member.exchange(false, ordering: .relaxed) else { return }
        if !waitingNodes.isEmpty { unwait(node) }
        unfinished -= 1
        completedCount &+= 1
        if !ran { unlist(node) }
        pushReleased(barriers.finished(node, ran: ran))
    }

    // MARK: Cancel-all

    /// Cancel-all, O(1) in the number of items: bumps the epoch (so nothing admitted before can start, become ready
    /// or be re-listed), detaches the buckets and barrier segments, and returns the members to sweep. Their nodes are
    /// finished by ``WorkQueue/sweep(_:)`` outside the lock; until then they count as unfinished and report
    /// themselves cancelled through the epoch.
    mutating func beginCancelAll() -> (nodes: [WorkNode], buckets: [Deque<Entry>]) {
        epoch &+= 1
        let detached = buckets
        buckets = [Deque<Entry>](repeating: [], count: WorkPriority.count)
        live = 0
        speculative.live = 0
        var nodes = waitingNodes + runningNodes
        // Batched items not started yet never start: the sweep finishes them with the rest.
        nodes += batches.takeAllUntaken()
        for node in waitingNodes { node.slot.waitingIndex.store(-1, ordering: .relaxed) }
        waitingNodes = []
        nodes += barriers.detachAll()
        return (nodes, detached)
    }

    // MARK: Runners

    /// How many more runners to ask the executor for: one per item that may start now (every ready item for a
    /// turn-per-item queue), less the runners already attached and not blocked in a body.
    mutating func requestRunners(into action: inout QueueAction) {
        guard !suspended, !barriers.running else { return }
        let ready = runnableLive + (barriers.frontRunnable ? 1 : 0) + batches.pending
        let wanted = turnPerItem ? ready : min(ready, limit - running)
        let free = workers - syncRunning
        if wanted > free {
            action.runners += wanted - free
            workers += wanted - free
            var level = max(topBucketLevel, action.runnerPriority.rawValue)
            if barriers.frontRunnable { level = max(level, WorkPriority.normal.rawValue) }
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
