import Foundation
import Lanes
import LanesLists

/// Loads images the way a scrolling list needs them: fetched, decoded to the size shown, processed, cached — with
/// every stage coalesced, prioritised by the screen and cancelled when nobody needs it any more.
///
/// - **Coalescing.** The stages form a graph keyed by prefix: fetch → decode → each processor in turn, keyed by
///   (URL, size, processors so far). A hundred cells asking for the same photo cause one transfer, one decode and
///   one filter run; `[a]` and `[a, b]` in flight together run `a` once.
/// - **Cancellation.** A stage stops only when its last consumer leaves, and the stop reaches the step in progress:
///   a queued item is dropped, a running processor stops at its next band of rows, a transfer is cancelled and its
///   connection closed.
/// - **Priority.** A stage runs at the highest priority of its consumers and follows them live, down to the
///   transfer: a prefetched image that scrolls into view is promoted at once.
/// - **Caches.** Final bitmaps go to an exact-cost LRU memory cache (LanesLists' `CostLimitedCache`); fetched
///   bytes go to the optional ``DiskCache``, checked on every read. A stage whose upstream result the memory cache
///   holds (the decoded original, a shorter chain's result) starts from it without fetching again.
/// - **Memory.** Decodes and processors reserve their bytes from a ``MemoryBudget`` before allocating and wait for
///   room; headers claiming more than ``ImagePipelineConfiguration/maxPixels`` fail before any allocation.
///
/// ```swift
/// let pipeline = ImagePipeline()
/// let request = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 400), processors: [TiltShift()])
/// let task = pipeline.load(request, priority: .visible) { result in
///     cell.image = try? result.get()   // on the main actor
/// }
/// // The cell scrolled away:
/// task.cancel()
/// ```
public final class ImagePipeline: Sendable {
    /// How the pipeline works.
    public let configuration: ImagePipelineConfiguration
    /// The budget of decoded bytes in flight (nil when ``ImagePipelineConfiguration/decodedBytesLimit`` is 0).
    public let budget: MemoryBudget?

    let memoryCache: CostLimitedCache<ImageRequest, Bitmap>
    let fetchQueue: WorkQueue
    let decodeQueue: WorkQueue
    let processQueue: WorkQueue
    let diskWrites: WorkQueue
    /// Thumbnails waiting on `diskWrites` (see ``decodeThumbnail(_:source:size:writes:)``).
    let queuedThumbnailWrites = QueuedWrites()
    let counters = Counters(ImagePipelineStatistics())
    /// The cache writes asked for by the requests in flight, by the stage whose result they would write.
    let cacheWrites = CacheWrites()
    /// The stages in flight, each shared by everyone who needs it: fetches, and decodes plus processor steps.
    let fetches: WorkTable<StageKey, FetchedBody>
    let bitmaps: WorkTable<StageKey, Bitmap>
    /// Items whose bodies return at once, run on the thread that made them ready (no limit, no thread of their own):
    /// the stages' waits for room in the memory budget, the loaders' jobs (each a step consuming its stage), and the
    /// deliveries of the loader behind ``load(_:priority:on:completion:)``.
    let callerThread: WorkQueue
    /// What a request's decode and processors take on their threads (the loaders' ``ContentLoader/costs``, shared
    /// by all of them).
    let costs = CostEstimate()
    /// The request-level loaders bindings and lists use, one per delivery queue (see ``loader(deliveringOn:)``).
    let loaders = LockedValue([ObjectIdentifier: ContentLoader<ImageRequest, Bitmap>]())
    /// The quick renderings (``quickLoader``): a cache of their own, an eighth of the memory cache's size, so that a
    /// quick rendering is never taken for the full image; what they take on their threads; their loaders.
    let quickCache: CostLimitedCache<ImageRequest, Bitmap>
    let quickCosts = CostEstimate()
    let quickLoaders = LockedValue([ObjectIdentifier: ContentLoader<ImageRequest, Bitmap>]())
    /// Who wants previews of which download (see ``PreviewFeed``), and the bindings that show them.
    let previewListeners = PreviewListeners()

    /// Creates a pipeline.
    ///
    /// ```swift
    /// let pipeline = ImagePipeline(configuration: ImagePipelineConfiguration(memoryCacheLimit: 32 << 20))
    /// ```
    public init(configuration: ImagePipelineConfiguration = ImagePipelineConfiguration()) {
        self.configuration = configuration
        self.budget = configuration.decodedBytesLimit > 0 ? MemoryBudget(limit: configuration.decodedBytesLimit) : nil
        self.memoryCache = CostLimitedCache(costLimit: max(0, configuration.memoryCacheLimit)) { $0.byteCount }
        self.quickCache = CostLimitedCache(costLimit: max(0, configuration.memoryCacheLimit / 8)) { $0.byteCount }
        let executor = configuration.executor
        fetchQueue = WorkQueue("image fetch", maxConcurrency: configuration.fetchConcurrency, executor: executor)
        decodeQueue = WorkQueue("image decode", maxConcurrency: configuration.decodeConcurrency, executor: executor)
        processQueue = WorkQueue("image process", maxConcurrency: configuration.processConcurrency, executor: executor)
        diskWrites = WorkQueue("image disk writes", maxConcurrency: 1, executor: executor)
        let counters = self.counters
        callerThread = WorkQueue("image caller thread", maxConcurrency: 1 << 16, executor: CallerThread())
        fetches = WorkTable { if Self.isCancellation($0) { counters.count(\.cancelledStages) } }
        bitmaps = WorkTable { if Self.isCancellation($0) { counters.count(\.cancelledStages) } }
    }

    // MARK: Loading

