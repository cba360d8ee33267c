import Lanes

/// The steering of one piece of work that advances through steps: its priority, whether it was cancelled, and the
/// step in progress. It is the one place where a priority that changes while work moves from step to step reaches
/// the step that is current.
///
/// - Steps advance in increasing `order`; a step installed late (its successor may already be installed when a
///   callback fired synchronously) is ignored rather than allowed to replace a later one.
/// - A step installed after ``cancel()`` is cancelled at once.
/// - Priorities are passed on by one thread at a time, which keeps going until the step has the priority wanted
///   last, so callers racing to set priorities converge on the last one, though the step is steered outside the lock.
///   A `version` (from a lock-guarded source such as ``SharedWork``) lets late callers with older news lose.
///
/// ```swift
/// let steering = WorkSteering(priority: .prefetch)
/// let item = queue.add(priority: steering.priority) { _ in try render() }
/// steering.install(WorkStep(item), order: 0, startedAt: item.priority)
/// steering.setPriority(.visible)   // the item is promoted in its queue
/// steering.cancel()                // and withdrawn
/// ```
public final class WorkSteering: Sendable {
    private struct State: Sendable {
        var priority: WorkPriority
        var version: UInt64 = 0
        var cancelled = false
        var step: WorkStep?
        var order = Int.min
        /// The priority the step has, as far as the steering knows.
        var applied: WorkPriority?
        /// Whether a thread is passing the priority on.
        var applying = false
    }

    private let state: LockedValue<State>

    /// A steering at `priority`, with no step yet.
    ///
    /// ```swift
    /// let steering = WorkSteering(priority: .visible)
    /// ```
    public init(priority: WorkPriority) {
        state = LockedValue(State(priority: priority))
    }

    /// The priority the work should run at.
    public var priority: WorkPriority { state.withLock { $0.priority } }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Makes `step` the one in progress, if it comes after the current one. `startedAt` is the priority the step was
    /// made with (nil: not known); if the steering's priority differs, the step is given the steering's. If the work was
    /// cancelled, the step is cancelled at once.
    ///
    /// ```swift
    /// let priority = steering.priority
    /// steering.install(WorkStep(queue.add(priority: priority) { _ in work() }), order: 2, startedAt: priority)
    /// ```
    public func install(_ step: WorkStep, order: Int, startedAt: WorkPriority?) {
        enum Action { case cancel, relay, none }
        let action = state.withLock { state -> Action in
            if state.cancelled { return .cancel }
            guard order > state.order else { return .none }
            state.step = step
            state.order = order
            state.applied = startedAt
            guard startedAt != state.priority, !state.applying else { return .none }
            state.applying = true
            return .relay
        }
        switch action {
        case .cancel: step.cancel()
        case .relay: relay()
        case .none: break
        }
    }

    /// Changes the priority and passes it on to the step in progress. With a `version`, a change older than one
    /// already seen is ignored.
    ///
    /// ```swift
    /// steering.setPriority(.visible)
    /// ```
    public func setPriority(_ priority: WorkPriority, version: UInt64? = nil) {
        let relays = state.withLock { state -> Bool in
            if let version {
                guard version > state.version else { return false }
                state.version = version
            }
            guard !state.cancelled, state.priority != priority else { return false }
            state.priority = priority
            guard !state.applying, state.step != nil else { return false }
            state.applying = true
            return true
        }
        if relays { relay() }
    }

    /// Cancels the work and the step in progress (idempotent). Returns whether this call cancelled it.
    ///
    /// ```swift
    /// steering.cancel()
    /// ```
    @discardableResult
    public func cancel() -> Bool {
        let step = state.withLock { state -> WorkStep?? in
            guard !state.cancelled else { return nil }
            state.cancelled = true
            defer { state.step = nil }
            return .some(state.step)
        }
        guard let step else { return false }
        step?.cancel()
        return true
    }

    /// Passes the wanted priority on until the step has it (only the thread that set `applying` calls this).
    private func relay() {
        while true {
            let next = state.withLock { state -> (WorkStep, WorkPriority)? in
                guard !state.cancelled, let step = state.step, state.applied != state.priority else {
                    state.applying = false
                    return nil
                }
                state.applied = state.priority
                return (step, state.priority)
            }
            guard let (step, priority) = next else { return }
            step.setPriority(priority)
        }
    }
}
