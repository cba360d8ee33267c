import Lanes

/// The lock counters of a bench build (`-Xswiftc -DLANES_LOCK_STATS`, see `LockStats`), per run; a plain build has
/// none and says so.
struct LockWaits {
    #if LANES_LOCK_STATS
    static let available = true
    var snapshot: LockStats.Snapshot
    #else
    static let available = false
    #endif
    var runs: Int

    static func reset() {
        #if LANES_LOCK_STATS
        LockStats.reset()
        #endif
    }

    static func sinceReset(runs: Int) -> LockWaits {
        #if LANES_LOCK_STATS
        LockWaits(snapshot: LockStats.snapshot(), runs: max(1, runs))
        #else
        LockWaits(runs: max(1, runs))
        #endif
    }

    /// Adds, per run, the waits for the queue and node locks and the share of the run's thread time they took:
    /// `seconds` × (`threads` runners + the producer). Above 100 % more threads than that waited at once (a pool
    /// thread handing an item over, a runner lingering for more), or lock holders were preempted while others waited.
    func add(to row: inout Row, seconds: Double, threads: Int) {
        #if LANES_LOCK_STATS
        let budget = max(seconds, 1e-9) * Double(threads + 1) * 1e9
        for (name, waits) in [("queue", snapshot.queue), ("node", snapshot.node), ("other", snapshot.other)] {
            let nanoseconds = Double(waits.waitNanoseconds) / Double(runs)
            row.count("\(name)_lock_waits", (Double(waits.count) / Double(runs)).rounded())
            row.count("\(name)_lock_wait_ms", nanoseconds / 1e6)
            row.count("\(name)_lock_wait_pct", nanoseconds / budget * 100)
        }
        #endif
    }
}
