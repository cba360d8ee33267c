import Synchronization
/// A handle on a unit of work that produces an `Output`: cancel it, re-prioritise it, await its value, or get a
/// callback on the queue of your choice. Handles are cheap values; copies refer to the same item.
///
/// ```swift
/// let download = WorkItem(label: "download") { ctx in try fetch(url, ctx) }
/// let tilt = WorkItem(consuming: download, label: "tilt-shift") { data, ctx in try tiltShift(data, ctx) }
/// try network.enqueue(download)
/// try filters.enqueue(tilt)
/// tilt.onMainCompletion { result in cell.show(result) }   // cell is @MainActor
/// tilt.cancel()   // cancels the download too, unless something else needs it
/// ```
public struct WorkItem<Output: Sendable>: Sendable, Hashable, WorkDependency {
    @usableFromInline let node: WorkNode

    @usableFromInline init(node: WorkNode) { self.node = node }

    /// Creates an item with a synchronous body; enqueue it with ``WorkQueue/enqueue(_:)``.
    // Inlinable so that the caller's module specialises it: the typed body's metadata is then looked up once per
    // call site instead of per item.
    @inlinable
    public init(
        label: String? = nil, priority: WorkPriority = .normal,
        _ body: @escaping @Sendable (WorkContext) throws -> Output
    ) {
        node = WorkNode(label: label, priority: priority, barrier: false, isSync: true, body: .sync(TypedSyncBody(body: body)))
    }

    /// Creates an item with an `async` body. Cancelling the item cancels the Swift task running it.
    public init(
        label: String? = nil, priority: WorkPriority = .normal,
        _ body: @escaping @Sendable (WorkContext) async throws -> Output
    ) {
        node = WorkNode(label: label, priority: priority, barrier: false, isSync: false, body: .async { try await body($0) })
    }

    /// Creates an item whose body starts work and finishes later by calling `finish` once (what an
    /// asynchronous `Operation` subclass around a network task does). The item holds its slot in the queue until then.
    ///
    /// ```swift
    /// let fetch = WorkItem<Data>(label: "fetch") { ctx, finish in
    ///     let task = session.dataTask(with: url) { data, _, error in
    ///         finish(data.map(Result.success) ?? .failure(error ?? URLError(.unknown)))
    ///     }
    ///     ctx.onCancel { task.cancel() }
    ///     task.resume()
    /// }
    /// ```
    public init(
        label: String? = nil, priority: WorkPriority = .normal,
        callback body: @escaping @Sendable (WorkContext, _ finish: @escaping @Sendable (Result<Output, any Error>) -> Void) -> Void
    ) {
        node = WorkNode(label: label, priority: priority, barrier: false, isSync: false, body: .callback { context, finish in
            body(context) { result in finish(result.map { $0 as any Sendable }) }
        })
    }

    /// Creates an item that consumes the output of `input` (a typed edge). By default it is cancelled if `input`
    /// fails or is cancelled; with `.skip` it finishes as failed without running.
    ///
    /// The consumer owns `input`: if the consumer is cancelled before `input` finishes and nothing else needs
    /// `input` (no other dependent, no task awaiting it, no ``keep()``), `input` is cancelled too, and so on up the
    /// chain. One handle on the last step controls the whole chain.
    public init<Input: Sendable>(
        consuming input: WorkItem<Input>, policy: InputPolicy = .cancel, label: String? = nil,
        priority: WorkPriority = .normal, _ body: @escaping @Sendable (Input, WorkContext) throws -> Output
    ) {
        let source = input.node
        self.init(consuming: source, policy: policy, label: label, priority: priority, body: .sync(TypedSyncBody {
            context in try body(try source.successValue(as: Input.self), context)
        }))
    }

    /// The async form of `init(consuming:policy:label:priority:_:)`.
    public init<Input: Sendable>(
        consuming input: WorkItem<Input>, policy: InputPolicy = .cancel, label: String? = nil,
        priority: WorkPriority = .normal, _ body: @escaping @Sendable (Input, WorkContext) async throws -> Output
    ) {
        let source = input.node
        self.init(consuming: source, policy: policy, label: label, priority: priority, body: .async { context in
            try await body(try source.successValue(as: Input.self), context)
        })
    }

    /// The callback form of `init(consuming:policy:label:priority:_:)`: the
    /// body starts work on `input`'s output and calls `finish` once (a wait for memory, a transfer).
    public init<Input: Sendable>(
        consuming input: WorkItem<Input>, policy: InputPolicy = .cancel, label: String? = nil,
        priority: WorkPriority = .normal,
        callback body: @escaping @Sendable (Input, WorkContext, _ finish: @escaping @Sendable (Result<Output, any Error>) -> Void) -> Void
    ) {
        let source = input.node
        self.init(consuming: source, policy: policy, label: label, priority: priority, body: .callback { context, finish in
            do {
                body(try source.successValue(as: Input.self), context) { finish($0.map { $0 as any Sendable }) }
            } catch {
                finish(.failure(error))
            }
        })
    }

