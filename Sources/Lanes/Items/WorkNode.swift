import Synchronization

/// The shared, type-erased core of a work item. `WorkItem<Output>` is a typed handle on one of these. Not public:
/// Lanes' own modules (LanesTesting's stress) reach it through `package` access.
@usableFromInline
package final class WorkNode: Sendable {
    private static let ids = Atomic<UInt64>(0)

    let id: UInt64
    /// The label the item was given; items without one are called "item-N", spelled out only when asked for.
    let givenLabel: String?
    let isBarrier: Bool
    let isSync: Bool
    /// Mirrors `state.cancelRequested` so long loops can poll it without taking the lock.
    let cancelFlag = Atomic<Bool>(false)
    /// Set once the node has finished (under its lock); lets a queue skip admitting a node cancelled meanwhile.
    let finishedFlag = Atomic<Bool>(false)
    /// The next node in a queue's ready inbox (see `ReadyInbox`).
    let inboxNext = Atomic<Unmanaged<WorkNode>?>(nil)
    /// The queue the node was enqueued on, unretained: `state.queue` holds it strongly from the same moment and never
    /// lets go, so it lives as long as the node. Running bodies reach their queue through it without the lock.
    let queueRef = Atomic<Unmanaged<WorkQueue>?>(nil)
    /// Mirrors the effective priority (raw value) for the queue, which never takes a node lock.
    let effectiveLevel: Atomic<Int>
    /// Progress as the bit pattern of a Double in 0...1.
    let progressBits = Atomic<UInt64>(0)
    let state: Lock<NodeState>
    /// Bookkeeping owned by the queue the node is in; only touched while holding that queue's lock.
    let slot = QueueSlot()

    /// With `pendingOn`, the node starts pending on that queue: the caller must then hand it to
    /// ``WorkQueue/admitFresh(_:)`` (no one else has seen it, so it skips the idle phase and the lock that leaves it).
    @usableFromInline
    init(label: String?, priority: WorkPriority, barrier: Bool, isSync: Bool, body: Body, pendingOn queue: WorkQueue? = nil) {
        let id = Self.ids.add(1, ordering: .relaxed).newValue
        self.id = id
        self.givenLabel = label
        self.isBarrier = barrier
        // Passed in rather than read from `body`: testing an existential-holding enum copies it.
        self.isSync = isSync
        effectiveLevel = Atomic(priority.rawValue)
        state = Lock(NodeState(body: body, priority: priority, queue: queue))
        if let queue { queueRef.store(Unmanaged.passUnretained(queue), ordering: .relaxed) }
    }

    /// The queue of a node that was enqueued (a running node always was).
    var runningQueue: WorkQueue { queueRef.load(ordering: .acquiring)!.takeUnretainedValue() }

    /// Whether the node's queue cancelled all its items since the node was admitted (false if not enqueued).
    var queueCancelledAll: Bool {
        guard let queue = queueRef.load(ordering: .acquiring) else { return false }
        return queue._withUnsafeGuaranteedRef { $0.cancelledAll(since: slot.epoch.load(ordering: .relaxed)) }
    }

    /// The item's label (given, or "item-N").
    var label: String { givenLabel ?? "item-\(id)" }

    // MARK: Observing

    /// Whether the node was cancelled, by itself or by its queue's cancel-all.
    ///
    /// A finished item reports what it finished as: it is cancelled exactly when its state reads `.cancelled` (or
    /// it was cancelled and then timed out). The answer is decided under the lock from the state alone: the flag read
    /// first is only a shortcut, and may be stale by the time the lock is taken (a cancel-all's sweep can finish the
    /// item in between).
    var isCancelled: Bool {
        if cancelFlag.load(ordering: .acquiring) { return true }
        return state.withLock { state in
            if state.cancelRequested { return true }
            if state.isFinished { return state.publicState == .cancelled }
            return queueCancelledAll
        }
    }

    var publicState: WorkState {
        state.withLock { state in
            if state.phase == .pending || state.phase == .running, queueCancelledAll { return .cancelled }
            return state.publicState
        }
    }

    // MARK: Enqueueing

    enum Admission { case ready, waiting, finished }

    /// Moves an idle node to pending on `queue`, in one critical section. The caller then admits it to the queue
    /// (ready or waiting) unless it finished: at once (a failed dependency decided its fate while it was idle), or
    /// before (it was cancelled before it was ever enqueued).
    func enqueue(on queue: WorkQueue, into effects: inout [Effect]) throws(LanesError) -> Admission {
        let result: Result<Admission, LanesError> = state.withLock { state in
            switch state.phase {
            case .idle:
                break
            case .finished:
                return state.queue == nil ? .success(.finished) : .failure(.alreadyEnqueued(label))
            case .pending, .running:
                return .failure(.alreadyEnqueued(label))
            }
            state.phase = .pending
            state.queue = queue
            queueRef.store(Unmanaged.passUnretained(queue), ordering: .releasing)
            if WorkEvents.isObserved { effects.append(.event(.added, self, queue, .pending)) }
            defer { check(state) }
            if let verdict = state.verdict {
                state.finish(verdict.outcome, node: self, into: &effects)
                return .success(.finished)
            }
            return .success(state.dependencies.isEmpty ? .ready : .waiting)
        }
        return try result.get()
    }

    /// Whether a pending node has nothing holding it (checked by the queue when it admits a waiting node).
    var isReadyToRun: Bool {
        state.withLock { state in
            guard case .pending = state.phase else { return false }
            return state.dependencies.isEmpty && state.verdict == nil
        }
    }

    // MARK: Running

    /// Takes the body if the node is still pending and free of dependencies; nil when it went stale. The body moves
    /// to the caller (no copy): the node no longer holds it, and the caller drops it once it has run.
    ///
    /// A node the runner took before its queue's cancel-all and starts after it does not run: cancel-all promises
    /// that no item pending when it returns starts its body, and a taken node is still pending. It finishes
    /// cancelled here, unrun (the runner gives its slot back as for any stale node).
    func start() -> Body? {
        #if DEBUG || LANES_INTERNAL_CHECKS
        runningQueue.debugHooks.taken(self)
        #endif
        var effects: [Effect] = []
        let body = state.withLock { state -> Body? in
            guard case .pending = state.phase, state.dependencies.isEmpty, !state.cancelRequested else { return nil }
            defer { check(state) }
            if queueCancelledAll {
                state.cancelRequested = true
                cancelFlag.store(true, ordering: .releasing)
                state.finish(.cancelled, node: self, into: &effects)
                if let queue = state.queue { effects.append(.finishedUnrun(self, queue)) }
                return nil
            }
            state.phase = .running
            state.hasBody = false
            return state.body.take()
        }
        Effects.run(consume effects)
        return body
    }

    func setTask(_ task: Task<Void, Never>) {
        let cancelNow = state.withLock { state -> Bool in
            guard case .running = state.phase else { return false }
            state.task = task
            return state.cancelRequested
        }
        if cancelNow { task.cancel() }
    }

    /// The body returned (or threw, or called its completion). Returns false if it had already finished.
    @discardableResult
    func complete(_ result: consuming Result<any Sendable, any Error>) -> Bool {
        switch consume result {
        case .success(let value): return complete(success: value)
        case .failure(let error): return completeRunning { .failure(error) }
        }
    }

    /// ``complete(_:)`` for a value, on the runner's path: the value moves into the state without an outcome enum
    /// being built and copied around it.
    @discardableResult
    func complete(success value: consuming any Sendable) -> Bool {
        // Optional so the critical section can move it into the state rather than copy it.
        var pending: (any Sendable)? = consume value
        return completeRunning { .success(pending.take()!) }
    }

    /// A synchronous body on `runner`'s run loop returned `value`: finishes the node like ``complete(success:)`` and
    /// returns the one item of `runner` this made ready, unlisted, for the run loop's next decision to list (see
    /// ``RunnerBooks/next``); nil when it made none ready, or several, or listed it itself.
    func completeOnRunner(success value: consuming any Sendable, runner: WorkQueue) -> WorkNode? {
        var pending: (any Sendable)? = consume value
        var next: WorkNode?
        completeRunning(runner: runner, next: &next) { .success(pending.take()!) }
        return next
    }

    /// ``completeOnRunner(success:runner:)`` for a body that threw.
    func completeOnRunner(failure error: any Error, runner: WorkQueue) -> WorkNode? {
        var next: WorkNode?
        completeRunning(runner: runner, next: &next) { .failure(error) }
        return next
    }

    /// Finishes a running node with the outcome `make` builds (under the lock; it only wraps a value), or as
    /// cancelled if it was cancelled meanwhile.
    @inline(__always)
    private func completeRunning(_ make: () -> Outcome) -> Bool {
        var next: WorkNode?
        return completeRunning(runner: nil, next: &next, make)
    }

    @inline(__always)
    @discardableResult
    private func completeRunning(runner: WorkQueue?, next: inout WorkNode?, _ make: () -> Outcome) -> Bool {
        var effects: [Effect] = []
        let done = state.withLock { state -> Bool in
            guard case .running = state.phase else { return false }
            let cancelled = state.cancelRequested || queueCancelledAll
            if cancelled, !state.cancelRequested {
                // Cancelled by a cancel-all it learnt of through the epoch: record it, so `isCancelled` agrees with
                // the state without asking the queue again.
                state.cancelRequested = true
                cancelFlag.store(true, ordering: .releasing)
            }
            state.finish(cancelled ? .cancelled : make(), node: self, into: &effects)
            check(state)
            return true
        }
        next = Effects.run(consume effects, runner: runner)
        return done
    }

    // MARK: Cancellation

    func cancel() {
        var effects: [Effect] = []
        cancel(into: &effects)
        Effects.run(consume effects)
    }

    /// Cancels the node, collecting effects. When `batching` is the node's queue and the node finishes without
    /// running, the queue's accounting is left to the caller (cancel-all does it in one critical section) and the
    /// result is true. `phase`, if given, gets the phase the node was in when this call cancelled it (untouched if
    /// it was cancelled or finished already).
    @discardableResult
    func cancel(
        into effects: inout [Effect], batching: WorkQueue? = nil, phase: UnsafeMutablePointer<NodeState.Phase>? = nil
    ) -> Bool {
        state.withLock { state -> Bool in
            guard !state.cancelRequested, !state.isFinished else { return false }
            defer { check(state) }
            phase?.pointee = state.phase
            return cancel(&state, into: &effects, batching: batching)
        }
    }

    /// The cancel transition, with the node's lock held and the node neither cancelled nor finished.
    func cancel(_ state: inout NodeState, into effects: inout [Effect], batching: WorkQueue? = nil) -> Bool {
        state.cancelRequested = true
        cancelFlag.store(true, ordering: .releasing)
        switch state.phase {
        case .idle:
            state.finish(.cancelled, node: self, into: &effects)
        case .pending:
            state.finish(.cancelled, node: self, into: &effects)
            if let queue = state.queue {
                if queue === batching { return true }
                effects.append(.finishedUnrun(self, queue))
            }
        case .running:
            if !state.cancelHandlers.isEmpty {
                effects.append(.runHandlers(state.cancelHandlers))
                state.cancelHandlers = []
            }
            if let task = state.task { effects.append(.cancelTask(task)) }
            if WorkEvents.isObserved { effects.append(.event(.cancelled, self, state.queue, .running)) }
        case .finished:
            break
        }
        return false
    }

    /// Cancels the node like ``cancel()`` and tells whether this call finished it before its body started (it was
    /// idle or pending): then its body never runs. For the stress test, which must know it exactly.
    package func _cancelBeforeStart() -> Bool {
        var effects: [Effect] = []
        var phase = NodeState.Phase.finished
        cancel(into: &effects, phase: &phase)
        Effects.run(consume effects)
        return phase == .idle || phase == .pending
    }

    /// Calls `handler` with the outcome when the node finishes, at once if it has.
    func onFinish(_ handler: @escaping @Sendable (Outcome) -> Void) {
        let done = state.withLock { state -> Outcome? in
            if let outcome = state.outcome { return outcome }
            state.completions.append(handler)
            return nil
        }
        if let done { handler(done) }
    }

    /// The value of a node that succeeded (a typed edge's input). Throws if it did not succeed.
    func successValue<Value: Sendable>(as _: Value.Type) throws -> Value {
        guard let outcome = state.withLock({ $0.outcome }) else { throw LanesError.dependencyFailed(item: "?", dependency: label) }
        return try outcome.typed(Value.self, label: label).get()
    }

    /// Registers a handler that runs once when the node is cancelled, at once if it already is.
    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        // A running synchronous item is not in its queue's running list (a cancel-all reaches it through the epoch),
        // so its handlers are registered under the queue's lock, which puts it there: a cancel-all then either sees
        // it or has already happened (and the handler runs now).
        // Other items need no queue lock (a cancel-all that already came runs the handler now, as its sweep would).
        let queue = isSync ? state.withLock { $0.phase == .running ? $0.queue : nil } : nil
        let runNow =
            queue?.locked { queueState in addCancelHandler(handler) { queueState.track(self) } }
            ?? addCancelHandler(handler) {}
        if runNow { handler() }
    }

    /// Registers `handler` and calls `running` (under the node's lock) if the node runs; true when the node was
    /// cancelled already (the caller runs the handler), false when it finished uncancelled.
    private func addCancelHandler(_ handler: @escaping @Sendable () -> Void, running: () -> Void) -> Bool {
        state.withLock { state -> Bool in
            if state.cancelRequested { return true }
            if state.isFinished { return false }
            if queueCancelledAll { return true }
            state.cancelHandlers.append(handler)
            if case .running = state.phase { running() }
            return false
        }
    }

    // MARK: Dependencies (called by the effect runner)

    func dependencyFinished(_ dependency: WorkNode, success: Bool, into effects: inout [Effect]) {
        // A `.fail` edge passes the dependency's error on: read it first (it has finished; no lock is nested).
        let error = success ? nil : dependency.state.withLock { $0.outcome }?.error(label: dependency.label)
        state.withLock { state in
            guard let edge = state.dependencies.remove(dependency) else { return }
            defer { check(state) }
            if !success {
                switch edge.policy {
                case .run: break
                case .cancel:
                    if state.verdict == nil { state.verdict = .cancelled }
                    state.cancelRequested = true
                    cancelFlag.store(true, ordering: .releasing)
                case .skip:
                    if state.verdict == nil { state.verdict = .skipped(dependency: dependency.label) }
                case .fail:
                    if state.verdict == nil { state.verdict = .failed(error ?? CancellationError()) }
                }
            }
            switch state.phase {
            case .pending:
                if let verdict = state.verdict {
                    state.finish(verdict.outcome, node: self, into: &effects)
                    if let queue = state.queue { effects.append(.finishedUnrun(self, queue)) }
                } else if state.dependencies.isEmpty, let queue = state.queue {
                    effects.append(.becameReady(self, queue))
                }
            case .idle:
                if let verdict = state.verdict, case .cancelled = verdict {
                    state.finish(verdict.outcome, node: self, into: &effects)
                }
            case .running, .finished:
                break
            }
        }
    }

    // MARK: Priority

    var priority: WorkPriority {
        get { state.withLock { $0.ownPriority } }
        set {
            var effects: [Effect] = []
            state.withLock { state in
                guard !state.isFinished else { return }
                let old = state.lent.effective(own: state.ownPriority)
                state.ownPriority = newValue
                let new = state.lent.effective(own: newValue)
                effectiveLevel.store(new.rawValue, ordering: .relaxed)
                state.priorityChanged(from: old, to: new, node: self, into: &effects)
                check(state)
            }
            Effects.run(consume effects)
        }
    }

    var effectivePriority: WorkPriority { WorkPriority(rawValue: effectiveLevel.load(ordering: .relaxed))! }

    /// Registers a priority handler and passes the current priority on (see `WorkContext.onPriorityChange`).
    func onPriorityChange(since startedAt: WorkPriority, _ handler: @escaping @Sendable (WorkPriority) -> Void) {
        let relays = state.withLock { state -> Bool in
            guard !state.isFinished else { return false }
            let rare = state.rareBox()
            rare.priorityHandlers.append(handler)
            guard !rare.relaying else {
                rare.relayedPriority = nil   // the relaying thread passes the latest on to the new handler too
                return false
            }
            rare.relayedPriority = startedAt
            guard state.lent.effective(own: state.ownPriority) != startedAt else { return false }
            rare.relaying = true
            return true
        }
        if relays { relayPriority() }
    }

    /// Passes the effective priority on to the priority handlers until they have the latest (only the thread that
    /// set `relaying` calls this, so calls never overtake each other).
    func relayPriority() {
        while true {
            let next = state.withLock { state -> ([@Sendable (WorkPriority) -> Void], WorkPriority)? in
                guard let rare = state.rare else { return nil }
                let current = state.lent.effective(own: state.ownPriority)
                guard !state.isFinished, rare.relayedPriority != current else {
                    rare.relaying = false
                    return nil
                }
                rare.relayedPriority = current
                return (rare.priorityHandlers, current)
            }
            guard let (handlers, priority) = next else { return }
            for handler in handlers { handler(priority) }
        }
    }

    func adjustLent(from old: WorkPriority?, to new: WorkPriority?, into effects: inout [Effect]) {
        state.withLock { state in
            guard !state.isFinished else { return }
            adjustLent(from: old, to: new, in: &state, into: &effects)
            check(state)
        }
    }

    /// `adjustLent(from:to:into:)` with the node's lock held and the node unfinished.
    func adjustLent(from old: WorkPriority?, to new: WorkPriority?, in state: inout NodeState, into effects: inout [Effect]) {
        let own = state.ownPriority
        let before = state.lent.effective(own: own)
        if let old { state.lent[old] -= 1 }
        if let new { state.lent[new] += 1 }
        let after = state.lent.effective(own: own)
        guard after != before else { return }
        effectiveLevel.store(after.rawValue, ordering: .relaxed)
        state.priorityChanged(from: before, to: after, node: self, into: &effects)
    }
}

/// Per-node bookkeeping owned by a queue. Each field is only read or written while that queue's lock is held;
/// they are atomics only so the node can be shared between threads without `@unchecked Sendable`.
struct QueueSlot: ~Copyable, Sendable {
    /// Bumped whenever the node's entry in a ready bucket goes stale (moved, cancelled).
    let generation = Atomic<UInt32>(0)
    /// The bucket level of the live entry, or -1 when the node has no live entry.
    let level = Atomic<Int>(-1)
    /// The barrier segment the node belongs to.
    let segment = Atomic<Int>(0)
    /// The queue's cancel-all epoch when the node was admitted.
    let epoch = Atomic<UInt64>(0)
    /// Whether the node is admitted and unfinished.
    let member = Atomic<Bool>(false)
    /// The node's index in the queue's running list, or -1.
    let runningIndex = Atomic<Int>(-1)
    /// The node's index in the queue's waiting list, or -1 (``waitingInInbox`` while it waits in the inbox).
    let waitingIndex = Atomic<Int>(-1)
    /// Marks a node pushed to the inbox while it waited for dependencies: the inbox's taker admits it as waiting.
    static let waitingInInbox = -2
}
