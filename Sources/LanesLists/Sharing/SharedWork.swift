import Lanes

/// A keyed table of shared work: everyone who asks for a key shares one job, which runs at the highest priority of
/// its live consumers and stops — through whatever step it is in — when the last consumer leaves.
///
/// - ``subscribe(_:priority:deliver:start:)`` joins the key's job, or makes one and calls `start` with it. The
///   subscription leaves, or changes this consumer's priority; the job follows live (see ``WorkSteering``).
/// - The job reports its result with ``SharedJob/finish(_:)``. With a `deliveryQueue` the result hops there first,
///   and only consumers still subscribed when it arrives receive it: ``cancelAll()`` is atomic from that queue.
/// - A step cancelled behind the job's back (its queue's `cancelAll()`, a direct `cancel()`) ends the job with
///   `CancellationError` for every consumer still subscribed: nobody waits for work that no longer runs, and the
///   next subscriber starts a new job.
/// - ``ContentLoader`` (lists) and the image pipeline's stages are both built on it; user code can chain its own
///   steps with `SharedJob.run(on:)`.
///
/// ```swift
/// let charts = SharedWork<String, Chart>(deliveryQueue: .main)
/// let (subscription, _) = charts.subscribe("AAPL", priority: .prefetch, deliver: { show($0) }) { job in
///     job.run(on: renders) { context in try renderChart(job.key, context) }
/// }
/// subscription.setPriority(.visible)   // the row came on screen
/// subscription.cancel()                // it left again: the render stops if nobody else wants it
/// ```
public final class SharedWork<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Receives a job's result.
    public typealias Deliver = @Sendable (Result<Value, any Error>) -> Void

    /// What happened to a job, for owners that count or cache.
    public enum Event: Sendable {
        /// The job ended with `result` (on the delivery queue, if any). `current` is false when the table was emptied
        /// by ``cancelAll()`` since the job started (its result is out of date); `delivered` is false when every
        /// consumer had left first.
        case finished(Key, Result<Value, any Error>, current: Bool, delivered: Bool)
        /// The job was cancelled because its last consumer left, or by ``cancelAll()``.
        case cancelled(Key)
    }

    /// Where results are delivered (nil: on the thread that finished the job).
    public let deliveryQueue: WorkQueue?
    let label: String
    let state = LockedValue(SharedWorkState<Key, Value>())
    private let observe: @Sendable (Event) -> Void

    /// A table.
    /// - Parameters:
    ///   - label: names the delivery items.
    ///   - deliveryQueue: where results are delivered, or nil to deliver where the job finished.
    ///   - observe: told what happens to jobs, outside the lock.
    ///
    /// ```swift
    /// let fetches = SharedWork<URL, Data> { event in
    ///     if case .cancelled = event { cancelledFetches.add(1, ordering: .relaxed) }
    /// }
    /// ```
    public init(
        label: String = "shared work", deliveryQueue: WorkQueue? = nil,
        observe: @escaping @Sendable (Event) -> Void = { _ in }
    ) {
        self.label = label
        self.deliveryQueue = deliveryQueue
        self.observe = observe
    }

    /// Joins the job for `key` at `priority`, or makes one and calls `start` with it (outside the lock; it may
    /// finish the job at once). `deliver` gets the job's result once, unless the subscription is cancelled first;
    /// nil only keeps the job going (a prefetch). Returns the subscription and whether this call started the job.
    ///
    /// ```swift
    /// let (subscription, started) = table.subscribe(url, priority: .visible, deliver: { show($0) }) { job in
    ///     job.run(on: queue) { _ in try load(job.key) }
    /// }
    /// if !started { print("joined the load already under way") }
    /// subscription.cancel()   // the row left the screen
    /// ```
    @discardableResult
    public func subscribe(
        _ key: Key, priority: WorkPriority, deliver: Deliver?, start: (SharedJob<Key, Value>) -> Void
    ) -> (subscription: SharedSubscription, started: Bool) {
        let subscribed = state.withLock { state in
            state.subscribe(key, priority: priority, deliver: deliver) { id, priority, epoch in
                SharedJob(key: key, id: id, epoch: epoch, priority: priority, table: self)
            }
        }
        switch subscribed {
        case .start(let job, let consumer):
            start(job)
            return (SharedSubscription(owner: job, consumer: consumer), true)
        case .joined(let job, let consumer, let change):
            if let change { job.steering.setPriority(change.priority, version: change.version) }
            return (SharedSubscription(owner: job, consumer: consumer), false)
        }
    }

    /// Cancels every job, atomically with respect to the delivery queue: once this returns no consumer subscribed
    /// before receives anything, and results still on their way are reported as out of date.
    ///
    /// ```swift
    /// table.cancelAll()   // the screen went away
    /// ```
    public func cancelAll() {
        for job in state.withLock({ $0.removeAll() }) { cancel(job) }
    }

    /// How many keys have a job in flight.
    public var count: Int { state.withLock { $0.entries.count } }

    /// The priority the job for `key` runs at (the highest its consumers ask for), or nil when none is in flight.
    ///
    /// ```swift
    /// table.priority(of: url)   // .visible
    /// ```
    public func priority(of key: Key) -> WorkPriority? {
        state.withLock { $0.entries[key]?.wanted }
    }

    // MARK: Internals

    func cancel(_ job: SharedJob<Key, Value>) {
        if job.steering.cancel() { observe(.cancelled(job.key)) }
    }

    func leave(_ job: SharedJob<Key, Value>, consumer: UInt64) {
        switch state.withLock({ $0.leave(job.key, job: job.id, consumer: consumer) }) {
        case .nothing: break
        case .cancel(let job): cancel(job)
        case .reprioritize(let job, let change): job.steering.setPriority(change.priority, version: change.version)
        }
    }

    func setPriority(_ priority: WorkPriority, of job: SharedJob<Key, Value>, consumer: UInt64) {
        let change = state.withLock { $0.setPriority(priority, key: job.key, job: job.id, consumer: consumer) }
        if let change { job.steering.setPriority(change.priority, version: change.version) }
    }

    func isActive(_ job: SharedJob<Key, Value>, consumer: UInt64) -> Bool {
        state.withLock { $0.isActive(job.key, job: job.id, consumer: consumer) }
    }

    /// The job produced `result`: end it where results are delivered. The thread that finished the job takes none
    /// of the table's locks when there is a delivery queue (a low-priority worker holding a lock the main thread
    /// waits for would delay the main thread).
    func complete(_ job: SharedJob<Key, Value>, with result: Result<Value, any Error>) {
        guard let deliveryQueue else { return end(job, with: result) }
        deliveryQueue.add(label: label, priority: .visible) { _ in self.end(job, with: result) }
    }

    private func end(_ job: SharedJob<Key, Value>, with result: Result<Value, any Error>) {
        let (current, consumers) = state.withLock { ($0.epoch == job.epoch, $0.finish(job.key, job: job.id)) }
        observe(.finished(job.key, result, current: current, delivered: consumers != nil))
        for deliver in consumers ?? [] { deliver(result) }
    }
}
