import Synchronization

/// Serialises changes to the dependency graph so the cycle check sees a stable graph. Taken before any node lock,
/// never while one is held.
let dependencyGraphLock = LockedValue<UInt64>(0)  // counts graph changes; a zero-sized value confuses TSan

extension WorkNode {
    /// Makes `self` wait on `dependency`. Throws on self-dependency, cycles and items already enqueued. With `owns`,
    /// `self` owns `dependency`: if `self` finishes first (it was cancelled) and nothing else needs `dependency`,
    /// `dependency` is cancelled too.
    func addDependency(_ dependency: WorkNode, policy: DependencyPolicy, typed: Bool, owns: Bool = false) throws(LanesError) {
        if dependency === self { throw .selfDependency(label) }
        var effects: [Effect] = []
        let result: Result<Void, LanesError> = dependencyGraphLock.withLock { changes in
            changes &+= 1
            // 1. Record the edge on the dependent first, so a dependency finishing meanwhile finds it.
            let recorded: Result<WorkPriority?, LanesError> = state.withLock { state in
                switch state.phase {
                case .idle: break
                case .finished where state.queue == nil: return .success(nil)  // cancelled before enqueue
                default: return .failure(.alreadyEnqueued(label))
                }
                if state.dependencies.edge(to: dependency) != nil { return .success(nil) }
                if !state.dependents.isEmpty, let path = cyclePath(to: dependency, dependents: state.dependents.nodes) {
                    return .failure(.cycle(path))
                }
                let level = state.lent.effective(own: state.ownPriority)
                state.dependencies.insert(Edge(node: dependency, policy: policy, typed: typed, owns: owns, lent: level))
                return .success(level)
            }
            guard case .success(let lentLevel?) = recorded else { return recorded.map { _ in () } }
            // 2. Register on the dependency, and lend it the dependent's priority in the same critical section; it
            // may have finished already.
            let finished: Outcome? = dependency.state.withLock { state in
                if let outcome = state.outcome { return outcome }
                state.dependents.append(Edge(node: self, policy: policy, typed: typed, owns: owns, lent: nil))
                dependency.adjustLent(from: nil, to: lentLevel, in: &state, into: &effects)
                return nil
            }
            if let finished {
                dependencyFinished(dependency, success: finished.isSuccess, into: &effects)
            }
            return .success(())
        }
        Effects.run(consume effects)
        try result.get()
    }

    /// Removes a plain edge; the item becomes ready if nothing else holds it.
    func removeDependency(_ dependency: WorkNode) throws(LanesError) {
        var effects: [Effect] = []
        let result: Result<Void, LanesError> = dependencyGraphLock.withLock { changes in
            changes &+= 1
            let removed: Result<Edge?, LanesError> = state.withLock { state in
                guard let edge = state.dependencies.edge(to: dependency) else { return .success(nil) }
                if edge.typed { return .failure(.typedDependency(dependency.label)) }
                _ = state.dependencies.remove(dependency)
                if state.dependencies.isEmpty, case .pending = state.phase, state.verdict == nil, let queue = state.queue {
                    effects.append(.becameReady(self, queue))
                }
                return .success(edge)
            }
            guard case .success(let edge?) = removed else { return removed.map { _ in () } }
            dependency.state.withLock { state in
                state.dependents.remove(self)
                // If an owner left earlier, this may have been the last dependent that needed it.
                dependency.cancelIfUnneeded(&state, into: &effects)
                dependency.check(state)
            }
            if edge.lent != nil { effects.append(.lend(node: dependency, from: edge.lent, to: nil)) }
            return .success(())
        }
        Effects.run(consume effects)
        try result.get()
    }

    /// Searches from `self` through the items that wait on it for `target`. A hit means `target` already waits on
    /// `self`, so `self` waiting on `target` would close a cycle. Returns the cycle as labels in "waits on" order.
    /// Called with the graph lock and `self`'s lock held; takes other nodes' locks one at a time.
    private func cyclePath(to target: WorkNode, dependents: [WorkNode]) -> [String]? {
        var parent: [ObjectIdentifier: WorkNode] = [:]
        var stack: [WorkNode] = []
        for dependent in dependents where parent[ObjectIdentifier(dependent)] == nil {
            parent[ObjectIdentifier(dependent)] = self
            stack.append(dependent)
        }
        while let node = stack.popLast() {
            if node === target {
                // target waits on ... waits on self; walk back to self.
                var path = [label, target.label]
                var current = target
                while let up = parent[ObjectIdentifier(current)], up !== self {
                    path.append(up.label)
                    current = up
                }
                path.append(label)
                return path
            }
            let next = node === self ? [] : node.state.withLock { $0.dependents.nodes }
            for child in next where parent[ObjectIdentifier(child)] == nil {
                parent[ObjectIdentifier(child)] = node
                stack.append(child)
            }
        }
        return nil
    }
}
