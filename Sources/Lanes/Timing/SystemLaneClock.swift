import Dispatch

/// The real clock: `DispatchTime` uptime in nanoseconds, callbacks from `DispatchSource` timers on Lanes' timer
/// queue (a serial, user-interactive dispatch queue; keep callbacks that run there short — Lanes' own hop straight
/// to the ``WorkQueue`` you chose).
///
/// ```swift
/// let clock = SystemLaneClock()
/// let token = clock.schedule(at: clock.deadline(after: .milliseconds(250)), leeway: 1_000_000) { print("tick") }
/// ```
public struct SystemLaneClock: LaneClock {
    /// The serial queue timer callbacks run on.
    static let timerQueue = DispatchQueue(label: "lanes.timers", qos: .userInteractive)

    /// The system's monotonic clock (every `SystemLaneClock` is the same clock).
    public init() {}

    public var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

    public func schedule(at deadline: UInt64, leeway: UInt64, _ action: @escaping @Sendable () -> Void) -> ScheduledToken {
        start(at: deadline, repeating: nil, leeway: leeway, action)
    }

    public func scheduleRepeating(
        from first: UInt64, every interval: UInt64, leeway: UInt64, _ action: @escaping @Sendable () -> Void
    ) -> ScheduledToken {
        start(at: first, repeating: max(1, interval), leeway: leeway, action)
    }

    /// A timer source firing at `deadline`, then every `repeating` nanoseconds if given; a one-shot cancels its
    /// source when it fires.
    private func start(
        at deadline: UInt64, repeating: UInt64?, leeway: UInt64, _ action: @escaping @Sendable () -> Void
    ) -> ScheduledToken {
        let source = TimerSource()
        let token = ScheduledToken { source.cancel() }
        // The handler keeps the token (and so the source) alive until it fires or is cancelled; cancelling a
        // dispatch source releases its handler, which breaks the cycle.
        source.start(
            deadline: deadline, repeating: repeating, leeway: leeway,
            handler: { [token] in
                if repeating == nil { source.cancel() }
                if !token.isCancelled { action() }
            })
        return token
    }
}

/// A dispatch timer source. `@unchecked Sendable`: `DispatchSourceTimer` is documented thread-safe (schedule,
/// cancel and handler registration may be called from any thread), and the reference itself never changes.
final class TimerSource: @unchecked Sendable {
    private let source = DispatchSource.makeTimerSource(flags: [], queue: SystemLaneClock.timerQueue)

    func start(deadline: UInt64, repeating: UInt64?, leeway: UInt64, handler: @escaping @Sendable () -> Void) {
        source.setEventHandler(handler: handler)
        let leewayInterval = DispatchTimeInterval.nanoseconds(Int(clamping: leeway))
        source.schedule(
            deadline: DispatchTime(uptimeNanoseconds: max(1, deadline)),
            repeating: repeating.map { DispatchTimeInterval.nanoseconds(Int(clamping: $0)) } ?? .never, leeway: leewayInterval)
        source.activate()
    }

    func cancel() { source.cancel() }
}
