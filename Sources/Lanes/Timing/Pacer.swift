/// The machine under ``Debouncer`` and ``Throttler``: the value waiting, one re-armable alarm on the clock, and the
/// deliveries to the queue the user chose. The owner decides its transitions (what a send does, what the alarm does
/// when it rings); the pacer runs them under its lock and performs what they decided once it is released.
///
/// Each arm carries a fresh id; the alarm that rings must carry the id armed now, so a ring that raced a re-arm or a
/// cancel does nothing. ``cancel()`` bumps the epoch, which drops a delivery already handed to the queue.
final class Pacer<Value: Sendable>: Sendable {
    struct State: Sendable {
        var pending: Value?
        /// A time the owner keeps: the debouncer's end of the quiet period, the leading-only throttler's end of the
        /// interval.
        var deadline: UInt64?
        /// The alarm id armed now, if any.
        var armed: UInt64?
        var lastID: UInt64 = 0
        /// Bumped by `cancel()`; a delivery made before it is dropped.
        var epoch: UInt64 = 0
        /// The clock's token for the live alarm, and the ids whose arming is refused (a cancel or flush passed them).
        fileprivate var token: ScheduledToken?
        fileprivate var tokenID: UInt64 = 0
        fileprivate var refusedThrough: UInt64 = 0

        /// Arms the alarm for `deadline` under a new id.
        mutating func arm(at deadline: UInt64) -> (id: UInt64, at: UInt64) {
            lastID += 1
            armed = lastID
            return (lastID, deadline)
        }

        /// Disarms the alarm: no arm made so far may set it again. Returns the token to cancel.
        fileprivate mutating func disarm() -> ScheduledToken? {
            armed = nil
            refusedThrough = lastID
            defer { token = nil }
            return token
        }
    }

    /// What a transition decided: a value to deliver, then an alarm to arm.
    struct Step: Sendable {
        var deliver: Value?
        var arm: (id: UInt64, at: UInt64)?
    }

    /// What the alarm does when it rings with a value waiting (without one, it only disarms).
    typealias Ring = @Sendable (_ state: inout State, _ value: Value, _ now: UInt64) -> Step

    let interval: UInt64
    private let leeway: UInt64
    private let queue: WorkQueue?
    private let clock: any LaneClock
    private let label: String
    private let handler: @Sendable (Value) -> Void
    private let ring: Ring
    private let state = LockedValue(State())

    init(
        interval: UInt64, leeway: UInt64, queue: WorkQueue?, clock: any LaneClock, label: String,
        handler: @escaping @Sendable (Value) -> Void, ring: @escaping Ring
    ) {
        self.interval = interval
        self.leeway = leeway
        self.queue = queue
        self.clock = clock
        self.label = label
        self.handler = handler
        self.ring = ring
    }

    deinit { state.withLock { $0.disarm() }?.cancel() }

    /// Runs `transition` under the lock with the time now, then delivers and arms as it decided.
    func step(_ transition: (inout State, _ now: UInt64) -> Step) {
        let now = clock.now
        let (step, epoch) = state.withLock { state in (transition(&state, now), state.epoch) }
        perform(step, epoch: epoch)
    }

    /// Delivers the waiting value now, if there is one.
    func flush() {
        let (value, epoch, token) = state.withLock { state in
            defer { state.pending = nil }
            return (state.pending, state.epoch, state.pending == nil ? nil : state.disarm())
        }
        token?.cancel()
        if let value { perform(Step(deliver: value), epoch: epoch) }
    }

    /// Drops the waiting value (and one already handed to the queue but not yet delivered) and the alarm.
    func cancel() {
        let token = state.withLock { state in
            state.pending = nil
            state.deadline = nil
            state.epoch += 1
            return state.disarm()
        }
        token?.cancel()
    }

    /// Whether a value is waiting.
    var hasPendingValue: Bool { state.withLock { $0.pending != nil } }

    private func rang(_ id: UInt64) {
        step { state, now in
            guard state.armed == id else { return Step() }
            guard let value = state.pending else {
                state.armed = nil  // a quiet interval ended
                return Step()
            }
            return ring(&state, value, now)
        }
    }

    private func perform(_ step: Step, epoch: UInt64) {
        if let value = step.deliver {
            Delivery.run(on: queue, label: label) { [self] in
                if state.withLock({ $0.epoch }) == epoch { handler(value) }
            }
        }
        guard let (id, deadline) = step.arm else { return }
        let token = clock.schedule(at: deadline, leeway: leeway) { [weak self] in self?.rang(id) }
        // Arms race each other outside the lock: the newest id wins, and none a disarm passed.
        let stale = state.withLock { state -> ScheduledToken? in
            if id < state.tokenID || id <= state.refusedThrough { return token }
            defer { state.tokenID = id; state.token = token }
            return state.token
        }
        stale?.cancel()
    }
}
