import Lanes
import Synchronization

/// The job of one key in a ``SharedWork`` table: what its starter drives through its steps, and what its
/// consumers' subscriptions steer.
///
/// Install each step as it begins (``install(_:order:startedAt:)``) so a cancel or a priority change reaches it,
/// read ``priority`` when making a step, and report the result once with ``finish(_:)``.
///
/// ```swift
/// table.subscribe(url, priority: .visible, deliver: show) { job in
///     let transfer = session.start(url, priority: job.priority) { data in job.finish(data) }
///     job.install(WorkStep(cancel: transfer.cancel, setPriority: transfer.setPriority), order: 0,
///                 startedAt: job.priority)
/// }
/// ```
public final class SharedJob<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The key the job works for.
    public let key: Key
    /// Its priority, cancellation and current step.
    public let steering: WorkSteering
    let id: UInt64
    let epoch: UInt64
    /// The table; the job is in it until it ends, so holding it strongly makes no lasting cycle.
    private let table: SharedWork<Key, Value>
    /// Orders the steps followed with ``follow(_:startedAt:then:)`` (and so `run(on:)`).
    private let steps = Atomic<Int>(0)
    private let finished = Atomic<Bool>(false)

    init(key: Key, id: UInt64, epoch: UInt64, priority: WorkPriority, table: SharedWork<Key, Value>) {
        self.key = key
        self.id = id
        self.epoch = epoch
        self.steering = WorkSteering(priority: priority)
        self.table = table
    }

    /// The priority to run at: the highest of the consumers'.
    public var priority: WorkPriority { steering.priority }

    /// Whether the job was cancelled (its last consumer left, or everything was).
    public var isCancelled: Bool { steering.isCancelled }

    /// Makes `step` the one in progress (see ``WorkSteering/install(_:order:startedAt:)``).
    ///
    /// ```swift
    /// job.install(WorkStep(item), order: 1, startedAt: item.priority)
    /// ```
    public func install(_ step: WorkStep, order: Int, startedAt: WorkPriority?) {
        steering.install(step, order: order, startedAt: startedAt)
    }

    /// Reports the job's result: it goes to every consumer still subscribed (through the table's delivery queue,
    /// if any). Only the first call counts.
    ///
    /// ```swift
    /// job.finish(.success(bitmap))
    /// ```
    public func finish(_ result: Result<Value, any Error>) {
        guard !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        table.complete(self, with: result)
    }

    /// Makes `item` the job's next step and hands its result to `next` (on the thread that finished it). Steps
    /// followed this way are ordered by when they were followed. `startedAt` is the priority the item was made with.
    ///
    /// `next` is not called for an item that was cancelled and did not finish anyway. Cancelled by the job, it has
    /// nothing more to do; cancelled by someone else (its queue's `cancelAll()`, a direct `cancel()`), the job ends
    /// at once with `CancellationError`, which reaches every consumer still present: none is left waiting for work
    /// that no longer runs.
    ///
    /// ```swift
    /// let priority = job.priority
    /// job.follow(downloads.add(priority: priority) { _ in try download(url) }, startedAt: priority) { data in
    ///     job.run(on: filters) { context in try tiltShift(data.get(), context) }
    /// }
    /// ```
    public func follow<Output>(
        _ item: WorkItem<Output>, startedAt: WorkPriority,
        then next: @escaping @Sendable (Result<Output, any Error>) -> Void
    ) {
        let order = steps.add(1, ordering: .relaxed).newValue
        item.onFinishInline { result in
            if case .failure = result, item.isCancelled {
                // Cancelled by the job: nothing more to do. Behind its back: the job ends, cancelled, for everyone.
                if !self.isCancelled { self.finish(.failure(CancellationError())) }
                return
            }
            next(result)
        }
        install(WorkStep(item), order: order, startedAt: startedAt)
    }

    /// Runs one step on `queue` at the job's priority, steered by the job, and hands its result to `next`.
    ///
    /// ```swift
    /// job.run(on: downloads, { _ in try download(url) }) { data in
    ///     job.run(on: filters) { context in try tiltShift(data.get(), context) }
    /// }
    /// ```
    public func run<Output: Sendable>(
        on queue: WorkQueue, label: String? = nil, _ body: @escaping @Sendable (WorkContext) throws -> Output,
        then next: @escaping @Sendable (Result<Output, any Error>) -> Void
    ) {
        let priority = steering.priority
        follow(queue.add(label: label ?? "\(key)", priority: priority, body), startedAt: priority, then: next)
    }

    /// Runs one `async` step on `queue` at the job's priority, steered by the job, and hands its result to `next`.
    ///
    /// ```swift
    /// job.run(on: network, { _ in try await fetchImage(job.key) }) { image in job.finish(image) }
    /// ```
    public func run<Output: Sendable>(
        on queue: WorkQueue, label: String? = nil, _ body: @escaping @Sendable (WorkContext) async throws -> Output,
        then next: @escaping @Sendable (Result<Output, any Error>) -> Void
    ) {
        let priority = steering.priority
        follow(queue.add(label: label ?? "\(key)", priority: priority, body), startedAt: priority, then: next)
    }

    /// Runs the job's last step on `queue` and finishes the job with its result.
    ///
    /// ```swift
    /// job.run(on: decoding) { context in try decodeThumbnail(job.key, context) }
    /// ```
    public func run(on queue: WorkQueue, label: String? = nil, _ body: @escaping @Sendable (WorkContext) throws -> Value) {
        run(on: queue, label: label, body) { self.finish($0) }
    }
}

extension SharedJob: SubscriptionOwner {
    func leave(_ consumer: UInt64) { table.leave(self, consumer: consumer) }
    func setPriority(_ priority: WorkPriority, of consumer: UInt64) {
        table.setPriority(priority, of: self, consumer: consumer)
    }
    func isActive(_ consumer: UInt64) -> Bool { table.isActive(self, consumer: consumer) }
}
