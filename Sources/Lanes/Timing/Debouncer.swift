/// Delivers the last value sent once `interval` has passed with no newer value: search-as-you-type sends every
/// keystroke and searches once typing pauses.
///
/// ```swift
/// let search = Debouncer<String>(interval: .milliseconds(300), onMain: { query in
///     viewModel.search(query)
/// })
/// textField.onChange { search.send($0) }
/// ```
///
/// Deliveries run on `queue` (at once on the clock's thread when it is nil). ``cancel()`` drops a waiting value,
/// including one already handed to the queue that has not run yet. Pass a `VirtualClock` from LanesTesting to test
/// without waiting.
public final class Debouncer<Value: Sendable>: Sendable {
    private typealias Step = Pacer<Value>.Step
    private let pacer: Pacer<Value>

    /// - Parameters:
    ///   - interval: how long the input must stay quiet before the last value is delivered.
    ///   - queue: where `handler` runs (nil: on the clock's thread).
    ///   - clock: the time source; `VirtualClock` in tests.
    ///   - label: the label of delivery items.
    ///   - handler: receives the last value once the input is quiet.
    public init(
        interval: Duration, on queue: WorkQueue? = nil, clock: any LaneClock = SystemLaneClock(),
        label: String = "debounce", _ handler: @escaping @Sendable (Value) -> Void
    ) {
        let nanoseconds = interval.laneNanoseconds
        // A little slack lets the system batch timer wake-ups; a debounce is not a metronome.
        pacer = Pacer(
            interval: nanoseconds, leeway: min(nanoseconds / 10, 10_000_000), queue: queue, clock: clock, label: label,
            handler: handler
        ) { state, value, now in
            if let deadline = state.deadline, now < deadline {
                // Newer values arrived while this alarm was set: wait for the rest of the quiet period.
                return Step(arm: state.arm(at: deadline))
            }
            state.armed = nil
            state.pending = nil
            return Step(deliver: value)
        }
    }

    /// Offers a new value; it replaces any value still waiting and restarts the quiet period.
    public func send(_ value: Value) {
        pacer.step { state, now in
            state.pending = value
            let deadline = now.laneAdding(pacer.interval)
            state.deadline = deadline
            guard state.armed == nil else { return Step() }
            return Step(arm: state.arm(at: deadline))
        }
    }

    /// Delivers the waiting value now, if there is one.
    public func flush() { pacer.flush() }

    /// Drops the waiting value (and one already handed to the queue but not yet delivered).
    public func cancel() { pacer.cancel() }

    /// Whether a value is waiting for the quiet period to end.
    public var hasPendingValue: Bool { pacer.hasPendingValue }
}
