import Synchronization

/// Ready synchronous items a runner took from its queue's top bucket in one acquisition of the queue lock, to run one
/// after another without it (see `WorkQueue.drain`). A runner takes a batch only when it found the lock held (with a
/// free lock one acquisition per item costs less than a batch's upkeep). The batch stays registered in the queue's
/// state (``RunnerBatches``) until its owner ends it, so nothing can be stranded behind a body that blocks: any runner
/// that finds the buckets empty steals items from it, a cancel-all takes every unstarted one, and the owner gives the
/// unstarted ones back when a more urgent item arrives or the queue is suspended. Each item is taken exactly once,
/// by the atomic index, whoever takes it.
///
/// The batch holds one running slot of the queue (its owner runs one body at a time), taken with the item popped
/// before it and given back when the owner ends it; a stolen item takes a slot of its own.
final class RunnerBatch: Sendable {
    /// The batch's items, in the order they were ready.
    let nodes: [WorkNode]
    /// The priority level they were taken at.
    let level: Int
    /// The next untaken index; at or past `nodes.count` when every item was taken.
    private let next = Atomic<Int>(0)

    init(nodes: [WorkNode], level: Int) {
        self.nodes = nodes
        self.level = level
    }

    /// Takes the next item, or nil when none is left.
    func take() -> WorkNode? {
        let index = next.add(1, ordering: .acquiringAndReleasing).oldValue
        return index < nodes.count ? nodes[index] : nil
    }

    /// Takes every item not taken yet.
    func takeRest() -> ArraySlice<WorkNode> {
        let index = next.exchange(nodes.count, ordering: .acquiringAndReleasing)
        return index < nodes.count ? nodes[index...] : []
    }

    /// Items not taken yet (a snapshot).
    var remaining: Int { max(0, nodes.count - next.load(ordering: .relaxed)) }

    /// The items not taken yet (a snapshot, for the invariant checks).
    var untaken: ArraySlice<WorkNode> {
        let index = min(nodes.count, next.load(ordering: .acquiring))
        return nodes[index...]
    }
}

/// What the batches of a queue did (see ``RunnerBatch``).
package struct BatchCounts: Sendable, Equatable {
    /// Items taken in a batch beyond the one popped with them.
    package var batched = 0
    /// Batched items another runner took.
    package var stolen = 0
    /// Batched items given back unstarted (a more urgent item came, the queue was suspended).
    package var givenBack = 0
}
