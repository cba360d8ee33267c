import Synchronization

extension WorkQueue {
    // MARK: Internal transitions

    /// Runs `body` under the lock, then performs the action it built.
    func update(_ body: (inout QueueState, inout QueueAction) -> Void) {
        var action = QueueAction()
        locked { state in
            body(&state, &action)
            state.collectIdle(into: &action)
        }
        perform(action)
    }

    /// Runs `body` under the lock, then asks the executor for the runners the queue wants now.
    @inline(__always)
    func updateRequestingRunners(_ body: (inout QueueState) -> Void) {
        update { state, action in
            body(&state)
            state.requestRunners(into: &action)
        }
    }

    /// Takes the lock, moves the inbox into the buckets first, and refreshes the mirrors last.
    @inline(__always)
    func locked<Result: Sendable>(_ body: (inout QueueState) -> Result) -> Result {
        state.withLock { state in underLock(&state, body) }
    }

    /// `locked`, telling `body` whether another thread held the lock when this one asked for it (a runner takes a
    /// batch only then: see ``RunnerBatch``). A runner's `next` item (see ``RunnerBooks/next``) is listed first,
    /// before the inbox is admitted.
    @inline(__always)
    func lockedNotingContention<Result: Sendable>(
        listingFirst next: WorkNode?, _ body: (inout QueueState, _ contended: Bool) -> Result
    ) -> Result {
        state.withLockNotingContention { state, contended in
            underLock(&state, listingFirst: next) { body(&$0, contended) }
        }
    }

    /// What every acquisition of the queue lock does around its `body`.
    @inline(__always)
    private func underLock<Result: Sendable>(
        _ state: inout QueueState, listingFirst next: WorkNode? = nil, _ body: (inout QueueState) -> Result
    ) -> Result {
        if let next {
            if InternalChecks.isEnabled { _checkNext(next, state) }
            state.dependenciesFinished(next)
        }
        if !inbox.isEmpty {
            inbox.takeAll { node in
                // A node pushed while it waited for dependencies is admitted as waiting (which checks them again).
                let waiting = node.slot.waitingIndex.load(ordering: .relaxed) == QueueSlot.waitingInInbox
                if waiting { node.slot.waitingIndex.store(-1, ordering: .relaxed) }
                state.admit(node, ready: !waiting)
            }
        }
        let result = body(&state)
        // Mirrors are only written under the lock, so a relaxed read here sees their latest value; storing only
        // changes keeps the producers' cache line quiet (a runner that pops an item changes neither).
        if workersMirror.load(ordering: .relaxed) != state.workers {
            workersMirror.store(state.workers, ordering: .sequentiallyConsistent)
        }
        if limitMirror.load(ordering: .relaxed) != state.limit {
            limitMirror.store(state.limit, ordering: .relaxed)
        }
        // Kept only while a batch exists (it is refreshed in the acquisition that takes one): the rest of the
        // time it may stay high, and producers, who only raise it, then never write it.
        if !state.batches.open.isEmpty { refreshReadyTop(state) }
        let poppable = state.canPop
        if poppableMirror.load(ordering: .relaxed) != poppable {
            poppableMirror.store(poppable, ordering: .releasing)
        }
        if InternalChecks.isEnabled { _checkInvariants(state) }
        return result
    }

    /// Sets ``readyTopMirror`` to the buckets' most urgent level (under the lock). A producer that pushed into the
    /// inbox meanwhile raised it itself, or is seen here and the old value stays (both sides sequentially consistent).
    private func refreshReadyTop(_ state: borrowing QueueState) {
        let top = state.topBucketLevel
        let current = readyTopMirror.load(ordering: .relaxed)
        if top > current {
            readyTopMirror.max(top, ordering: .sequentiallyConsistent)
        } else if top < current {
            readyTopMirror.store(top, ordering: .sequentiallyConsistent)
            if !inbox.isEmpty { readyTopMirror.max(current, ordering: .sequentiallyConsistent) }
        }
    }

    /// What the queue's batches did (see ``RunnerBatch``): for tests and benchmarks.
    package var _batchCounts: BatchCounts { locked { $0.batches.counts } }

    /// Lets this queue's runners take batches when the lock was free too (tests: a batch then does not depend on a
    /// race for the lock).
    package func _batchWhenUncontended() { locked { $0.batches.whenUncontended = true } }

    /// A runner detached. If a producer pushed meanwhile and saw every runner attached, make sure one comes.
    func recheckInbox() {
        guard !inbox.isEmpty else { return }
        updateRequestingRunners { _ in }
    }

    @inline(__always)
    func perform(_ action: QueueAction) {
        // Most critical sections decide nothing: keep that case to three tests.
        guard action.runners > 0 || !action.idleWaiters.isEmpty else { return }
        for _ in 0..<action.runners { executor.schedule(WorkRunner(queue: self, priority: action.runnerPriority)) }
        // What `idle()` returns to has no finished node left behind on the retired stack.
        if !action.idleWaiters.isEmpty { releaseRetired() }
        for wake in action.idleWaiters { wake() }
    }

    /// Lists waiting members whose dependencies finished, in one critical section.
    func nodesBecameReady(_ nodes: some Sequence<WorkNode>) {
        updateRequestingRunners { state in
            for node in nodes { state.dependenciesFinished(node) }
        }
    }

    func nodeFinished(_ node: WorkNode, ran: Bool) {
        updateRequestingRunners { $0.finished(node, ran: ran, sync: node.isSync) }
    }

    func reprioritize(_ node: WorkNode) {
        update { state, action in
            state.reprioritize(node)
            // A speculative item promoted above the cap may start now.
            if state.speculative.below > 0 { state.requestRunners(into: &action) }
        }
    }
}
