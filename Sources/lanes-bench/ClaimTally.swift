import Lanes
import Synchronization

/// The batch claims (see `WorkQueue._claimCounts`) of the Lanes runs since the last reset, for the `scaling` rows:
/// items claimed beyond the popped one, stolen from another runner's batch, and given back unstarted.
enum ClaimTally {
    private static let total = Mutex((claimed: 0, stolen: 0, givenBack: 0))

    static func reset() { total.withLock { $0 = (0, 0, 0) } }

    /// Adds what `queue`'s claims did (call after the queue went idle).
    static func add(_ queue: WorkQueue) {
        let counts = queue._claimCounts
        total.withLock {
            $0.claimed += counts.claimed
            $0.stolen += counts.stolen
            $0.givenBack += counts.givenBack
        }
    }

    /// Adds the counts per item of `runs` runs of `items` items each.
    static func add(to row: inout Row, runs: Int, items: Int) {
        let counts = total.withLock { $0 }
        let per = Double(max(1, runs) * max(1, items))
        row.count("lanes_claimed_per_item", Double(counts.claimed) / per)
        row.count("lanes_stolen_per_item", Double(counts.stolen) / per)
        row.count("lanes_given_back_per_item", Double(counts.givenBack) / per)
    }
}
