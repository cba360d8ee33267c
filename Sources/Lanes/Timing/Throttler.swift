/// Which values a ``Throttler`` delivers within each interval.
///
/// ```swift
/// let scroll = Throttler<Double>(interval: .milliseconds(100), edges: .both, onMain: { loadVisibleRows(at: $0) })
/// ```
public enum ThrottleEdges: Sendable, Equatable {
    /// The first value of a burst at once; later values in the interval are dropped.
    case leading
    /// The latest value at the end of each interval.
    case trailing
    /// The first value at once and the latest one at the end of the interval (the default).
    case both
}

/// Delivers at most one value per `interval`: scroll positions, resize events, progress ticks.
///
/// ```swift
/// let prefetch = Throttler<Int>(interval: .milliseconds(100), onMain: { row in
///     prefetcher.update(firstVisibleRow: row)
/// })
/// scrollView.onScroll { prefetch.send($0.firstVisibleRow) }
/// ```
///
/// With ``ThrottleEdges/both`` the first value of a burst is delivered at once and the latest one when the interval
/// ends; deliveries are never closer than `interval` apart (as measured when they are handed to `queue`).
public final class Throttler<Value: Sendable>: Sendable {
    private let edges: ThrottleEdges
    private typealias Step = Pacer<Value>.Step
    private let pacer: Pacer<Value>

    /// - Parameters:
    ///   - interval: the shortest time between two deliveries.
    ///   - edges: leading, trailing or both (the default).
    ///   - queue: where `handler` runs (nil: on the sending thread for leading values, the clock's for trailing).
    ///   - clock: the time source; `VirtualClock` in tests.
    ///   - label: the label of delivery items.
    ///   - handler: receives the values let through.
    public init(
        interval: Duration, edges: ThrottleEdges = .both, on queue: WorkQueue? = nil,
        clock: any LaneClock = SystemLaneClock(), label: String = "throttle",
        _ handler: @escaping @Sendable (Value) -> Void
    ) {
        let nanoseconds = interval.laneNanoseconds
        self.edges = edges
        pacer = Pacer(
            interval: nanoseconds, leeway: 0, queue: queue, clock: clock, label: label, handler: handler
        ) { state, value, now in
            state.pending = nil
            guard edges == .both else {
                state.armed = nil
                return Step(deliver: value)
            }
            // The trailing delivery opens a new interval so the next one cannot follow it too closely.
            return Step(deliver: value, arm: state.arm(at: now.laneAdding(nanoseconds)))
        }
    }

    /// Offers a value: delivered now if an interval may start, kept as the trailing value otherwise (or dropped in
    /// the leading-only mode).
    public func send(_ value: Value) {
        pacer.step { state, now in
            if edges == .leading {
                // The deadline is the end of the current interval.
                if let end = state.deadline, now < end { return Step() }
                state.deadline = now.laneAdding(pacer.interval)
                return Step(deliver: value)
            }
            if state.armed != nil {
                state.pending = value  // inside an interval: the latest value waits for its end
                return Step()
            }
            if edges == .trailing { state.pending = value }
            return Step(deliver: edges == .both ? value : nil, arm: state.arm(at: now.laneAdding(pacer.interval)))
        }
    }

    /// Drops a waiting trailing value (and one handed to the queue but not yet delivered) and ends the interval.
    public func cancel() { pacer.cancel() }
}
