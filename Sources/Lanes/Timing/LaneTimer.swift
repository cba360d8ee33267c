/// A one-shot or repeating timer that delivers on the ``WorkQueue`` you choose, built on a ``LaneClock``
/// (`DispatchSource` timers by default). Cancel it to stop future fires; cancelling is idempotent, and a fire that
/// was already handed to the queue but has not run yet is dropped.
///
/// ```swift
/// let autosave = LaneTimer.everyOnMain(.seconds(30), leeway: .seconds(1)) { document.save() }   // @MainActor
/// LaneTimer.afterOnMain(.seconds(2)) { toast.hide() }
/// // The screen went away:
/// autosave.cancel()
/// ```
///
/// A repeating timer whose queue is busy does not pile up deliveries: while one delivery waits to run, further ticks
/// are skipped (as `DispatchSource` coalesces missed fires).
public final class LaneTimer: Sendable {
    private struct State: Sendable {
        var cancelled = false
        var token: ScheduledToken?
        var deliveryPending = false
        var fires = 0
    }

    private let queue: WorkQueue?
    private let label: String
    private let repeats: Bool
    private let action: @Sendable () -> Void
    private let state = LockedValue(State())

    /// A timer whose fires `schedule` arranges: it gets what to call at each fire and returns the clock's token.
    private init(
        queue: WorkQueue?, label: String, repeats: Bool, action: @escaping @Sendable () -> Void,
        schedule: (_ fire: @escaping @Sendable () -> Void) -> ScheduledToken
    ) {
        self.queue = queue
        self.label = label
        self.repeats = repeats
        self.action = action
        let token = schedule { [self] in fire() }
        state.withLock { $0.token = token }
    }

    /// Calls `action` once, `delay` from now, on `queue` (or on the clock's thread when `queue` is nil).
    ///
    /// ```swift
    /// LaneTimer.after(.seconds(5), on: queue) { trimCaches() }
    /// ```
    @discardableResult
    public static func after(
        _ delay: Duration, leeway: Duration = .zero, on queue: WorkQueue? = nil,
        clock: any LaneClock = SystemLaneClock(), label: String = "timer",
        _ action: @escaping @Sendable () -> Void
    ) -> LaneTimer {
        LaneTimer(queue: queue, label: label, repeats: false, action: action) { fire in
            clock.schedule(at: clock.deadline(after: delay), leeway: leeway.laneNanoseconds, fire)
        }
    }

    /// Calls `action` every `interval` (first after one interval) on `queue` until cancelled. `leeway` lets the
    /// system fire up to that much late so it can batch wake-ups.
    ///
    /// ```swift
    /// let poll = LaneTimer.every(.seconds(5), leeway: .milliseconds(500), on: network) { pollServer() }
    /// ```
    public static func every(
        _ interval: Duration, leeway: Duration = .zero, on queue: WorkQueue? = nil,
        clock: any LaneClock = SystemLaneClock(), label: String = "timer",
        _ action: @escaping @Sendable () -> Void
    ) -> LaneTimer {
        let step = max(1, interval.laneNanoseconds)
        return LaneTimer(queue: queue, label: label, repeats: true, action: action) { fire in
            clock.scheduleRepeating(from: clock.now.laneAdding(step), every: step, leeway: leeway.laneNanoseconds, fire)
        }
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// How many times the action has run.
    public var fireCount: Int { state.withLock { $0.fires } }

    /// Stops future fires, including one already handed to the queue. Safe to call more than once.
    public func cancel() {
        let token = state.withLock { state -> ScheduledToken? in
            state.cancelled = true
            defer { state.token = nil }
            return state.token
        }
        token?.cancel()
    }

    private func fire() {
        let deliver = state.withLock { state -> Bool in
            guard !state.cancelled, !state.deliveryPending else { return false }
            if queue != nil { state.deliveryPending = true }
            if !repeats { state.token = nil }  // a one-shot is done with its clock
            return true
        }
        guard deliver else { return }
        Delivery.run(on: queue, label: label, { [self] in
            let run = state.withLock { state -> Bool in
                guard !state.cancelled else { return false }
                state.fires += 1
                return true
            }
            if run { action() }
        }, settled: { [self] in
            state.withLock { $0.deliveryPending = false }
        })
    }
}
