import Synchronization

extension NodeState {
    /// Checks a node's state (called under its lock at the end of its transitions, when
    /// ``InternalChecks/isEnabled``).
    func _checkInvariants(node: WorkNode) {
        func require(_ condition: Bool, _ rule: @autoclosure () -> String) {
            if !condition { InternalChecks.fail("item '\(node.label)' \(phase)", rule()) }
        }
        let hasBodyValue: Bool
        if case .none = body { hasBodyValue = false } else { hasBodyValue = true }
        require(hasBody == hasBodyValue, "hasBody mirrors the body")
        require((phase == .finished) == (outcome != nil), "finished exactly when it has an outcome")
        require(node.finishedFlag.load(ordering: .relaxed) == (phase == .finished), "finishedFlag mirrors the phase")
        require(node.cancelFlag.load(ordering: .relaxed) == cancelRequested, "cancelFlag mirrors cancelRequested")
        require(
            node.effectiveLevel.load(ordering: .relaxed) == lent.effective(own: ownPriority).rawValue
                || phase == .finished,
            "effectiveLevel mirrors the effective priority")
        // No rule on the lent counts' signs: they change by deltas (`.lend` effects) that may run out of order on
        // different threads (a cascade from one dependent overtaking another's), so a count can dip below zero for a
        // moment; the deltas commute, and the counts are right once every effect has run.
        if phase != .finished {
            let left = self.leftDependents
            require(left >= 0 && left <= dependents.count, "only waiting dependents can have left")
            require(
                !self.ownerLeft || isNeeded || cancelRequested,
                "an item an owner left is cancelled once nothing needs it")
        }
        switch phase {
        case .idle:
            require(queue == nil, "an idle item has no queue")
            require(hasBody, "an idle item holds its body")
        case .pending:
            require(queue != nil, "a pending item has a queue")
            require(hasBody, "a pending item holds its body")
        case .running:
            require(queue != nil, "a running item has a queue")
            require(!hasBody, "a running item's body moved to its runner")
            require(dependencies.isEmpty, "a running item waits for nothing")
        case .finished:
            require(!hasBody, "a finished item dropped its body")
            require(dependencies.isEmpty && dependents.isEmpty, "a finished item has no edges")
            require(
                self.cancelHandlers.isEmpty && self.completions.isEmpty && self.waiters.isEmpty,
                "a finished item owes no one")
            require(self.task == nil, "a finished item holds no task")
        }
    }
}

extension WorkNode {
    /// Checks the node's state if ``InternalChecks/isEnabled`` (call with its lock held).
    @inline(__always)
    func check(_ state: borrowing NodeState) {
        if InternalChecks.isEnabled { state._checkInvariants(node: self) }
    }

    /// Checks the node's invariants now (whether or not the switch is on); stops the process if one is broken.
    package func _checkInvariants() {
        state.withLock { $0._checkInvariants(node: self) }
    }
}
