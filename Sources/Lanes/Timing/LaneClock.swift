import Synchronization

/// A source of time and of scheduled callbacks. Everything time-based in Lanes (timers, debounce, throttle, item
/// timeouts, retry backoff, the responsiveness monitor) takes one, defaulting to ``SystemLaneClock``; tests pass
/// LanesTesting's `VirtualClock` and move time by hand, so nothing waits for real time.
///
/// Times are monotonic nanoseconds (``SystemLaneClock`` uses `DispatchTime.now().uptimeNanoseconds`, the same
/// time base as ``WorkEvent/time``).
///
/// ```swift
/// func refreshLater(clock: any LaneClock = SystemLaneClock()) -> ScheduledToken {
///     clock.schedule(at: clock.deadline(after: .seconds(1)), leeway: 0) { reload() }
/// }
/// ```
public protocol LaneClock: Sendable {
    /// The current time in nanoseconds.
    var now: UInt64 { get }

    /// Calls `action` once at `deadline` (or up to `leeway` nanoseconds later), on a thread of the clock's choosing,
    /// unless the returned token is cancelled first. Never calls `action` before returning.
    func schedule(at deadline: UInt64, leeway: UInt64, _ action: @escaping @Sendable () -> Void) -> ScheduledToken

    /// Calls `action` at `first`, then every `interval` nanoseconds, until the returned token is cancelled.
    /// The default implementation chains one-shot ``schedule(at:leeway:_:)`` calls at `first + n × interval`.
    func scheduleRepeating(
        from first: UInt64, every interval: UInt64, leeway: UInt64, _ action: @escaping @Sendable () -> Void
    ) -> ScheduledToken
}

extension LaneClock {
    /// The time `delay` from now (saturating; negative delays mean now).
    ///
    /// ```swift
    /// let deadline = clock.deadline(after: .milliseconds(300))
    /// ```
    public func deadline(after delay: Duration) -> UInt64 {
        now.laneAdding(delay.laneNanoseconds)
    }

    public func scheduleRepeating(
        from first: UInt64, every interval: UInt64, leeway: UInt64, _ action: @escaping @Sendable () -> Void
    ) -> ScheduledToken {
        let chain = RepeatingChain(clock: self, interval: max(1, interval), leeway: leeway, action: action)
        chain.arm(at: first)
        return ScheduledToken { chain.stop() }
    }
}

/// A handle on a scheduled callback: cancel it to stop future calls. Cancelling is idempotent; a call already under
/// way on another thread may still complete.
///
/// ```swift
/// let token = clock.schedule(at: clock.deadline(after: .seconds(5)), leeway: 0) { showHint() }
/// token.cancel()
/// ```
public final class ScheduledToken: Sendable {
    private let cancelled = Atomic<Bool>(false)
    private let onCancel: @Sendable () -> Void

    /// Creates a token that runs `onCancel` the first time it is cancelled (for custom clocks).
    public init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Stops future calls. Safe to call more than once and from any thread.
    public func cancel() {
        if !cancelled.exchange(true, ordering: .acquiringAndReleasing) { onCancel() }
    }
}

/// The default repeating schedule: one one-shot at a time, each arming the next at `deadline + interval`.
final class RepeatingChain: Sendable {
    private struct State: Sendable {
        var stopped = false
        var token: ScheduledToken?
    }

    private let clock: any LaneClock
    private let interval: UInt64
    private let leeway: UInt64
    private let action: @Sendable () -> Void
    private let state = LockedValue(State())

    init(clock: any LaneClock, interval: UInt64, leeway: UInt64, action: @escaping @Sendable () -> Void) {
        self.clock = clock
        self.interval = interval
        self.leeway = leeway
        self.action = action
    }

    func arm(at deadline: UInt64) {
        let token = clock.schedule(at: deadline, leeway: leeway) { [self] in
            guard !state.withLock({ $0.stopped }) else { return }
            action()
            arm(at: deadline.laneAdding(interval))
        }
        let stale = state.withLock { state -> ScheduledToken? in
            if state.stopped { return token }
            state.token = token
            return nil
        }
        stale?.cancel()
    }

    func stop() {
        let token = state.withLock { state -> ScheduledToken? in
            state.stopped = true
            defer { state.token = nil }
            return state.token
        }
        token?.cancel()
    }
}

extension Duration {
    /// The duration in whole nanoseconds, clamped to 0 for negative durations and saturating at `UInt64.max`.
    package var laneNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds > 0 || (seconds == 0 && attoseconds > 0) else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole.laneAdding(UInt64(max(0, attoseconds) / 1_000_000_000))
    }
}

extension UInt64 {
    /// Saturating addition for deadlines.
    package func laneAdding(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}
