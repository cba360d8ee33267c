import Lanes

/// A clock that only moves when a test says so. Timers, debouncers, throttlers, item timeouts, retry backoff and the
/// responsiveness monitor all take a `LaneClock`; give them a `VirtualClock` and call ``advance(by:)`` to fire,
/// synchronously and in deadline order, everything that falls due — no sleeps, no flakiness.
///
/// ```swift
/// let clock = VirtualClock()
/// let ui = ManualExecutor()
/// let uiQueue = WorkQueue("ui", maxConcurrency: 1, executor: ui)
/// let log = Recorder<String>()
/// let search = Debouncer<String>(interval: .milliseconds(300), on: uiQueue, clock: clock) { log.append($0) }
/// search.send("sw"); search.send("swift")
/// clock.advance(by: .milliseconds(299)); ui.runAll()
/// #expect(log.elements.isEmpty)
/// clock.advance(by: .milliseconds(1)); ui.runAll()
/// #expect(log.elements == ["swift"])
/// ```
///
/// Actions run on the thread that advances the clock. Those that deliver to a `WorkQueue` only add an item there:
/// run it with the queue's `ManualExecutor` (or let a real executor run it). Leeway is ignored: an action fires
/// exactly at its deadline.
public final class VirtualClock: LaneClock {
    private struct Entry: Sendable {
        let deadline: UInt64
        let sequence: UInt64
        let action: @Sendable () -> Void
    }

    private struct State: Sendable {
        var now: UInt64
        var nextSequence: UInt64 = 0
        /// Scheduled actions by sequence number; few enough in tests that a linear scan for the earliest is fine.
        var entries: [UInt64: Entry] = [:]
    }

    private let state: LockedValue<State>

    /// Creates a clock reading `start` nanoseconds.
    public init(start: UInt64 = 0) {
        state = LockedValue(State(now: start))
    }

    /// The current virtual time in nanoseconds.
    public var now: UInt64 { state.withLock { $0.now } }

    /// How many actions are scheduled and not yet fired or cancelled.
    public var scheduledCount: Int { state.withLock { $0.entries.count } }

    /// The deadline of the next scheduled action, if any.
    public var nextDeadline: UInt64? { state.withLock { state in state.entries.values.map(\.deadline).min() } }

    public func schedule(at deadline: UInt64, leeway: UInt64, _ action: @escaping @Sendable () -> Void) -> ScheduledToken {
        let sequence = state.withLock { state -> UInt64 in
            state.nextSequence += 1
            state.entries[state.nextSequence] = Entry(deadline: deadline, sequence: state.nextSequence, action: action)
            return state.nextSequence
        }
        return ScheduledToken { [weak self] in
            self?.state.withLock { _ = $0.entries.removeValue(forKey: sequence) }
        }
    }

    /// Moves time forward by `duration`, firing every action that falls due on the way, in deadline order (and in
    /// scheduling order for equal deadlines). Actions scheduled by those actions fire too if they fall due in time.
    ///
    /// ```swift
    /// clock.advance(by: .seconds(1))
    /// ```
    public func advance(by duration: Duration) {
        advance(to: now.laneAdding(duration.laneNanoseconds))
    }

    /// Moves time forward to `deadline` (never backwards), firing what falls due on the way.
    public func advance(to deadline: UInt64) {
        while let entry = popDue(through: deadline) {
            entry.action()
        }
        state.withLock { state in state.now = max(state.now, deadline) }
    }

    /// Moves time to the next scheduled deadline and fires what is due then. Returns false if nothing is scheduled.
    @discardableResult
    public func advanceToNext() -> Bool {
        guard let next = nextDeadline else { return false }
        advance(to: max(next, now))
        return true
    }

    private func popDue(through deadline: UInt64) -> Entry? {
        state.withLock { state -> Entry? in
            var earliest: Entry?
            for entry in state.entries.values where entry.deadline <= deadline {
                if let best = earliest, (best.deadline, best.sequence) <= (entry.deadline, entry.sequence) { continue }
                earliest = entry
            }
            guard let due = earliest else { return nil }
            state.entries.removeValue(forKey: due.sequence)
            state.now = max(state.now, due.deadline)
            return due
        }
    }
}
