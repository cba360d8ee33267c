import Lanes

/// Loads expensive per-key content (a chart, a profile image, a filtered photo) for lists: one job per key in
/// flight, shared by everyone who asks; a cost-limited memory cache; delivery on the main queue; cancellation when
/// nobody needs the result any more.
///
/// - Requests for the same key share one job. The job is cancelled, in whatever step it is in, only when every
///   requester has left, and its priority is the highest of its requesters', following them live: a prefetched key that becomes visible is
///   promoted at once.
/// - Values that finish go to ``cache``; a cached value is delivered synchronously, in the same main-queue turn as the
///   request, so a cell never flickers empty. Failures are not cached unless `cachesFailures` is set.
/// - Results are delivered on `deliveryQueue` (`WorkQueue.main` by default). ``ContentBinding`` delivers a result
///   only if it still shows that key, so a reused cell never receives another row's content.
/// - ``invalidate(clearingCache:)`` cancels everything pending, atomically: after it returns, nothing requested
///   before is delivered.
///
/// The work for a key is a work item: one synchronous body on ``queue``, or the last item of a chain across queues
/// (``init(name:deliveryQueue:cache:cachesFailures:failureLimit:costs:threads:make:)``), such as the image pipeline's
/// fetch → decode → filter. Each request is a consumer of that item in the core's graph: it lends the item its
/// priority, and the item is cancelled — through its chain — when the last request leaves, unless it was kept
/// (`keep()`) or something else needs it.
///
/// Work cancelled behind the loader's back (its queue's `cancelAll()`, a direct `cancel()`) is not left in limbo:
/// every request still waiting receives `CancellationError` (a ``ContentBinding`` shows its placeholder and asks
/// again when next shown), the stats count it as cancelled and ``inFlightCount`` drops. To stop a screen's loads,
/// call ``invalidate(clearingCache:)`` rather than `cancelAll()` on the loader's queue.
///
/// Use it from the delivery queue (the main queue): bindings are confined to it. ``request(_:priority:deliver:)``,
/// ``prefetch(_:priority:)``, ``cancelPrefetch(_:)`` and ``invalidate(clearingCache:)`` are safe from any thread.
///
/// ```swift
/// let charts = ContentLoader<String, Chart>(queue: WorkQueue("charts", maxConcurrency: 2),
///                                           costLimit: 64 << 20, cost: { $0.byteCount }) { symbol, ctx in
///     try renderChart(symbol, isCancelled: { ctx.isCancelled })
/// }
/// // In a cell:
/// let binding = charts.binding(placeholder: { _ in cell.chart = nil }) { _, result in cell.chart = try? result.get() }
/// binding.show("AAPL")             // cached: shown now; otherwise rendered off the main queue
/// // The screen went away:
/// charts.invalidate()
/// ```
public final class ContentLoader<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Produces the value for a key. Long work checks `context.isCancelled` and stops early.
    public typealias Work = @Sendable (Key, WorkContext) throws -> Value
    /// Makes and enqueues the work for a key, returning its last item. Make the items at their default
    /// priority or lower (`.background` lets the requests alone decide): the requests lend theirs to the chain.
    public typealias Make = @Sendable (Key) -> WorkItem<Value>

    /// Shown in item labels and events.
    public let name: String
    /// Where `Work` runs (nil when the loader was made with a `Make`, whose items choose their queues).
    public let queue: WorkQueue?
    /// Where results are delivered and bindings live.
    public let deliveryQueue: WorkQueue
    /// The values that finished, ready for synchronous delivery.
    public let cache: CostLimitedCache<Key, Value>
    /// Whether failures are remembered (and delivered synchronously) until ``invalidate(clearingCache:)`` clears
    /// them, instead of being retried on the next request.
    public let cachesFailures: Bool

    @usableFromInline let failures: CostLimitedCache<Key, FailedLoad>
    private let make: Make
    private let jobs: WorkTable<LoaderJob<Key>, Value>
    /// What else a key's work depends on that the key's equality leaves out (see ``LoaderJob``).
    private let variant: @Sendable (Key) -> Int
    /// Whether a key may be answered from the cache, when the owner fills the cache itself (nil: every key may, and
    /// the loader puts the values its jobs produce into the cache).
    @usableFromInline let readsCache: (@Sendable (Key) -> Bool)?
    @usableFromInline let counters: LoaderCounters
    /// How long a key's work takes to get ready, kept from the bodies that returned a value (a loader made with a
    /// `Make` records its own, into the estimate it was given). ``ListModel/connect(to:quick:key:binding:)`` sizes the
    /// list's preload with it.
    ///
    /// ```swift
    /// print(charts.costs.seconds.map { "\($0 * 1000) ms a chart" } ?? "no chart yet")
    /// ```
    public let costs: CostEstimate
    /// How many of the loader's jobs can run at once: its queue's width, or the `threads` a loader made with a
    /// ``Make`` was given (nil when it was given none). ``ListModel/connect(to:quick:key:binding:)`` plans the list's
    /// preload on them.
    ///
    /// ```swift
    /// print("\(charts.threads ?? 1) charts render at once")
    /// ```
    public var threads: Int? { queue?.maxConcurrency ?? madeThreads }
    private let madeThreads: Int?

    /// Creates a loader whose work for a key is a chain of one or more items.
    /// - Parameters:
    ///   - name: shown in item labels.
    ///   - deliveryQueue: where results are delivered; `WorkQueue.main` unless a test injects its own. Bindings
    ///     (`@MainActor`) need its items to run on the main actor: a test pumps an injected queue from a
    ///     `@MainActor` test, and the hand-over checks it.
    ///   - cache: where finished values go (it may be shared with other loaders of the same keys).
    ///   - cachesFailures: remember failures too (at most `failureLimit` of them).
    ///   - failureLimit: how many failures are remembered.
    ///   - costs: the loader's ``costs``, which the chains `make` builds record their times into (the work of a key,
    ///     summed over its steps, not the waits between them).
    ///   - threads: how many keys' work can run at once (the width of the queue doing most of it), for planning a
    ///     list's preload (``threads``); nil if unknown.
    ///   - make: makes and enqueues the work for a key and returns its last item (see ``Make``).
    ///
    /// ```swift
    /// let photos = ContentLoader<URL, Bitmap>(cache: CostLimitedCache(costLimit: 64 << 20) { $0.byteCount }) { url in
    ///     let data = downloads.add(priority: .background) { _ in try download(url) }
    ///     return filters.add(consuming: data, priority: .background) { data, context in try tiltShift(data, context) }
    /// }
    /// ```
    public convenience init(
        name: String = "content", deliveryQueue: WorkQueue = .main, cache: CostLimitedCache<Key, Value>,
        cachesFailures: Bool = false, failureLimit: Int = 256, costs: CostEstimate = CostEstimate(),
        threads: Int? = nil, make: @escaping Make
    ) {
        self.init(
            name: name, queue: nil, deliveryQueue: deliveryQueue, cache: cache, cachesFailures: cachesFailures,
            failureLimit: failureLimit, costs: costs, threads: threads, make: make)
    }

    /// Creates a loader around an existing cache, whose work for a key is one synchronous body on `queue`.
    /// - Parameters:
    ///   - name: shown in item labels.
    ///   - queue: where `work` runs; its concurrency limit is the loader's.
    ///   - deliveryQueue: where results are delivered; `WorkQueue.main` unless a test injects its own.
    ///   - cache: where finished values go (it may be shared with other loaders of the same keys).
    ///   - cachesFailures: remember failures too (at most `failureLimit` of them).
    ///   - failureLimit: how many failures are remembered.
    ///   - work: produces the value for a key.
    ///
    /// ```swift
    /// let shared = CostLimitedCache<URL, Bitmap>(costLimit: 64 << 20) { $0.byteCount }
    /// let thumbnails = ContentLoader(queue: decoding, cache: shared) { url, ctx in try decodeThumbnail(url, ctx) }
    /// ```
    public convenience init(
        name: String = "content", queue: WorkQueue, deliveryQueue: WorkQueue = .main,
        cache: CostLimitedCache<Key, Value>, cachesFailures: Bool = false, failureLimit: Int = 256,
        work: @escaping Work
    ) {
        let counters = Counters(ContentLoaderStats()), costs = CostEstimate()
        self.init(
            name: name, queue: queue, deliveryQueue: deliveryQueue, cache: cache, cachesFailures: cachesFailures,
            failureLimit: failureLimit, costs: costs, counters: counters
        ) { key in
            let item = WorkItem(label: "\(name) \(key)", priority: .background) { context in
                counters.count(\.started)
                let start = ContinuousClock.now
                let value = try work(key, context)
                costs.record(seconds: Double((ContinuousClock.now - start).laneNanoseconds) / 1e9)
                return value
            }
            // Enqueued once the request is wired to it: it starts at the priority the request lends it.
            Wiring.enqueue(item, on: queue)
            return item
        }
    }

    /// What every initializer comes to; the image pipeline makes its loaders with it. Keys equal for the cache get
    /// jobs of their own where `variant` tells them apart, and skip the cache where `readsCache` says so; with a
    /// `readsCache` the items fill the cache themselves (the loader does not): the image pipeline's requests, whose
    /// cache policy is not part of their equality but decides their stages.
    package init(
        name: String, queue: WorkQueue?, deliveryQueue: WorkQueue, cache: CostLimitedCache<Key, Value>,
        cachesFailures: Bool = false, failureLimit: Int = 0, costs: CostEstimate,
        counters: Counters<ContentLoaderStats> = Counters(ContentLoaderStats()), threads: Int? = nil,
        variant: @escaping @Sendable (Key) -> Int = { _ in 0 }, readsCache: (@Sendable (Key) -> Bool)? = nil,
        make: @escaping Make
    ) {
        self.variant = variant
        self.readsCache = readsCache
        self.costs = costs
        self.madeThreads = threads.map { max(1, $0) }
        self.name = name
        self.queue = queue
        self.deliveryQueue = deliveryQueue
        self.cache = cache
        self.cachesFailures = cachesFailures
        let failures = CostLimitedCache<Key, FailedLoad>(costLimit: cachesFailures ? failureLimit : 0)
        self.failures = failures
        self.counters = counters
        self.make = { key in
            counters.count(\.scheduled)
            return make(key)
        }
        self.jobs = WorkTable(label: name + " delivery", deliveryQueue: deliveryQueue) { event in
            counters.record(event, cache: readsCache == nil ? cache : nil, failures: cachesFailures ? failures : nil)
        }
    }

    /// Creates a loader with its own cache.
    /// - Parameters:
    ///   - name: shown in item labels.
    ///   - queue: where `work` runs; its concurrency limit is the loader's.
    ///   - deliveryQueue: where results are delivered (`WorkQueue.main` unless a test injects its own).
    ///   - costLimit: the most the cached values may cost in all.
    ///   - cost: a value's cost (1 by default, so `costLimit` is a count).
    ///   - cachesFailures: remember failures too.
    ///   - work: produces the value for a key.
    ///
    /// ```swift
    /// let avatars = ContentLoader<URL, Bitmap>(queue: network, costLimit: 16 << 20, cost: { $0.byteCount }) {
    ///     url, ctx in try fetchAvatar(url, ctx)
    /// }
    /// ```
    public convenience init(
        name: String = "content", queue: WorkQueue, deliveryQueue: WorkQueue = .main, costLimit: Int,
        cost: @escaping @Sendable (Value) -> Int = { _ in 1 }, cachesFailures: Bool = false, work: @escaping Work
    ) {
        self.init(
            name: name, queue: queue, deliveryQueue: deliveryQueue, cache: CostLimitedCache(costLimit: costLimit, cost: cost),
            cachesFailures: cachesFailures, work: work)
    }

    // MARK: Requests

    /// Asks for the value of `key`. A cached value (or cached failure) is delivered synchronously, before this
    /// returns; otherwise `deliver` is called once on ``deliveryQueue`` when the key's job finishes, unless the
    /// request was cancelled first.
    ///
    /// ```swift
    /// let request = loader.request("AAPL") { result in show(result) }
    /// request.cancel()   // no longer needed; the job is cancelled if nobody else asked for AAPL
    /// ```
    @inlinable @discardableResult
    public func request(
        _ key: Key, priority: WorkPriority = .visible,
        deliver: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> ContentRequest<Key, Value> {
        submit(key, priority: priority, countingDelivery: true, deliver: deliver)
    }

    /// ``request(_:priority:deliver:)``; bindings pass `countingDelivery: false` (they count what they accept). A hit
    /// takes the counters' lock once, for its request, hit and delivery together. The hit path is inlinable, so it
    /// specialises for the caller's key type (hashing an image request through generic witnesses costs as much as
    /// the rest of the hit); a miss goes on in `submitMiss`.
    @inlinable
    func submit(
        _ key: Key, priority: WorkPriority, countingDelivery: Bool,
        deliver: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> ContentRequest<Key, Value> {
        guard let cached = cachedResult(key) else {
            return submitMiss(key, priority: priority, countingDelivery: countingDelivery, deliver: deliver)
        }
        if countingDelivery {
            counters.count(\.requests, \.cacheHits, \.deliveries)
        } else {
            counters.count(\.requests, \.cacheHits)
        }
        deliver(cached)
        return ContentRequest(key: key, claim: nil)
    }

    /// A request the cache could not answer: it joins the key's job, or makes it.
    @usableFromInline
    func submitMiss(
        _ key: Key, priority: WorkPriority, countingDelivery: Bool,
        deliver: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> ContentRequest<Key, Value> {
        let counters = self.counters
        var handOver = deliver
        if countingDelivery {
            handOver = { result in
                counters.count(\.deliveries)
                deliver(result)
            }
        }
        // Counted before the join: a job can deliver before `join` returns.
        counters.count(\.requests)
        let (claim, made) = join(job(key), priority: priority, deliver: handOver)
        if !made { counters.count(\.joined) }
        return ContentRequest(key: key, claim: claim)
    }

    /// Starts loading `keys` at low priority so they are ready when they scroll into view. Keys already cached or
    /// already prefetched are skipped; a key a binding already loads just gains a prefetch subscriber.
    ///
    /// ```swift
    /// loader.prefetch(rows.map(symbol(forRow:)))
    /// ```
    public func prefetch(_ keys: some Sequence<Key>, priority: WorkPriority = .prefetch) {
        for key in keys where !cache.touch(key) && !jobs.isPrefetched(job(key)) {
            counters.count(\.requests, \.prefetches)
            // A prefetch only wants the work done: its value goes to the cache.
            if !join(job(key), priority: priority, deliver: nil).made { counters.count(\.joined) }
        }
    }

    /// Withdraws the loader's prefetch of `keys`. A key's job is cancelled if nobody else asked for it.
    ///
    /// ```swift
    /// loader.cancelPrefetch(rowsThatLeftThePreloadRange.map(symbol(forRow:)))
    /// ```
    public func cancelPrefetch(_ keys: some Sequence<Key>) {
        for key in keys { jobs.withdrawPrefetches(job(key)) }
    }

    /// Cancels everything in flight, atomically: once this returns no pending result is delivered, no binding
    /// receives a value it asked for before, and jobs not yet started never start. Running bodies see
    /// `isCancelled`. Jobs finishing later do not fill the cache.
    ///
    /// ```swift
    /// func screenDidDisappear() { loader.invalidate() }
    /// func reloadData() { loader.invalidate(clearingCache: true) }
    /// ```
    /// - Parameter clearingCache: also empty the cache (and the remembered failures).
    public func invalidate(clearingCache: Bool = false) {
        jobs.cancelAll()
        if clearingCache { removeAllCachedValues() }
    }

    /// Forgets the value cached for `key` (and a failure remembered for it): the next request loads it again. A job
    /// in flight for `key` is not disturbed: it is delivered to its requests and caches its value when it ends.
    ///
    /// ```swift
    /// loader.removeCachedValue(for: "AAPL")   // the user pulled to refresh this row
    /// ```
    public func removeCachedValue(for key: Key) {
        cache.removeValue(forKey: key)
        failures.removeValue(forKey: key)
    }

    /// Empties the cache and the remembered failures, leaving jobs in flight alone (they deliver and cache their
    /// values when they end). ``invalidate(clearingCache:)`` also cancels them.
    ///
    /// ```swift
    /// func didReceiveMemoryWarning() { avatars.removeAllCachedValues() }
    /// ```
    public func removeAllCachedValues() {
        cache.removeAll()
        failures.removeAll()
    }

    // MARK: Introspection

    /// What the loader has done so far.
    public var stats: ContentLoaderStats { counters.snapshot }

    /// How many keys have a job in flight.
    public var inFlightCount: Int { jobs.count }

    /// The priority of the job in flight for `key` (the highest its requesters ask for), or nil when none is.
    ///
    /// ```swift
    /// hud.text = "AAPL: \(loader.inFlightPriority(of: "AAPL").map(String.init(describing:)) ?? "idle")"
    /// ```
    public func inFlightPriority(of key: Key) -> WorkPriority? {
        jobs.priority(of: job(key))
    }

    // MARK: Internals

    @inlinable
    func cachedResult(_ key: Key) -> Result<Value, any Error>? {
        if let readsCache, !readsCache(key) { return nil }
        if let value = cache[key] { return .success(value) }
        if cachesFailures, let failure = failures[key] { return .failure(failure.error) }
        return nil
    }

    private func job(_ key: Key) -> LoaderJob<Key> {
        LoaderJob(key: key, variant: variant(key))
    }

    private func join(
        _ job: LoaderJob<Key>, priority: WorkPriority, deliver: WorkTable<LoaderJob<Key>, Value>.Deliver?
    ) -> (claim: ContentRequest<Key, Value>.Claim, made: Bool) {
        let make = self.make
        let (consumer, made) = jobs.consume(job, priority: priority, deliver: deliver) { make($0.key) }
        return ((jobs, job, consumer), made)
    }
}

/// What a loader's jobs are told apart by: the key, and what else the key's work depends on that the key's equality
/// leaves out (the image pipeline's cache policy; 0 for other loaders). Keys equal for the cache but of different
/// variants get jobs of their own, and share the cache.
@usableFromInline struct LoaderJob<Key: Hashable & Sendable>: Hashable, Sendable {
    let key: Key
    let variant: Int
}

/// A remembered failure.
@usableFromInline struct FailedLoad: Sendable {
    @usableFromInline let error: any Error
}