    /// An item running `body` with an owning typed edge to `input` and each of `more`: the consuming items and the
    /// joins (a single input makes no array).
    init(consuming input: WorkNode, _ more: WorkNode..., policy: InputPolicy, label: String?, priority: WorkPriority, body: Body) {
        var isSync = false
        if case .sync = body { isSync = true }
        node = WorkNode(label: label, priority: priority, barrier: false, isSync: isSync, body: body)
        // A fresh item has no dependents (no cycle is possible) and is not enqueued; one input twice is one edge.
        try? node.addDependency(input, policy: policy.dependencyPolicy, typed: true, owns: true)
        for other in more { try? node.addDependency(other, policy: policy.dependencyPolicy, typed: true, owns: true) }
    }

    /// The item's label (given, or "item-N").
    public var label: String { node.label }

    /// A process-unique number.
    public var id: UInt64 { node.id }

    /// Where the item is in its life.
    public var state: WorkState { node.publicState }

    /// Whether the item was cancelled (it may still be running until its body notices).
    public var isCancelled: Bool { node.isCancelled }

    /// The progress its body last reported, from 0 to 1.
    public var progress: Double { Double(bitPattern: node.progressBits.load(ordering: .relaxed)) }

    /// Cancels the item. A pending item finishes at once as cancelled and its body never starts; a running item is
    /// flagged, its `onCancel` handlers run and an async body's task is cancelled. Dependents follow their edge
    /// policy. Items this one consumes (`consuming:`) that nothing else needs are cancelled too. Cancelling a
    /// finished item does nothing.
    public func cancel() { node.cancel() }

    /// Keeps the item running to completion even when every consumer that owns it is cancelled (Foundation's
    /// behaviour, for a producer that must finish: a download that fills a cache, a save). Awaiting tasks and
    /// dependents still keep it while they wait; `keep()` keeps it after they leave. Explicit ``cancel()`` still
    /// cancels it. Returns the item.
    ///
    /// ```swift
    /// let download = network.add(label: "download") { ctx in try fetchAndCache(url, ctx) }.keep()
    /// let tilt = filters.add(consuming: download) { data, ctx in try tiltShift(data, ctx) }
    /// tilt.cancel()   // the download runs on and fills the cache
    /// ```
    @discardableResult
    public func keep() -> Self {
        node.keep()
        return self
    }

    /// Whether ``keep()`` was called (false once the item finished).
    public var isKept: Bool { node.isKept }

    /// The item's own priority. Setting it moves a ready item at once; an item waiting on dependencies lends its
    /// priority to them.
    public var priority: WorkPriority {
        get { node.priority }
        nonmutating set { node.priority = newValue }
    }

    /// The priority the item is scheduled at: its own, or higher if a waiting dependent lends it more.
    public var effectivePriority: WorkPriority { node.effectivePriority }

    /// Calls `handler` with the item's result on `queue` once it finishes (at once if it has). A cancelled item
    /// reports `CancellationError`. To update `@MainActor` state, use ``onMainCompletion(_:)``, whose handler
    /// is isolated to the main actor.
    ///
    /// ```swift
    /// render.onCompletion(on: .main) { result in print("row 12:", result) }
    /// ```
    public func onCompletion(
        on queue: WorkQueue, _ handler: @escaping @Sendable (Result<Output, any Error>) -> Void
    ) {
        let label = node.label + " completion"
        onFinishInline { result in queue.add(label: label, priority: .visible) { _ in handler(result) } }
    }

    /// Makes this item wait for `dependency` ("B after A"). Must be called before the item is enqueued.
    /// - Throws: ``LanesError/selfDependency(_:)``, ``LanesError/cycle(_:)`` naming the cycle,
    ///   ``LanesError/alreadyEnqueued(_:)``.
    ///
    /// ```swift
    /// try parse.addDependency(download)             // runs even if download fails (.run)
    /// try render.addDependency(parse, policy: .skip)
    /// ```
    public func addDependency(_ dependency: some WorkDependency, policy: DependencyPolicy = .run) throws(LanesError) {
        try node.addDependency(dependency._workDependency.node, policy: policy, typed: false)
    }

    /// Removes a plain dependency; the item becomes ready at once if nothing else holds it.
    public func removeDependency(_ dependency: some WorkDependency) throws(LanesError) {
        try node.removeDependency(dependency._workDependency.node)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.node === rhs.node }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(node)) }
    public var _workDependency: _WorkDependencyNode { _WorkDependencyNode(node: node) }
    /// The item's shared core, for Lanes' own modules (tests, stress).
    package var workNode: WorkNode { node }
}

/// Anything a work item can depend on: every `WorkItem`, whatever its output.
///
/// ```swift
/// let steps: [any WorkDependency] = [download, parse]
/// queue.add(label: "render", after: steps) { _ in draw() }
/// ```
public protocol WorkDependency: Sendable {
    /// The item's shared core, opaque (an implementation detail of Lanes). A wrapper that conforms forwards the
    /// value of the `WorkItem` it wraps.
    var _workDependency: _WorkDependencyNode { get }
}

/// The opaque core of a work item, the only requirement of ``WorkDependency`` (an implementation detail of Lanes;
/// underscored, as swift-collections does, so it stays out of the documented API).
public struct _WorkDependencyNode: Sendable {
    let node: WorkNode
}