    /// Loads `request` at `priority` and calls `completion` once with the image or the error on the main actor
    /// (through `WorkQueue.main`), so a `@MainActor` view can take the image directly. A memory-cache hit
    /// asked for on the main queue is delivered before this returns (no placeholder flicker).
    ///
    /// ```swift
    /// pipeline.load(ImageRequest(url: url, targetSize: TargetSize(maxWidth: 200))) { result in
    ///     avatar.image = try? result.get()
    /// }
    /// ```
    @discardableResult
    public func load(
        _ request: ImageRequest, priority: WorkPriority = .normal,
        completion: @escaping @MainActor (Result<Bitmap, any Error>) -> Void
    ) -> ImageTask {
        // Delivered by WorkQueue.main, or synchronously on the main queue: the main actor either way.
        load(request, priority: priority, on: .main, completion: onMainActor(completion))
    }

    /// Loads `request` at `priority` and calls `completion` once with the image or the error — on `queue`, or on
    /// the thread that finished the work when `queue` is nil. A memory-cache hit is delivered before this returns
    /// when that is already the right place (no queue, or the main queue called from the main queue).
    ///
    /// ```swift
    /// pipeline.load(ImageRequest(url: url), on: nil) { result in thumbnails.store(try? result.get()) }
    /// ```
    @discardableResult
    public func load(
        _ request: ImageRequest, priority: WorkPriority = .normal, on queue: WorkQueue?,
        completion: @escaping @Sendable (Result<Bitmap, any Error>) -> Void
    ) -> ImageTask {
        load(request, priority: priority, end: ImageTask.End { result in Self.deliver(result, on: queue, to: completion) })
    }

    /// A request to the loader for loads, which delivers on the thread that finished the work; `end` takes the
    /// result on from there.
    func load(_ request: ImageRequest, priority: WorkPriority, end: ImageTask.End) -> ImageTask {
        let loading = loader(deliveringOn: callerThread).request(request, priority: priority) { end.complete($0) }
        return ImageTask(loading, priority: priority, end: end)
    }

    /// The image for `request`. Cancelling the calling Swift task withdraws the request.
    ///
    /// ```swift
    /// let photo = try await pipeline.image(for: ImageRequest(url: url, processors: [TiltShift()]))
    /// ```
    public func image(for request: ImageRequest, priority: WorkPriority = .normal) async throws -> Bitmap {
        try Task.checkCancellation()   // already cancelled: start nothing
        let started = LockedValue<ImageTask?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = load(request, priority: priority, on: nil) { continuation.resume(with: $0) }
                started.withLock { $0 = task }
                // Cancelled before the task was recorded: the handler below found nothing to cancel.
                if Task.isCancelled { task.cancel() }
            }
        } onCancel: {
            started.withLock { $0 }?.cancel()
        }
    }

    /// The cached image for `request`, without loading anything.
    ///
    /// ```swift
    /// if let image = pipeline.cachedImage(for: request) { cell.image = image }
    /// ```
    public func cachedImage(for request: ImageRequest) -> Bitmap? {
        memoryCache[request]
    }

    // MARK: Prefetching

    /// Starts loading `requests` at `priority` (prefetch by default) so they are cached when they scroll into
    /// view. A visible request for the same image joins the prefetch and promotes it. (The prefetches of
    /// ``loader``, the main queue's loader.)
    ///
    /// ```swift
    /// pipeline.prefetch(rows[20..<30].map(\.imageRequest))
    /// ```
    public func prefetch(_ requests: some Sequence<ImageRequest>, priority: WorkPriority = .prefetch) {
        loader.prefetch(requests, priority: priority)
    }

    /// Withdraws prefetches that are no longer near the screen.
    ///
    /// ```swift
    /// pipeline.cancelPrefetch(rows[0..<10].map(\.imageRequest))
    /// ```
    public func cancelPrefetch(_ requests: some Sequence<ImageRequest>) {
        loader.cancelPrefetch(requests)
    }

    // MARK: State

    /// What the pipeline has done so far.
    public var statistics: ImagePipelineStatistics {
        var statistics = counters.snapshot
        statistics.loads = loader(deliveringOn: callerThread).stats
        return statistics
    }

    /// Stages in flight: fetches, and decodes plus processor steps.
    public var stagesInFlight: (fetches: Int, bitmaps: Int) { (fetches.count, bitmaps.count) }

    /// The priority at which `request`'s final stage runs now, or nil when none is in flight.
    public func priorityInFlight(of request: ImageRequest) -> WorkPriority? {
        bitmaps.priority(of: request.finalKey)
    }

    /// The bytes held by the memory cache.
    public var memoryCacheCost: Int { memoryCache.totalCost }

    /// Whether a stage ended cancelled (by its consumers, from outside, or because its upstream was).
    private static func isCancellation<Value>(_ event: WorkTable<StageKey, Value>.Event) -> Bool {
        if case .finished(_, .failure(let error), _, _) = event { return error is CancellationError }
        return false
    }

    static func deliver(
        _ result: Result<Bitmap, any Error>, on queue: WorkQueue?,
        to completion: @escaping @Sendable (Result<Bitmap, any Error>) -> Void
    ) {
        guard let queue, !(queue === WorkQueue.main && MainQueue.isCurrent) else { return completion(result) }
        queue.add(label: "image delivery", priority: .visible) { _ in completion(result) }
    }
}

/// Runs a queue's items on the thread that makes them ready (the pipeline's `callerThread`).
private struct CallerThread: WorkExecutor {
    func schedule(_ runner: WorkRunner) { runner.run() }
    func finishCancelled(_ sweep: @escaping @Sendable () -> Void) { sweep() }
}
