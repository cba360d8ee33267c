import Lanes

/// A way to steer one step of a stage from outside: cancel it, change its priority. A step is whatever the stage is
/// waiting on now: an upstream stage, a memory-budget request, a queued or running work item, a transfer.
struct StageStep: Sendable {
    /// Cancels the step (idempotent).
    let cancel: @Sendable () -> Void
    /// Changes the step's priority, live.
    let setPriority: @Sendable (WorkPriority) -> Void

    /// A step that cannot be steered (it has already finished).
    static let done = StageStep(cancel: {}, setPriority: { _ in })

    /// Steers a work item: cancelling it, re-prioritising it in its queue.
    init<Output>(_ item: WorkItem<Output>) {
        self.cancel = { item.cancel() }
        self.setPriority = { item.priority = $0 }
    }

    init(cancel: @escaping @Sendable () -> Void, setPriority: @escaping @Sendable (WorkPriority) -> Void) {
        self.cancel = cancel
        self.setPriority = setPriority
    }
}

/// The steering wheel of one stage: its current priority, whether it was cancelled, and the step in progress.
///
/// Steps advance in order (upstream → budget → work); a step reported late (its successor may already be installed
/// when a callback fired synchronously) is ignored rather than allowed to replace a later one.
final class StageControl: Sendable {
    private struct State: Sendable {
        var priority: WorkPriority
        var cancelled = false
        var step: StageStep?
        var ordinal = -1
    }

    private let state: LockedValue<State>

    init(priority: WorkPriority) {
        state = LockedValue(State(priority: priority))
    }

    /// The highest priority of the stage's consumers.
    var priority: WorkPriority { state.withLock { $0.priority } }

    /// Whether the stage was cancelled (its last consumer left).
    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Makes `step` (the `ordinal`-th of the stage) the one in progress. If the stage was cancelled meanwhile the step
    /// is cancelled at once; if its priority changed since `startedAt`, the step gets the new one.
    func install(_ step: StageStep, ordinal: Int, startedAt: WorkPriority) {
        enum Action { case cancel, reprioritise(WorkPriority), none }
        let action = state.withLock { state -> Action in
            if state.cancelled { return .cancel }
            guard ordinal > state.ordinal else { return .none }
            state.step = step
            state.ordinal = ordinal
            return state.priority == startedAt ? .none : .reprioritise(state.priority)
        }
        switch action {
        case .cancel: step.cancel()
        case .reprioritise(let priority): step.setPriority(priority)
        case .none: break
        }
    }

    /// Cancels the stage and the step in progress (idempotent).
    func cancel() {
        let step = state.withLock { state -> StageStep? in
            guard !state.cancelled else { return nil }
            state.cancelled = true
            defer { state.step = nil }
            return state.step
        }
        step?.cancel()
    }

    /// Changes the stage's priority and passes it on to the step in progress.
    func setPriority(_ priority: WorkPriority) {
        let step = state.withLock { state -> StageStep? in
            guard !state.cancelled, state.priority != priority else { return nil }
            state.priority = priority
            return state.step
        }
        step?.setPriority(priority)
    }
}
