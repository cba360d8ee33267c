import Synchronization
extension QueueState {
    /// After `first` was popped: takes up to ``RunnerBatches/maxSize`` - 1 more synchronous items of its level in a
    /// batch, if clearly more are ready than the queue's other runners can take (ready / runners ≥ 2), so a queue
    /// with few ready items runs exactly as with one pop per item. The batch shares `first`'s running slot; nil when
    /// nothing was batched.
    mutating func takeBatch(after first: WorkNode) -> RunnerBatch? {
        guard !turnPerItem, first.isSync, !first.isBarrier else { return nil }
        let level = first.effectiveLevel.load(ordering: .relaxed)
        guard !speculative.covers(level) else { return nil }
        let wanted = min(RunnerBatches.maxSize, (live + 1) / max(1, workers)) - 1
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
        batches.counts.batched += nodes.count
        let batch = RunnerBatch(nodes: nodes, level: level)
        batches.open.append(batch)
        return batch
    }

    /// The owner ends its batch: the items it ran (`done`, their slot the batch's) are accounted for, the unstarted
    /// ones (and `returned`, taken but not started) go back to the front of their buckets in order, and the batch's
    /// running slot is given back. Returns the returned item if a cancel-all came after it was taken (the caller
    /// sweeps it: no list of the cancel-all holds it).
    mutating func endBatch(_ batch: RunnerBatch, done: [WorkNode], returning returned: WorkNode?) -> WorkNode? {
        for node in done {
            untrack(node)
            account(node, ran: true)
        }
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
            batches.counts.givenBack += 1
            push(node, first: true)
        }
        running -= 1
        syncRunning -= 1
        batches.remove(batch)
        return stale
    }

    /// Takes an unstarted item from another runner's batch, with a running slot of its own, when none is ready in
    /// the buckets (its owner may be blocked in a long body).
    mutating func steal() -> WorkNode? {
        guard !batches.open.isEmpty, !suspended, !barriers.running, running < limit,
            let node = batches.steal()
        else { return nil }
        running += 1
        syncRunning += 1
        return node
    }
}
