import Dispatch
import Lanes
import Synchronization

/// A fixed table of atomic counters, `fields` per item: shared by the stress driver, the runners' hooks and the
/// bodies without a lock (a lock would order the very threads the stress test wants to race).
final class AtomicTable: @unchecked Sendable {
    // @unchecked Sendable: the storage is allocated once in `init`, never moves or grows, and every element is an
    // `Atomic`, read and written only through its atomic operations; `deinit` runs when no one else holds it.
    private let storage: UnsafeMutablePointer<Atomic<Int>>
    let rows: Int
    let fields: Int

    init(rows: Int, fields: Int, initial: Int = 0) {
        self.rows = rows
        self.fields = fields
        storage = .allocate(capacity: rows * fields)
        for index in 0..<(rows * fields) { (storage + index).initialize(to: Atomic(initial)) }
    }

    deinit {
        storage.deinitialize(count: rows * fields)
        storage.deallocate()
    }

    func load(_ row: Int, _ field: Int) -> Int { storage[row * fields + field].load(ordering: .acquiring) }

    func store(_ row: Int, _ field: Int, _ value: Int) { storage[row * fields + field].store(value, ordering: .releasing) }

    /// Adds one and returns the value before.
    @discardableResult
    func increment(_ row: Int, _ field: Int) -> Int {
        storage[row * fields + field].add(1, ordering: .acquiringAndReleasing).oldValue
    }

    func decrement(_ row: Int, _ field: Int) {
        storage[row * fields + field].subtract(1, ordering: .acquiringAndReleasing)
    }

    /// Raises the value to `value` if it is lower.
    func raise(_ row: Int, _ field: Int, toAtLeast value: Int) {
        storage[row * fields + field].max(value, ordering: .acquiringAndReleasing)
    }
}

/// SplitMix64: a tiny seeded generator, so a stress run or a randomised test is reproducible from its seed.
///
/// ```swift
/// var random = SplitMix64(seed: 42)
/// let sizes = (0..<10).map { _ in Int.random(in: 1...100, using: &random) }   // the same ten every run
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// What broke during a stress run: the first messages in full, and how many there were.
final class ViolationLog: Sendable {
    private let state = LockedValue<(count: Int, first: [String])>((0, []))

    func record(_ message: @autoclosure () -> String) {
        let text = message()
        state.withLock { state in
            state.count += 1
            if state.first.count < 20 { state.first.append(text) }
        }
    }

    var snapshot: (count: Int, first: [String]) { state.withLock { $0 } }

    /// Waits for `queue.idle()` (its cancel-all sweeps included); false, and a violation, after `timeout`.
    func becomesIdle(_ queue: WorkQueue, within timeout: Duration) -> Bool {
        let idle = DispatchSemaphore(value: 0)
        Task {
            await queue.idle()
            idle.signal()
        }
        let (seconds, attoseconds) = timeout.components
        let deadline = DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        if idle.wait(timeout: deadline) == .success { return true }
        record("hang: \(queue.name) did not become idle in \(timeout): \(queue.counts)")
        return false
    }
}

/// The outcome of a stress run: what it did, and what broke (nothing, when `violations` is empty).
package struct GraphStressReport: Sendable, CustomStringConvertible {
    package var items = 0
    package var bodies = 0
    package var succeeded = 0
    package var failed = 0
    package var cancelled = 0
    package var plainEdges = 0
    package var typedEdges = 0
    package var barriers = 0
    /// Items `keep()` was called on.
    package var kept = 0
    package var cancels = 0
    package var cancelledPending = 0
    package var cancelAlls = 0
    package var reprioritised = 0
    package var limitChanges = 0
    package var suspensions = 0
    package var violationCount = 0
    package var violations: [String] = []

    package init() {}

    package var description: String {
        var text = "\(items) items (\(plainEdges) plain and \(typedEdges) typed edges, \(barriers) barriers, \(kept) kept): "
        text += "\(bodies) bodies ran; \(succeeded) succeeded, \(failed) failed, \(cancelled) cancelled; "
        text += "\(cancels) cancels (\(cancelledPending) pending), \(cancelAlls) cancelAll, \(reprioritised) re-prioritised, "
        text += "\(limitChanges) limit changes, \(suspensions) suspensions; \(violationCount) violations"
        for violation in violations { text += "\n  - " + violation }
        return text
    }

    package mutating func add(_ other: GraphStressReport) {
        items += other.items
        bodies += other.bodies
        succeeded += other.succeeded
        failed += other.failed
        cancelled += other.cancelled
        plainEdges += other.plainEdges
        typedEdges += other.typedEdges
        barriers += other.barriers
        kept += other.kept
        cancels += other.cancels
        cancelledPending += other.cancelledPending
        cancelAlls += other.cancelAlls
        reprioritised += other.reprioritised
        limitChanges += other.limitChanges
        suspensions += other.suspensions
        violationCount += other.violationCount
        violations += other.violations.prefix(max(0, 20 - violations.count))
    }
}
