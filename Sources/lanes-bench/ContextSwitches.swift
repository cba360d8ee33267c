import Lanes
import Synchronization

/// The process's context switches (voluntary and involuntary, all threads, from `getrusage`), counted around each
/// side of a `scaling` row: `lanes_csw_per_item` and `dispatch_csw_per_item` show what oversubscription costs.
enum ContextSwitches {
    private static let lastLanes = Mutex<Double?>(nil)

    static func now() -> Int { ResourceUsage.now().contextSwitches }

    /// Records the Lanes side's switches per item since `start` (over `runs` runs of `items`).
    static func noteLanes(since start: Int, runs: Int, items: Int) {
        let perItem = Double(now() - start) / Double(max(1, runs * items))
        lastLanes.withLock { $0 = perItem }
    }

    /// Adds both sides' switches per item to `row`: the Lanes side's last note, the Dispatch side's since `start`.
    static func add(to row: inout Row, dispatchSince start: Int, runs: Int, items: Int) {
        row.count("dispatch_csw_per_item", Double(now() - start) / Double(max(1, runs * items)))
        if let lanes = lastLanes.withLock({ $0 }) { row.count("lanes_csw_per_item", lanes) }
    }
}
