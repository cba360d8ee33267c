import DequeModule
import Dispatch

/// A value owned by one serial lane ("share nothing"): every access runs on that lane. Mutations are
/// asynchronous and keep their order; reads and snapshots can wait for their result, or be awaited.
///
/// ```swift
/// let model = Owned([String: Quote](), name: "quotes")
/// model.mutate { $0["AAPL"] = quote }                 // returns at once; runs on the lane, in order
/// let count = try await model.read { $0.count }       // waits for the lane to run it, without blocking
/// let all = await model.snapshot()                    // never blocks
/// ```
///
/// A blocking call that would wait on a lane the caller holds — its own lane, or through a chain of owners
/// (A's lane reads B, whose lane reads A) — throws ``LanesError/wouldDeadlock(_:)`` naming the lanes instead of
/// deadlocking. Blocking on an owner from the main queue is allowed (GCD's `dispatch_sync` to a data queue),
/// unless that owner lives on ``WorkQueue/main``.
///
/// In an `async` function the `async` overloads of `read`, `update` and `snapshot` are chosen, so Swift
/// concurrency threads never block; the blocking forms are for threads, work items and the main queue.
///
/// Several values can share one owner: create a serial queue and pass it as `sharing:`. Do not call
/// `cancelAll()` on a shared lane to drop an owner's work — operations are never lost; a cancelled batch is
/// simply scheduled again.
public final class Owned<Value: Sendable>: Sendable {
    /// The owner's name, shown in lane items, traces and errors.
    public let name: String
    /// The serial lane every access runs on.
    public let lane: WorkQueue
    /// The priority of the lane items that run this owner's operations (see ``setPriority(_:)``).
    public var priority: WorkPriority { scheduling.withLock { $0.priority } }

    // The value is only touched by entries running on the (serial) lane, so this lock is never contended; it keeps
    // the value safe even if someone raises the lane's limit later. Entries run user code under it: the only way
    // back to this lock from there is a blocking call into this lane, which the wait graph refuses first.
    private let value: LockedValue<Value>
    private let mailbox = LockedValue(OwnedMailbox<Value>())
    /// The priority of the owner's lane items and the last one made (which ``setPriority(_:)`` moves).
    private let scheduling: LockedValue<(priority: WorkPriority, item: WorkItem<Void>?)>

    /// Creates a value with a serial lane of its own, named `name`.
    ///
    /// ```swift
    /// let settings = Owned(Settings.defaults, name: "settings")
    /// ```
    public init(_ initial: Value, name: String, priority: WorkPriority = .normal) {
        self.name = name
        self.lane = WorkQueue(name, maxConcurrency: 1)
        self.scheduling = LockedValue((priority, nil))
        self.value = LockedValue(initial)
    }

    /// Creates a value owned by an existing serial lane (several values may share one owner; the lane may be
    /// ``WorkQueue/main``).
    /// - Throws: ``LanesError/invalidLimit(_:)`` if `lane` is not serial (its limit is not 1).
    ///
    /// ```swift
    /// let store = WorkQueue("store", maxConcurrency: 1)
    /// let users = try Owned([User](), sharing: store)
    /// let posts = try Owned([Post](), sharing: store)
    /// ```
    public init(
        _ initial: Value, name: String? = nil, sharing lane: WorkQueue, priority: WorkPriority = .normal
    ) throws(LanesError) {
        let limit = lane.maxConcurrency
        guard limit == 1 else { throw .invalidLimit(limit) }
        self.name = name ?? lane.name
        self.lane = lane
        self.scheduling = LockedValue((priority, nil))
        self.value = LockedValue(initial)
    }

    // MARK: Mutations

    /// Changes the value on its lane, later, after every operation posted before; returns at once.
    ///
    /// ```swift
    /// cart.mutate { $0.items.append(Item(name: "Tea", price: 4)) }
    /// ```
    public func mutate(_ body: @escaping @Sendable (inout Value) -> Void) {
        post { value in
            body(&value)
            return nil
        }
    }

    /// ``mutate(_:)`` whose body returns what to do once the value is released: an action state machines hand back,
    /// so callbacks (a completion, a delivery) never run while the value is held.
    package func mutateThen(_ body: @escaping @Sendable (inout Value) -> (@Sendable () -> Void)?) {
        post(body)
    }

    /// Changes the value on its lane and waits for the body's result. Blocks the calling thread.
    /// - Throws: ``LanesError/wouldDeadlock(_:)`` if the wait would deadlock, or what `body` threw.
    ///
    /// ```swift
    /// let id = try counter.update { value in value += 1; return value }
    /// ```
    public func update<Result>(_ body: (inout Value) throws -> Result) throws -> Result {
        try perform("update", body)
    }

