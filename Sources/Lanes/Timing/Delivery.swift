/// How time-based helpers hand a callback to the queue the user chose.
enum Delivery {
    /// Runs `action` on `queue` as a `.visible` item labelled `label`, or at once on the calling thread when `queue`
    /// is nil. `settled` runs once the delivery is over, however it ended (the item may be cancelled by
    /// `cancelAll()` before it runs).
    static func run(
        on queue: WorkQueue?, label: String, _ action: @escaping @Sendable () -> Void,
        settled: (@Sendable () -> Void)? = nil
    ) {
        guard let queue else {
            action()
            settled?()
            return
        }
        let item = WorkItem<Void>(label: label, priority: .visible) { _ in action() }
        if let settled { item.node.onFinish { _ in settled() } }
        try? queue.enqueue(item)  // a fresh item cannot be enqueued already
    }
}

/// A re-armable one-shot alarm on a clock, shared by the debouncer and the throttler. Each arm carries an id from the
/// owner's state machine; arming with an older id than the latest (or after a disarm) is dropped, so the owner only
/// ever has one live timer. The owner still checks the id when the alarm fires, because a fire can race a re-arm.
final class Alarm: Sendable {
    private struct State: Sendable {
        var id: UInt64 = 0
        var refusedThrough: UInt64 = 0
        var token: ScheduledToken?
    }

    private let clock: any LaneClock
    private let leeway: UInt64
    private let state = LockedValue(State())

    init(clock: any LaneClock, leeway: UInt64) {
        self.clock = clock
        self.leeway = leeway
    }

    /// Schedules `fire` at `deadline` under `id`, replacing the alarm armed before.
    func arm(id: UInt64, at deadline: UInt64, _ fire: @escaping @Sendable () -> Void) {
        let token = clock.schedule(at: deadline, leeway: leeway, fire)
        let stale = state.withLock { state -> ScheduledToken? in
            if id < state.id || id <= state.refusedThrough { return token }
            defer { state.id = id; state.token = token }
            return state.token
        }
        stale?.cancel()
    }

    /// Cancels the live alarm and refuses arms with ids up to `id`.
    func disarm(through id: UInt64) {
        let token = state.withLock { state -> ScheduledToken? in
            defer { state.refusedThrough = max(state.refusedThrough, id); state.token = nil }
            return state.token
        }
        token?.cancel()
    }
}
