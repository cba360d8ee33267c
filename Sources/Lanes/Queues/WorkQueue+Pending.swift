import DequeModule
import Synchronization

extension WorkQueue {
    /// The queue's items that have not started: ready ones first, in the order they would start (most urgent
    /// priority first, first come first served within one), then those held behind a barrier, then those waiting
    /// for dependencies (OperationQueue's `operations`, less the running ones). A snapshot: items may start, finish
    /// or be cancelled as soon as it is taken. Each is a `WorkItem<any Sendable>` on the same item as your typed
    /// handle (the same ``WorkItem/id``): cancel it, re-prioritise it or await it. O(items in the queue).
    ///
    /// ```swift
    /// let downloads = WorkQueue("downloads", maxConcurrency: 2)
    /// for item in downloads.pendingItems where item.priority < .normal {
    ///     item.cancel()   // the user left: drop the prefetches that have not started
    /// }
    /// ```
    public var pendingItems: [WorkItem<any Sendable>] {
        locked { $0.pendingNodes() }.map { WorkItem(node: $0) }
    }
}

extension QueueState {
    /// The admitted, unstarted members (see ``WorkQueue/pendingItems``).
    func pendingNodes() -> [WorkNode] {
        var nodes: [WorkNode] = []
        for level in buckets.indices.reversed() {
            for entry in buckets[level] where isLive(entry, level: level) { nodes.append(entry.node) }
        }
        for segment in barriers.segments {
            for entry in segment.held where entry.isCurrent && entry.node.slot.member.load(ordering: .relaxed) {
                nodes.append(entry.node)
            }
            if let barrier = segment.barrier, !segment.barrierCancelled,
                barrier.slot.runningIndex.load(ordering: .relaxed) < 0, barrier.slot.member.load(ordering: .relaxed)
            {
                nodes.append(barrier)
            }
        }
        nodes += waitingNodes
        return nodes
    }
}