    /// Changes the value on its lane and returns the body's result, without blocking a thread.
    ///
    /// ```swift
    /// let id = try await counter.update { value in value += 1; return value }
    /// ```
    public func update<Result: Sendable>(
        _ body: @escaping @Sendable (inout Value) throws -> Result
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            post { value in
                let result = Swift.Result { try body(&value) }
                return { continuation.resume(with: result) }
            }
        }
    }

    // MARK: Reads

    /// Runs `body` with the value on its lane, after every operation posted before, and returns its result.
    /// Blocks the calling thread (like `dispatch_sync`).
    /// - Throws: ``LanesError/wouldDeadlock(_:)`` if the wait would deadlock, or what `body` threw.
    ///
    /// ```swift
    /// let total = try cart.read { $0.items.reduce(0) { $0 + $1.price } }
    /// ```
    public func read<Result>(_ body: (Value) throws -> Result) throws -> Result {
        try perform("read") { value in try body(value) }
    }

    /// Runs `body` with the value on its lane and returns its result, without blocking a thread.
    ///
    /// ```swift
    /// let total = try await cart.read { $0.items.count }
    /// ```
    public func read<Result: Sendable>(_ body: @escaping @Sendable (Value) throws -> Result) async throws -> Result {
        try await update { value in try body(value) }
    }

    /// A copy of the value after every operation posted before. Blocks the calling thread.
    /// - Throws: ``LanesError/wouldDeadlock(_:)`` if the wait would deadlock.
    ///
    /// ```swift
    /// let saved = try settings.snapshot()
    /// ```
    public func snapshot() throws(LanesError) -> Value {
        do {
            return try perform("snapshot") { $0 }
        } catch let error as LanesError {
            throw error
        } catch {
            preconditionFailure("a snapshot's body cannot throw: \(error)")
        }
    }

    /// A copy of the value after every operation posted before, without blocking a thread.
    ///
    /// ```swift
    /// let saved = await settings.snapshot()
    /// ```
    public func snapshot() async -> Value {
        await withCheckedContinuation { continuation in
            post { value in
                let copy = value
                return { continuation.resume(returning: copy) }
            }
        }
    }

    // MARK: Priority

    /// Runs the owner's operations at `priority` from now on: the lane item waiting to run them moves at once, later
    /// ones are made at it. For an owner that works for others, so its work follows theirs (a download's decoding
    /// following the requests that wait for it).
    ///
    /// ```swift
    /// let decoding = Owned(0, name: "decoding", priority: .prefetch)
    /// decoding.setPriority(.visible)   // its row scrolled into view
    /// ```
    public func setPriority(_ priority: WorkPriority) {
        let item = scheduling.withLock { scheduling in
            scheduling.priority = priority
            return scheduling.item
        }
        item?.priority = priority
    }

    // MARK: Running on the lane

    /// The blocking path shared by `read`, `update` and `snapshot`.
    private func perform<Result>(_ operation: String, _ body: (inout Value) throws -> Result) throws -> Result {
        let token = try LaneWaits.begin("\(operation) of '\(name)'", on: LaneWaits.Lane(id: lane.id, name: lane.name))
        defer { LaneWaits.end(token) }
        return try withoutActuallyEscaping(body) { body in
            let call = BlockingCall(body)
            post { value in
                call.run(&value)
                return { call.done.signal() }
            }
            call.done.wait()
            return try call.result()
        }
    }

    private func post(_ entry: @escaping OwnedMailbox<Value>.Entry) {
        if let generation = mailbox.withLock({ $0.post(entry) }) { schedule(generation) }
    }

    private func schedule(_ generation: UInt64) {
        let priority = self.priority
        let item = lane.add(label: name, priority: priority) { [self] _ in drain() }
        // A priority set while the item was being made did not reach it.
        let now = scheduling.withLock { scheduling in
            scheduling.item = item
            return scheduling.priority
        }
        if now != priority { item.priority = now }
        item.node.onFinish { [self] _ in
            if let next = mailbox.withLock({ $0.itemFinished(generation) }) { schedule(next) }
        }
    }

    /// On the lane: runs every entry posted so far, in order, waking each waiter once the value is released.
    private func drain() {
        let entries = mailbox.withLock { $0.takeAll() }
        for entry in entries {
            let after = value.withLock { value in entry(&value) }
            after?()
        }
        if let next = mailbox.withLock({ $0.drained() }) { schedule(next) }
    }
}
