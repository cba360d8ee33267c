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
    private struct State: Sendable {
        /// When the current interval ends, for the leading-only mode.
        var windowEnd: UInt64?
        var pending: Value?
        var armed: UInt64?
        var lastID: UInt64 = 0
        var epoch: UInt64 = 0
    }

    private struct Step: Sendable {
        var deliver: Value?
        var epoch: UInt64 = 0
        var arm: (id: UInt64, at: UInt64)?
    }

    private let interval: UInt64
    private let edges: ThrottleEdges
    private let queue: WorkQueue?
    private let clock: any LaneClock
    private let label: String
    private let handler: @Sendable (Value) -> Void
    private let alarm: Alarm
    private let state = LockedValue(State())

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
        self.interval = interval.laneNanoseconds
        self.edges = edges
        self.queue = queue
        self.clock = clock
        self.label = label
        self.handler = handler
        alarm = Alarm(clock: clock, leeway: 0)
    }

    deinit { alarm.disarm(through: .max) }

    /// Offers a value: delivered now if an interval may start, kept as the trailing value otherwise (or dropped in
    /// the leading-only mode).
    public func send(_ value: Value) {
        let now = clock.now
        let step = state.withLock { state -> Step in
            var step = Step(epoch: state.epoch)
            if edges == .leading {
                if let end = state.windowEnd, now < end { return step }
                state.windowEnd = now.laneAdding(interval)
                step.deliver = value
                return step
            }
            if state.armed != nil {
                state.pending = value  // inside an interval: the latest value waits for its end
                return step
            }
            if edges == .both { step.deliver = value } else { state.pending = value }
            state.lastID += 1
            state.armed = state.lastID
            step.arm = (state.lastID, now.laneAdding(interval))
            return step
        }
        perform(step)
    }

    /// Drops a waiting trailing value (and one handed to the queue but not yet delivered) and ends the interval.
    public func cancel() {
        let last = state.withLock { state -> UInt64 in
            state.pending = nil
            state.armed = nil
            state.windowEnd = nil
            state.epoch += 1
            return state.lastID
        }
        alarm.disarm(through: last)
    }

    private func fire(_ id: UInt64) {
        let now = clock.now
        let step = state.withLock { state -> Step in
            var step = Step(epoch: state.epoch)
            guard state.armed == id else { return step }
            guard let value = state.pending else {
                state.armed = nil  // a quiet interval ended: the next value may lead
                return step
            }
            state.pending = nil
            step.deliver = value
            if edges == .both {
                // The trailing delivery opens a new interval so the next one cannot follow it too closely.
                state.lastID += 1
                state.armed = state.lastID
                step.arm = (state.lastID, now.laneAdding(interval))
            } else {
                state.armed = nil
            }
            return step
        }
        perform(step)
    }

    private func perform(_ step: Step) {
        if let value = step.deliver {
            let epoch = step.epoch
            Delivery.run(on: queue, label: label) { [self] in
                if state.withLock({ $0.epoch }) == epoch { handler(value) }
            }
        }
        if let (id, deadline) = step.arm {
            alarm.arm(id: id, at: deadline) { [weak self] in self?.fire(id) }
        }
    }
}
