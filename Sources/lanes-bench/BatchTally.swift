import Lanes
import Synchronization

/// The runners' batches (see `WorkQueue._batchCounts`) of the Lanes runs since the last reset, for the `scaling` rows:
/// items batched beyond the popped one, stolen from another runner's batch, and given back unstarted.
enum BatchTally {
    private static let total = Mutex((batched: 0, stolen: 0, givenBack: 0))

    static func reset() { total.withLock { $0 = (0, 0, 0) } }

    /// Adds what `queue`'s batches did (call after the queue went idle).
    static func add(_ queue: WorkQueue) {
        let counts = queue._batchCounts
        total.withLock {
            $0.batched += counts.batched
            $0.stolen += counts.stolen
            $0.givenBack += counts.givenBack
        }
    }

    /// Adds the counts per item of `runs` runs of `items` items each.
    static func add(to row: inout Row, runs: Int, items: Int) {
        let counts = total.withLock { $0 }
        let per = Double(max(1, runs) * max(1, items))
        row.count("lanes_batched_per_item", Double(counts.batched) / per)
        row.count("lanes_stolen_per_item", Double(counts.stolen) / per)
        row.count("lanes_given_back_per_item", Double(counts.givenBack) / per)
    }
}
