import Synchronization
/// The batches runners took and have not ended, one sub-state of ``QueueState`` (see ``RunnerBatch``).
struct RunnerBatches {
    /// Batches not ended by their owners.
    var open: [RunnerBatch] = []
    /// Items batched beyond the one popped, items stolen from a batch, items given back: for tests and benchmarks.
    var counts = BatchCounts()
    /// Whether runners take batches when the queue lock was free too (tests); otherwise only when it was held.
    var whenUncontended = false
    /// At most this many items per batch (1: no batches). 64 rather than 8: on 8 threads over 2 cores the cost of an
    /// item follows the contended acquisitions per item, which 64 cuts about 7× against 8 (see BENCHMARKS.md,
    /// its section on batches); a queue with few ready items batches fewer anyway (ready / runners).
    static let maxSize = 64

    /// Batched items no one has taken yet.
    var pending: Int {
        open.isEmpty ? 0 : open.reduce(0) { $0 + $1.remaining }
    }

    mutating func remove(_ batch: RunnerBatch) {
        if let index = open.firstIndex(where: { $0 === batch }) { open.remove(at: index) }
    }

    /// Takes an untaken item from any batch (a thief's), or nil.
    mutating func steal() -> WorkNode? {
        for batch in open {
            guard let node = batch.take() else { continue }
            counts.stolen += 1
            return node
        }
        return nil
    }

    /// Cancel-all: every untaken item (they never start; the sweep finishes them).
    func takeAllUntaken() -> [WorkNode] {
        var nodes: [WorkNode] = []
        for batch in open { nodes += batch.takeRest() }
        return nodes
    }

    /// Checks the batches' books: each holds a running slot of a synchronous item, and an untaken item is out of every
    /// bucket and list, at the batch's level or below the top.
    func _checkInvariants(syncRunning: Int, fullScan: Bool, _ require: (Bool, @autoclosure () -> String) -> Void) {
        require(open.count <= syncRunning, "open batches \(open.count) <= synchronous running \(syncRunning)")
        require(counts.batched >= 0 && counts.stolen >= 0 && counts.givenBack >= 0, "batch counts >= 0")
        require(counts.stolen + counts.givenBack <= counts.batched,
                "stolen \(counts.stolen) + given back \(counts.givenBack) <= batched \(counts.batched)")
        guard fullScan else { return }
        for batch in open {
            require(batch.nodes.count < Self.maxSize, "a batch of \(batch.nodes.count) < \(Self.maxSize) items")
            require(Set(batch.nodes.map(ObjectIdentifier.init)).count == batch.nodes.count, "a batch lists an item once")
            for node in batch.untaken {
                require(node.isSync && !node.isBarrier, "batched node \(node.label) is a synchronous non-barrier")
                require(node.slot.level.load(ordering: .relaxed) < 0, "batched node \(node.label) has no ready entry")
                require(node.slot.waitingIndex.load(ordering: .relaxed) < 0, "batched node \(node.label) is not waiting")
                require(node.slot.runningIndex.load(ordering: .relaxed) < 0, "batched node \(node.label) is not running")
            }
        }
    }
}
