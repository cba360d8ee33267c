#if LANES_LOCK_STATS
import Synchronization

/// Bench builds only (`swift build -Xswiftc -DLANES_LOCK_STATS`): how often Lanes' locks were found taken and how long
/// the threads that found them taken waited, for queue locks, node locks and every other lock. Each acquisition
/// first tries the lock; one that gets it is not counted, so only waits touch these shared counters (and read the
/// clock). A plain build compiles none of this: `Lock.withLock` is the bare mutex.
///
/// ```swift
/// LockStats.reset()
/// // ... run the scenario ...
/// let waited = LockStats.snapshot().queue.waitNanoseconds
/// ```
@usableFromInline package enum LockStats {
    /// One kind of lock's waits.
    package struct Waits: Sendable {
        /// Acquisitions that found the lock taken.
        package var count = 0
        /// Nanoseconds those acquisitions spent waiting, all threads together.
        package var waitNanoseconds = 0
    }

    /// Each kind of lock's waits since the last reset.
    package struct Snapshot: Sendable {
        package var queue = Waits()
        package var node = Waits()
        package var other = Waits()
    }

    /// One kind of lock's counters.
    private final class Counters: Sendable {
        let count = Atomic<Int>(0)
        let nanoseconds = Atomic<Int>(0)

        var waits: Waits { Waits(count: count.load(ordering: .relaxed), waitNanoseconds: nanoseconds.load(ordering: .relaxed)) }

        func add(_ waited: Int) {
            count.add(1, ordering: .relaxed)
            nanoseconds.add(waited, ordering: .relaxed)
        }

        func reset() {
            count.store(0, ordering: .relaxed)
            nanoseconds.store(0, ordering: .relaxed)
        }
    }

    private static let queue = Counters(), node = Counters(), other = Counters()

    package static func snapshot() -> Snapshot { Snapshot(queue: queue.waits, node: node.waits, other: other.waits) }

    package static func reset() {
        for counters in [queue, node, other] { counters.reset() }
    }

    /// The counters of a lock guarding a `Value`.
    private static func counters<Value>(_: Value.Type) -> Counters {
        Value.self == QueueState.self ? queue : Value.self == NodeState.self ? node : other
    }

    /// Takes `mutex` at once if it is free; otherwise waits for it and records how long.
    @usableFromInline
    static func withLock<Value, Result: Sendable>(
        _ mutex: borrowing Mutex<Value>, _ body: (inout Value) throws -> Result
    ) rethrows -> Result {
        if let result = try mutex.withLockIfAvailable({ value in try body(&value) }) { return result }
        let start = ContinuousClock.now
        return try mutex.withLock { value in
            counters(Value.self).add(Int(clamping: (ContinuousClock.now - start).laneNanoseconds))
            return try body(&value)
        }
    }
}
#endif
