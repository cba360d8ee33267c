import Lanes

/// A running estimate of how long one key takes to get ready (seconds from the start of its work to its value), kept
/// the way Android's RecyclerView keeps its per-view-type bind time: each finished piece of work moves the estimate a
/// quarter of the way to its own time (¾ old + ¼ new); the first one sets it.
///
/// A ``ContentLoader`` made with a synchronous body times every body that returns a value and keeps its estimate in
/// ``ContentLoader/costs``; ``ListModel/connect(to:quick:key:binding:)`` hands it to the list's adaptive preload, which leans
/// ahead by what the render threads can finish before a row appears (see ``AdaptivePreload``). A loader of several
/// steps records its own times.
///
/// ```swift
/// let costs = CostEstimate()
/// costs.record(seconds: 0.004)
/// costs.record(seconds: 0.008)
/// print(costs.seconds ?? 0)            // 0.005
/// ```
public final class CostEstimate: Sendable {
    // The project's lock (a pthread mutex under ThreadSanitizer builds, which it can see into).
    private let state = LockedValue<(cost: Average, wait: Average)>((Average(), Average()))

    /// ¾ old + ¼ new; the first sample sets it. A negative, infinite or NaN sample is ignored.
    private struct Average: Sendable {
        var value: Double?
        var count = 0

        mutating func add(_ sample: Double) {
            guard sample.isFinite, sample >= 0 else { return }
            value = value.map { 0.75 * $0 + 0.25 * sample } ?? sample
            count += 1
        }
    }

    /// An estimate with no samples yet (``seconds`` is nil).
    ///
    /// ```swift
    /// let decodeTimes = CostEstimate()
    /// ```
    public init() {}

    /// Adds one finished piece of work that took `seconds` (a negative, infinite or NaN time is ignored).
    ///
    /// ```swift
    /// let start = ContinuousClock.now
    /// _ = (1...100_000).reduce(0, +)                        // the work
    /// let took = ContinuousClock.now - start
    /// costs.record(seconds: Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18)
    /// ```
    public func record(seconds: Double) {
        state.withLock { $0.cost.add(seconds) }
    }

    /// The current estimate in seconds, or nil before the first sample.
    ///
    /// ```swift
    /// let lead = (costs.seconds ?? 0.05) * 2
    /// ```
    public var seconds: Double? { state.withLock { $0.cost.value } }

    /// How many samples the estimate has seen.
    ///
    /// ```swift
    /// if costs.samples == 0 { print("no render has finished yet") }
    /// ```
    public var samples: Int { state.withLock { $0.cost.count } }

    /// Adds one observed wait: `seconds` from a row on screen asking for its content (a miss, at visible priority) to
    /// the content in its cell, the work's queue and the threads' share of the machine included. A
    /// ``ContentBinding`` records these into its loader's estimate; the preload asks for quick renderings when rows
    /// would wait longer than a frame (``PreloadTracker/wantsQuick(forRow:)``). The same ¾ old + ¼ new average.
    ///
    /// ```swift
    /// costs.record(seconds: 0.003)       // a render takes 3 ms on its thread
    /// costs.recordWait(seconds: 0.060)   // but the rows shown lately waited 60 ms for theirs
    /// ```
    public func recordWait(seconds: Double) {
        state.withLock { $0.wait.add(seconds) }
    }

    /// The observed wait in seconds (``recordWait(seconds:)``), or nil before the first.
    ///
    /// ```swift
    /// if let wait = costs.wait, wait > 1.0 / 60 { print("rows wait \(wait * 1000) ms for their content") }
    /// ```
    public var wait: Double? { state.withLock { $0.wait.value } }

    /// How many waits the estimate has seen.
    ///
    /// ```swift
    /// if costs.waits == 0 { print("no row on screen has waited for its content yet") }
    /// ```
    public var waits: Int { state.withLock { $0.wait.count } }
}
