import Lanes

/// The stages of one kind in flight, by key: asking for a key joins its stage or creates (and starts) a new one.
final class StageTable<Value: Sendable>: Sendable {
    private let stages = LockedValue([StageKey: Stage<Value>]())
    private let onCancelled: @Sendable () -> Void

    /// A table whose cancelled stages (last consumer gone) are reported to `onCancelled`.
    init(onCancelled: @escaping @Sendable () -> Void = {}) {
        self.onCancelled = onCancelled
    }

    /// Joins the stage for `key` at `priority`, creating it and calling `start` (outside the lock) when there is
    /// none. `deliver` gets the stage's result once — synchronously if the stage has just finished. Returns the
    /// consumer's step (leave / change priority) and whether a new stage was created.
    @discardableResult
    func subscribe(
        _ key: StageKey, priority: WorkPriority, isRequest: Bool,
        start: (Stage<Value>) -> Void, deliver: @escaping StageState<Value>.Deliver
    ) -> (step: StageStep, created: Bool) {
        let (stage, action, created) = stages.withLock { stages -> (Stage<Value>, StageState<Value>.AddAction, Bool) in
            if let existing = stages[key] {
                let action = existing.add(priority: priority, isRequest: isRequest, deliver: deliver)
                if case .gone = action {} else { return (existing, action, false) }
            }
            let stage = Stage<Value>(key: key, priority: priority) { [weak self] ended, cancelled in
                self?.remove(ended, cancelled: cancelled)
            }
            stages[key] = stage
            return (stage, stage.add(priority: priority, isRequest: isRequest, deliver: deliver), true)
        }
        switch action {
        case .finished(let result):
            deliver(result)
            return (.done, false)
        case .gone:
            return (.done, false)  // unreachable: a fresh stage never reports gone
        case .added(let id, let raisedTo):
            if let raisedTo { stage.control.setPriority(raisedTo) }
            if created { start(stage) }
            return (stage.handle(for: id), created)
        }
    }

    /// The number of stages in flight.
    var count: Int { stages.withLock { $0.count } }

    /// The priority of the stage for `key`, if one is in flight.
    func priority(of key: StageKey) -> WorkPriority? {
        let stage = stages.withLock { $0[key] }
        return stage?.control.priority
    }

    private func remove(_ stage: Stage<Value>, cancelled: Bool) {
        if cancelled { onCancelled() }
        stages.withLock { stages in
            if stages[stage.key] === stage { stages[stage.key] = nil }
        }
    }
}
