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
    private struct State: Sendable {
        var pending: Value?
        /// When the value becomes deliverable (last send + interval).
        var deadline: UInt64 = 0
        /// The alarm id armed now, if any.
        var armed: UInt64?
        var lastID: UInt64 = 0
        /// Bumped by `cancel()`; a delivery made before it is dropped.
        var epoch: UInt64 = 0
    }

    private enum Step: Sendable {
        case none
        case arm(id: UInt64, at: UInt64)
        case deliver(Value, epoch: UInt64)
    }

    private let interval: UInt64
    private let queue: WorkQueue?
    private let clock: any LaneClock
    private let label: String
    private let handler: @Sendable (Value) -> Void
    private let alarm: Alarm
    private let state = LockedValue(State())

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
        self.interval = interval.laneNanoseconds
        self.queue = queue
        self.clock = clock
        self.label = label
        self.handler = handler
        // A little slack lets the system batch timer wake-ups; a debounce is not a metronome.
        alarm = Alarm(clock: clock, leeway: min(self.interval / 10, 10_000_000))
    }

    deinit { alarm.disarm(through: .max) }

    /// Offers a new value; it replaces any value still waiting and restarts the quiet period.
    public func send(_ value: Value) {
        let now = clock.now
        let step = state.withLock { state -> Step in
            state.pending = value
            state.deadline = now.laneAdding(interval)
            guard state.armed == nil else { return .none }
            state.lastID += 1
            state.armed = state.lastID
            return .arm(id: state.lastID, at: state.deadline)
        }
        perform(step)
    }

    /// Delivers the waiting value now, if there is one.
    public func flush() {
        let (step, last) = state.withLock { state -> (Step, UInt64) in
            guard let value = state.pending else { return (.none, 0) }
            state.pending = nil
            state.armed = nil
            return (.deliver(value, epoch: state.epoch), state.lastID)
        }
        alarm.disarm(through: last)
        perform(step)
    }

    /// Drops the waiting value (and one already handed to the queue but not yet delivered).
    public func cancel() {
        let last = state.withLock { state -> UInt64 in
            state.pending = nil
            state.armed = nil
            state.epoch += 1
            return state.lastID
        }
        alarm.disarm(through: last)
    }

    /// Whether a value is waiting for the quiet period to end.
    public var hasPendingValue: Bool { state.withLock { $0.pending != nil } }

    private func fire(_ id: UInt64) {
        let now = clock.now
        let step = state.withLock { state -> Step in
            guard state.armed == id else { return .none }
            guard let value = state.pending else {
                state.armed = nil
                return .none
            }
            if now < state.deadline {
                // Newer values arrived while this alarm was set: wait for the rest of the quiet period.
                state.lastID += 1
                state.armed = state.lastID
                return .arm(id: state.lastID, at: state.deadline)
            }
            state.armed = nil
            state.pending = nil
            return .deliver(value, epoch: state.epoch)
        }
        perform(step)
    }

    private func perform(_ step: Step) {
        switch step {
        case .none:
            break
        case .arm(let id, let deadline):
            alarm.arm(id: id, at: deadline) { [weak self] in self?.fire(id) }
        case .deliver(let value, let epoch):
            Delivery.run(on: queue, label: label) { [self] in
                if state.withLock({ $0.epoch }) == epoch { handler(value) }
            }
        }
    }
}
