import DequeModule
import Synchronization

extension WorkQueue {
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
            if InternalChecks.isEnabled { _checkInvariants(state, mirrors: false) }
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
}

/// A detached inbox chain on its way to the sweep. The nodes it points to are retained by the chain itself and are
/// touched by exactly one thread (the sweep) after the hand-off, so sending the raw pointer is safe.
struct UncheckedChain: @unchecked Sendable {
    let head: Unmanaged<WorkNode>?
}
