import Lanes

/// One coalesced unit of work — a fetch, a decode, a processor chain — shared by every consumer that asks for its
/// key. It is cancelled only when its last consumer leaves, and its priority is the highest of its consumers',
/// passed on live to whatever step it is waiting on (see ``StageControl``).
final class Stage<Value: Sendable>: Sendable {
    let key: StageKey
    let control: StageControl
    private let state: LockedValue<StageState<Value>>
    private let onEnd: @Sendable (Stage<Value>, _ cancelled: Bool) -> Void

    init(key: StageKey, priority: WorkPriority, onEnd: @escaping @Sendable (Stage<Value>, _ cancelled: Bool) -> Void) {
        self.key = key
        self.control = StageControl(priority: priority)
        self.state = LockedValue(StageState(priority: priority))
        self.onEnd = onEnd
    }

    func add(
        priority: WorkPriority, isRequest: Bool, deliver: @escaping StageState<Value>.Deliver
    ) -> StageState<Value>.AddAction {
        state.withLock { $0.add(priority: priority, isRequest: isRequest, deliver: deliver) }
    }

    /// A consumer leaves; the last one cancels the stage.
    func remove(_ id: Int) {
        switch state.withLock({ $0.remove(id) }) {
        case .none: break
        case .lower(let priority): control.setPriority(priority)
        case .cancel:
            control.cancel()
            onEnd(self, true)
        }
    }

    func setPriority(_ priority: WorkPriority, of id: Int) {
        if let changed = state.withLock({ $0.setPriority(priority, of: id) }) {
            control.setPriority(changed)
        }
    }

    /// Finishes the stage and delivers `result` to every consumer (nothing happens if it was cancelled).
    func finish(_ result: Result<Value, any Error>) {
        let consumers = state.withLock { $0.finish(result) }
        guard !consumers.isEmpty else { return }
        onEnd(self, false)
        for deliver in consumers { deliver(result) }
    }

    /// Whether a request (not only downstream stages) consumes this stage.
    var servesRequests: Bool { state.withLock { $0.servesRequests } }

    /// The step a consumer holds: leaving, or changing its priority.
    func handle(for id: Int) -> StageStep {
        StageStep(cancel: { self.remove(id) }, setPriority: { self.setPriority($0, of: id) })
    }
}
