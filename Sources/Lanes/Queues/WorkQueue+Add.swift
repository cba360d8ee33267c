import Synchronization

extension WorkQueue {
    /// Enqueues an item created on its own (after its dependencies were added).
    /// - Throws: ``LanesError/alreadyEnqueued(_:)`` if it is in a queue already. Enqueueing an item that was
    ///   cancelled before it was ever enqueued does nothing.
    ///
    /// ```swift
    /// let item = WorkItem(label: "parse") { _ in parse(data) }
    /// try item.addDependency(download)
    /// try queue.enqueue(item)
    /// ```
    public func enqueue<Output>(_ item: WorkItem<Output>) throws(LanesError) {
        try enqueue(node: item.node)
    }

    func enqueue(node: WorkNode) throws(LanesError) {
        var effects: [Effect] = []
        let admission = try node.enqueue(on: self, into: &effects)
        switch admission {
        case .ready:
            pushReady(node)
        case .waiting:
            pushWaiting(node)
        case .finished:
            break
        }
        Effects.run(consume effects)
    }

    /// Admits a node made pending on this queue (``WorkNode/init(label:priority:barrier:isSync:body:pendingOn:)``),
    /// ready at once: it has no dependencies and no one else has seen it.
    @usableFromInline
    func admitFresh(_ node: WorkNode) {
        if WorkEvents.isObserved { WorkEvents.emit(.added, node: node, queue: self, state: .pending) }
        pushReady(node)
    }

    private func pushReady(_ node: WorkNode) {
        releaseRetired()
        if turnPerItem {
            // Admitted and given its turn in one critical section, the turn posted before this returns: through the
            // inbox, another thread could admit it and post its turn after the caller's next main-queue block.
            updateRequestingRunners { $0.admit(node, ready: true) }
            return
        }
        // Tag it with the current cancel-all epoch; admission re-tags it. (A cancel-all racing with this push may
        // briefly make it look cancelled before it is admitted and runs: it was added concurrently.)
        node.slot.epoch.store(cancelEpoch.load(ordering: .acquiring), ordering: .relaxed)
        inbox.push(node)
        let level = node.effectiveLevel.load(ordering: .relaxed)
        if readyTopMirror.load(ordering: .sequentiallyConsistent) < level {
            readyTopMirror.max(level, ordering: .sequentiallyConsistent)
        }
        // Every runner the limit allows is attached, or one is lingering: one of them will take it from the inbox.
        if workersMirror.load(ordering: .sequentiallyConsistent) < limitMirror.load(ordering: .relaxed),
            lingering.load(ordering: .sequentiallyConsistent) == 0
        {
            updateRequestingRunners { _ in }
        }
    }

    /// Admits a node that waits for dependencies through the inbox too, so a producer adding a chain or a fan-out
    /// takes no queue lock per item. The lock's next holder admits it, checking then whether its dependencies finished
    /// meanwhile (their `becameReady` takes the lock, which admits the inbox first). One that finished between the
    /// enqueue and the push is seen here: its runner is asked for at once.
    private func pushWaiting(_ node: WorkNode) {
        releaseRetired()
        if turnPerItem {
            updateRequestingRunners { $0.admit(node, ready: false) }
            return
        }
        node.slot.waitingIndex.store(QueueSlot.waitingInInbox, ordering: .relaxed)
        node.slot.epoch.store(cancelEpoch.load(ordering: .acquiring), ordering: .relaxed)
        inbox.push(node)
        if node.isReadyToRun, lingering.load(ordering: .sequentiallyConsistent) == 0 {
            updateRequestingRunners { _ in }
        }
    }

    /// Gives a fresh item its plain dependencies, enqueues it here and returns it.
    @usableFromInline
    func make<Output>(
        _ item: WorkItem<Output>, after dependencies: [any WorkDependency] = [], policy: DependencyPolicy = .run
    ) -> WorkItem<Output> {
        for dependency in dependencies {
            // A fresh item has no dependents, so no cycle is possible, and it is not enqueued yet.
            try? item.node.addDependency(dependency._workDependency.node, policy: policy, typed: false)
        }
        try? enqueue(node: item.node)
        return item
    }

    /// Adds a synchronous body and returns its handle.
    /// - Parameters:
    ///   - label: shown in events, traces and errors.
    ///   - priority: the item's own priority.
    ///   - dependencies: items that must finish first ("after").
    ///   - policy: what to do if one of them fails or is cancelled.
    ///   - body: the work; it checks `ctx.isCancelled` in long loops.
    ///
    /// ```swift
    /// let sum = queue.add(label: "sum") { _ in numbers.reduce(0, +) }
    /// ```
    @discardableResult
    @inlinable  // specialised by the caller, like `WorkItem.init`
    public func add<Output>(
        label: String? = nil, priority: WorkPriority = .normal, after dependencies: [any WorkDependency] = [],
        policy: DependencyPolicy = .run, _ body: @escaping @Sendable (WorkContext) throws -> Output
    ) -> WorkItem<Output> {
        if dependencies.isEmpty {
            let node = WorkNode(
                label: label, priority: priority, barrier: false, isSync: true, body: .sync(TypedSyncBody(body: body)),
                pendingOn: self)
            admitFresh(node)
            return WorkItem(node: node)
        }
        return make(WorkItem(label: label, priority: priority, body), after: dependencies, policy: policy)
    }

