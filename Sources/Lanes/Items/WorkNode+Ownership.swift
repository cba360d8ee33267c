/// Consumers own their producers: when the last thing that needs an item goes away after an owner left, the item is
/// cancelled (and, through the same rule, what it consumed). See "Ownership" in the Internals article.
extension WorkNode {
    /// A dependent finished before this node (it was cancelled or skipped while it waited): take back its loan,
    /// count it as gone, and cancel this node if the dependent owned it and nothing needs it any more.
    ///
    /// Runs under the graph lock: `addDependency` registers an edge on the dependent before it appends it here, so
    /// without the lock a dependent cancelled in between could be counted as gone before its edge arrived.
    func dependentLeft(lent: WorkPriority?, owns: Bool, into effects: inout [Effect]) {
        dependencyGraphLock.withLock { changes in
            changes &+= 1
            state.withLock { state in
                guard !state.isFinished else { return }
                defer { check(state) }
                if lent != nil { adjustLent(from: lent, to: nil, in: &state, into: &effects) }
                state.leftDependents += 1
                if owns { state.ownerLeft = true }
                cancelIfUnneeded(&state, into: &effects)
            }
        }
    }

    /// Cancels the node (with its lock held) if an owner left or `always`, and nothing needs it: no dependent that
    /// has not left, no awaiting task, no `keep()`.
    func cancelIfUnneeded(_ state: inout NodeState, always: Bool = false, into effects: inout [Effect]) {
        guard always || state.ownerLeft, !state.cancelRequested, !state.isFinished, !state.isNeeded else { return }
        _ = cancel(&state, into: &effects)
    }

    /// Marks the node kept: it runs to completion though every consumer that owned it is cancelled.
    func keep() {
        state.withLock { state in
            guard !state.isFinished else { return }
            state.kept = true
            check(state)
        }
    }

    /// Whether the node was kept with `keep()` (false once it finished).
    var isKept: Bool { state.withLock { $0.kept } }
}
