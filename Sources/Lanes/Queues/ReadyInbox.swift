import Synchronization

/// A lock-free multi-producer inbox of enqueued nodes: those ready when enqueued, and those waiting for dependencies
/// (marked `QueueSlot.waitingInInbox`). Producers push without taking the queue's lock; whoever next holds the lock
/// admits the whole inbox in FIFO order (into the buckets, or the waiting list). This keeps a thread that adds many
/// items from contending with the threads that run them.
///
/// The same stack holds a queue's retired nodes (finished, out of every list, their `inboxNext` free again: see
/// `WorkQueue+Retired.swift`).
///
/// It is a Treiber stack that is only ever emptied whole (`exchange(nil)`), so it has no ABA problem. Each node in it
/// is retained by the inbox until taken.
struct ReadyInbox: ~Copyable, Sendable {
    private let head = Atomic<Unmanaged<WorkNode>?>(nil)

    /// Pushes `node`, retained; returns whether the inbox was empty before.
    @discardableResult
    func push(_ node: WorkNode) -> Bool {
        push(retained: Unmanaged.passRetained(node))
    }

    /// Pushes a node whose reference the caller retained for the inbox; returns whether the inbox was empty before.
    func push(retained entry: Unmanaged<WorkNode>) -> Bool {
        var current = head.load(ordering: .relaxed)
        while true {
            entry._withUnsafeGuaranteedRef { $0.inboxNext.store(current, ordering: .relaxed) }
            let (exchanged, original) = head.compareExchange(
                expected: current, desired: entry, successOrdering: .sequentiallyConsistent,
                failureOrdering: .relaxed)
            if exchanged { return current == nil }
            current = original
        }
    }

    var isEmpty: Bool { head.load(ordering: .sequentiallyConsistent) == nil }

    /// Takes everything without walking it (cancel-all hands the chain to its background sweep).
    func detach() -> Unmanaged<WorkNode>? {
        head.exchange(nil, ordering: .acquiring)
    }

    /// Turns a detached chain into nodes, oldest first, releasing the inbox's references.
    static func nodes(from chain: Unmanaged<WorkNode>?) -> [WorkNode] {
        var nodes: [WorkNode] = []
        forEach(in: chain) { nodes.append($0) }
        return nodes
    }

    /// Takes everything and hands each node to `body`, oldest first, without building an array.
    func takeAll(_ body: (WorkNode) -> Void) {
        Self.forEach(in: detach(), body)
    }

    /// Hands each node of a detached chain to `body`, oldest first, releasing the inbox's references: the chain is
    /// reversed in place through the nodes' `inboxNext` links, then walked.
    private static func forEach(in chain: Unmanaged<WorkNode>?, _ body: (WorkNode) -> Void) {
        guard var cursor = chain else { return }
        var reversed: Unmanaged<WorkNode>? = nil
        while true {
            let next = cursor._withUnsafeGuaranteedRef { $0.inboxNext.load(ordering: .relaxed) }
            cursor._withUnsafeGuaranteedRef { $0.inboxNext.store(reversed, ordering: .relaxed) }
            reversed = cursor
            guard let next else { break }
            cursor = next
        }
        while let entry = reversed {
            let node = entry.takeRetainedValue()
            reversed = node.inboxNext.load(ordering: .relaxed)
            node.inboxNext.store(nil, ordering: .relaxed)
            body(node)
        }
    }
}