    /// Adds an `async` body and returns its handle.
    ///
    /// ```swift
    /// let page = queue.add(label: "load") { ctx in try await loadPage() }
    /// ```
    @discardableResult
    public func add<Output>(
        label: String? = nil, priority: WorkPriority = .normal, after dependencies: [any WorkDependency] = [],
        policy: DependencyPolicy = .run, _ body: @escaping @Sendable (WorkContext) async throws -> Output
    ) -> WorkItem<Output> {
        make(WorkItem(label: label, priority: priority, body), after: dependencies, policy: policy)
    }

    /// Adds a callback-style body that finishes later by calling `finish` once.
    ///
    /// ```swift
    /// queue.add(label: "timer", callback: { ctx, finish in
    ///     DispatchQueue.global().asyncAfter(deadline: .now() + 1) { finish(.success(())) }
    /// })
    /// ```
    @discardableResult
    public func add<Output>(
        label: String? = nil, priority: WorkPriority = .normal, after dependencies: [any WorkDependency] = [],
        policy: DependencyPolicy = .run,
        callback body: @escaping @Sendable (WorkContext, _ finish: @escaping @Sendable (Result<Output, any Error>) -> Void) -> Void
    ) -> WorkItem<Output> {
        make(WorkItem(label: label, priority: priority, callback: body), after: dependencies, policy: policy)
    }

    /// Adds a body that consumes the output of `input` (a typed edge: download → filter), across queues.
    ///
    /// The new item owns `input`: cancelling it cancels `input` too when nothing else needs `input` (no other
    /// dependent, no task awaiting it, no ``WorkItem/keep()``), through the whole chain, so one handle on the last
    /// step is all a cell keeps.
    ///
    /// ```swift
    /// let data = network.add(label: "download") { ctx in try fetch(url, ctx) }
    /// let image = filters.add(consuming: data, label: "tilt-shift") { bytes, ctx in try tiltShift(bytes, ctx) }
    /// image.cancel()   // the download stops too
    /// ```
    @discardableResult
    public func add<Input, Output>(
        consuming input: WorkItem<Input>, policy: InputPolicy = .cancel, label: String? = nil,
        priority: WorkPriority = .normal, _ body: @escaping @Sendable (Input, WorkContext) throws -> Output
    ) -> WorkItem<Output> {
        make(WorkItem(consuming: input, policy: policy, label: label, priority: priority, body))
    }

    /// The async form of ``add(consuming:policy:label:priority:_:)``.
    @discardableResult
    public func add<Input, Output>(
        consuming input: WorkItem<Input>, policy: InputPolicy = .cancel, label: String? = nil,
        priority: WorkPriority = .normal, _ body: @escaping @Sendable (Input, WorkContext) async throws -> Output
    ) -> WorkItem<Output> {
        make(WorkItem(consuming: input, policy: policy, label: label, priority: priority, body))
    }

    /// The callback form of `add(consuming:policy:label:priority:_:)`: the body starts work on `input`'s output and
    /// calls `finish` once; the item holds its slot until then.
    ///
    /// ```swift
    /// let upload = network.add(consuming: compress, callback: { (data: Data, ctx: WorkContext, finish) in
    ///     DispatchQueue.global().async { finish(.success(data.count)) }   // a transfer that calls back
    /// })
    /// ```
    @discardableResult
    public func add<Input, Output>(
        consuming input: WorkItem<Input>, policy: InputPolicy = .cancel, label: String? = nil,
        priority: WorkPriority = .normal,
        callback body: @escaping @Sendable (Input, WorkContext, _ finish: @escaping @Sendable (Result<Output, any Error>) -> Void) -> Void
    ) -> WorkItem<Output> {
        make(WorkItem(consuming: input, policy: policy, label: label, priority: priority, callback: body))
    }

    /// Adds a barrier: it runs alone, after every item added before it has finished and before any item added
    /// after it starts.
    ///
    /// ```swift
    /// queue.addBarrier(label: "snapshot") { _ in store.snapshot() }
    /// ```
    @discardableResult
    public func addBarrier<Output>(
        label: String? = nil, priority: WorkPriority = .normal, _ body: @escaping @Sendable (WorkContext) throws -> Output
    ) -> WorkItem<Output> {
        let node = WorkNode(label: label, priority: priority, barrier: true, isSync: true, body: .sync(TypedSyncBody(body: body)))
        try? enqueue(node: node)
        return WorkItem(node: node)
    }
}
