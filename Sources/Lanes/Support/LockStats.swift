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

    private static let queueCount = Atomic<Int>(0)
    private static let queueNanoseconds = Atomic<Int>(0)
    private static let nodeCount = Atomic<Int>(0)
    private static let nodeNanoseconds = Atomic<Int>(0)
    private static let otherCount = Atomic<Int>(0)
    private static let otherNanoseconds = Atomic<Int>(0)

    package static func snapshot() -> Snapshot {
        Snapshot(
            queue: Waits(count: queueCount.load(ordering: .relaxed), waitNanoseconds: queueNanoseconds.load(ordering: .relaxed)),
            node: Waits(count: nodeCount.load(ordering: .relaxed), waitNanoseconds: nodeNanoseconds.load(ordering: .relaxed)),
            other: Waits(count: otherCount.load(ordering: .relaxed), waitNanoseconds: otherNanoseconds.load(ordering: .relaxed)))
    }

    package static func reset() {
        queueCount.store(0, ordering: .relaxed)
        queueNanoseconds.store(0, ordering: .relaxed)
        nodeCount.store(0, ordering: .relaxed)
        nodeNanoseconds.store(0, ordering: .relaxed)
        otherCount.store(0, ordering: .relaxed)
        otherNanoseconds.store(0, ordering: .relaxed)
    }

    /// Records one wait of `nanoseconds` for a lock guarding a `Value`.
    static func record<Value>(_: Value.Type, nanoseconds: Int) {
        if Value.self == QueueState.self {
            queueCount.add(1, ordering: .relaxed)
            queueNanoseconds.add(nanoseconds, ordering: .relaxed)
        } else if Value.self == NodeState.self {
            nodeCount.add(1, ordering: .relaxed)
            nodeNanoseconds.add(nanoseconds, ordering: .relaxed)
        } else {
            otherCount.add(1, ordering: .relaxed)
            otherNanoseconds.add(nanoseconds, ordering: .relaxed)
        }
    }

    /// Takes `mutex` at once if it is free; otherwise waits for it and records how long.
    @usableFromInline
    static func withLock<Value, Result: Sendable>(
        _ mutex: borrowing Mutex<Value>, _ body: (inout Value) throws -> Result
    ) rethrows -> Result {
        if let result = try mutex.withLockIfAvailable({ value in try body(&value) }) { return result }
        let start = ContinuousClock.now
        return try mutex.withLock { value in
            let waited = ContinuousClock.now - start
            record(Value.self, nanoseconds: Int(waited.components.seconds) * 1_000_000_000
                + Int(waited.components.attoseconds / 1_000_000_000))
            return try body(&value)
        }
    }
}
#endif
