import Lanes
import Synchronization

/// Loads expensive per-key content (a chart, a profile image, a filtered photo) for lists: one work item per key in
/// flight, shared by everyone who asks; a cost-limited memory cache; delivery on the main queue; cancellation when
/// nobody needs the result any more.
///
/// - Requests for the same key share one item. The item is cancelled only when every requester has left, and its
///   priority is the highest of its requesters', following them live: a prefetched key that becomes visible is
///   promoted at once.
/// - Values that finish go to ``cache``; a cached value is delivered synchronously, in the same main-queue turn as the
///   request, so a cell never flickers empty. Failures are not cached unless `cachesFailures` is set.
/// - Results are delivered on `deliveryQueue` (`WorkQueue.main` by default). ``ContentBinding`` delivers a result
///   only if it still shows that key, so a reused cell never receives another row's content.
/// - ``invalidate(clearingCache:)`` cancels everything pending, atomically: after it returns, nothing requested
///   before is delivered.
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

    /// Shown in item labels and events.
    public let name: String
    /// Where the work runs.
    public let queue: WorkQueue
    /// Where results are delivered and bindings live.
    public let deliveryQueue: WorkQueue
    /// The values that finished, ready for synchronous delivery.
    public let cache: CostLimitedCache<Key, Value>
    /// Whether failures are remembered (and delivered synchronously) until ``invalidate(clearingCache:)`` clears
    /// them, instead of being retried on the next request.
    public let cachesFailures: Bool

    private let failures: CostLimitedCache<Key, FailedLoad>
    private let work: Work
    private let state = LockedValue(LoaderState<Key, Value>())
    private let deliveryLabel: String
    let counters = LoaderCounters()

    /// Creates a loader around an existing cache.
    /// - Parameters:
    ///   - name: shown in item labels.
    ///   - queue: where `work` runs; its concurrency limit is the loader's.
    ///   - deliveryQueue: where results are delivered; `WorkQueue.main` unless a test injects its own. Bindings
    ///     (`@MainActor`) need its items to run on the main actor: a test pumps an injected queue from a
    ///     `@MainActor` test, and the hand-over checks it.
    ///   - cache: where finished values go (it may be shared with other loaders of the same keys).
    ///   - cachesFailures: remember failures too (at most `failureLimit` of them).
    ///   - failureLimit: how many failures are remembered.
    ///   - work: produces the value for a key.
    ///
    /// ```swift
    /// let shared = CostLimitedCache<URL, Bitmap>(costLimit: 64 << 20) { $0.byteCount }
    /// let thumbnails = ContentLoader(queue: decoding, cache: shared) { url, ctx in try decodeThumbnail(url, ctx) }
    /// ```
    public init(
        name: String = "content", queue: WorkQueue, deliveryQueue: WorkQueue = .main,
        cache: CostLimitedCache<Key, Value>, cachesFailures: Bool = false, failureLimit: Int = 256,
        work: @escaping Work
    ) {
        self.name = name
        self.queue = queue
        self.deliveryQueue = deliveryQueue
        self.cache = cache
        self.cachesFailures = cachesFailures
        self.failures = CostLimitedCache(costLimit: cachesFailures ? failureLimit : 0)
        self.work = work
        self.deliveryLabel = name + " delivery"
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
    /// returns; otherwise `deliver` is called once on ``deliveryQueue`` when the key's item finishes, unless the
    /// request was cancelled first.
    ///
    /// ```swift
    /// let request = loader.request("AAPL") { result in show(result) }
    /// request.cancel()   // no longer needed; the item is cancelled if nobody else asked for AAPL
    /// ```
    @discardableResult
    public func request(
        _ key: Key, priority: WorkPriority = .visible,
        deliver: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> ContentRequest<Key, Value> {
        let counters = self.counters
        return submit(key, priority: priority) { result in
            counters.deliveries.add(1, ordering: .relaxed)
            deliver(result)
        }
    }

    /// ``request(_:priority:deliver:)`` without counting deliveries (bindings count what they accept).
    func submit(
        _ key: Key, priority: WorkPriority, deliver: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> ContentRequest<Key, Value> {
        if let cached = cachedResult(key) {
            state.withLock { $0.stats.requests += 1 }
            counters.cacheHits.add(1, ordering: .relaxed)
            deliver(cached)
            return ContentRequest(loader: nil, key: key, entry: 0, requester: 0)
        }
        switch join(key, priority: priority, deliver: deliver) {
        case .created(let entry, let requester, _), .joined(let entry, let requester, _):
            return ContentRequest(loader: self, key: key, entry: entry, requester: requester)
        case .alreadyPrefetching:
            return ContentRequest(loader: nil, key: key, entry: 0, requester: 0)
        }
    }

    /// Starts loading `keys` at low priority so they are ready when they scroll into view. Keys already cached or
    /// already prefetched are skipped; a key a binding already loads just gains a prefetch requester.
    ///
    /// ```swift
    /// loader.prefetch(rows.map(symbol(forRow:)))
    /// ```
    public func prefetch(_ keys: some Sequence<Key>, priority: WorkPriority = .prefetch) {
        for key in keys where !cache.touch(key) {
            _ = join(key, priority: priority, deliver: nil)
        }
    }

    /// Withdraws the loader's prefetch of `keys`. A key's item is cancelled if nobody else asked for it.
    ///
    /// ```swift
    /// loader.cancelPrefetch(rowsThatLeftThePreloadRange.map(symbol(forRow:)))
    /// ```
    public func cancelPrefetch(_ keys: some Sequence<Key>) {
        for key in keys {
            guard let request = state.withLock({ $0.prefetchRequest(key) }) else { continue }
            cancel(key, entry: request.entry, requester: request.requester)
        }
    }

    /// Cancels everything in flight, atomically: once this returns no pending result is delivered, no binding
    /// receives a value it asked for before, and items not yet started never start. Running bodies see
    /// `isCancelled`. Items finishing later do not fill the cache.
    ///
    /// ```swift
    /// func screenDidDisappear() { loader.invalidate() }
    /// func reloadData() { loader.invalidate(clearingCache: true) }
    /// ```
    /// - Parameter clearingCache: also empty the cache (and the remembered failures).
    public func invalidate(clearingCache: Bool = false) {
        let items = state.withLock { $0.invalidate() }
        for item in items { withdraw(item) }
        if clearingCache {
            cache.removeAll()
            failures.removeAll()
        }
    }

    // MARK: Introspection

    /// What the loader has done so far.
    public var stats: ContentLoaderStats {
        var stats = state.withLock { $0.stats }
        counters.merge(into: &stats)
        return stats
    }

    /// How many keys have an item in flight.
    public var inFlightCount: Int { state.withLock { $0.entries.count } }

    /// The priority of the item in flight for `key` (the highest its requesters ask for), or nil when none is.
    ///
    /// ```swift
    /// hud.text = "AAPL: \(loader.inFlightPriority(of: "AAPL").map(String.init(describing:)) ?? "idle")"
    /// ```
    public func inFlightPriority(of key: Key) -> WorkPriority? {
        state.withLock { $0.entries[key]?.item.priority }
    }

    // MARK: Internals

    private func cachedResult(_ key: Key) -> Result<Value, any Error>? {
        if let value = cache.value(forKey: key) { return .success(value) }
        if cachesFailures, let failure = failures.value(forKey: key) { return .failure(failure.error) }
        return nil
    }

    private func join(_ key: Key, priority: WorkPriority, deliver: LoaderState<Key, Value>.Deliver?)
        -> LoaderState<Key, Value>.Joined
    {
        let joined = state.withLock { state in
            state.join(key, priority: priority, deliver: deliver) { priority, run, epoch in
                makeItem(key, priority: priority, run: run, epoch: epoch)
            }
        }
        switch joined {
        case .created(_, _, let item):
            try? queue.enqueue(item)
        case .joined(let entry, _, let reprioritize):
            if reprioritize { applyPriority(key, entry: entry) }
        case .alreadyPrefetching:
            break
        }
        return joined
    }

    /// The item for one run of `key`. Its body sends its own result to the delivery queue, so an item the loader
    /// cancels costs nothing more (no completion hop for every cancelled row while a list flings).
    private func makeItem(_ key: Key, priority: WorkPriority, run: UInt64, epoch: UInt64) -> WorkItem<Value> {
        let work = self.work, counters = self.counters
        return WorkItem(label: "\(name) \(key)", priority: priority) { [weak self] (context: WorkContext) throws -> Value in
            counters.started.add(1, ordering: .relaxed)
            let result = Result { try work(key, context) }
            if let self {
                let cancelled = context.isCancelled
                deliveryQueue.add(label: deliveryLabel, priority: .visible) { _ in
                    self.finish(key, run: run, epoch: epoch, result: result, cancelled: cancelled)
                }
            }
            return try result.get()
        }
    }

    func cancel(_ key: Key, entry: UInt64, requester: UInt64) {
        switch state.withLock({ $0.leave(key, entry: entry, requester: requester) }) {
        case .nothing: break
        case .cancel(let item): withdraw(item)
        case .reprioritize: applyPriority(key, entry: entry)
        }
    }

    /// Cancels an item nobody wants any more.
    private func withdraw(_ item: WorkItem<Value>) {
        if !item.state.isFinished { counters.cancelled.add(1, ordering: .relaxed) }
        item.cancel()
    }

    func setPriority(_ priority: WorkPriority, key: Key, entry: UInt64, requester: UInt64) {
        if state.withLock({ $0.setPriority(priority, key: key, entry: entry, requester: requester) }) {
            applyPriority(key, entry: entry)
        }
    }

    func isPending(_ key: Key, entry: UInt64) -> Bool {
        state.withLock { $0.isPending(key, entry: entry) }
    }

    /// Gives the key's item the highest priority its requesters ask for (see ``LoaderState/nextPriority``).
    private func applyPriority(_ key: Key, entry: UInt64) {
        var next = state.withLock { $0.nextPriority(key, entry: entry, continuing: false) }
        while let (item, priority) = next {
            item.priority = priority
            next = state.withLock { $0.nextPriority(key, entry: entry, continuing: true) }
        }
    }

    /// Runs on the delivery queue when the body of run `run` of `key` returned or threw.
    private func finish(
        _ key: Key, run: UInt64, epoch: UInt64, result: Result<Value, any Error>, cancelled: Bool
    ) {
        let succeeded = if case .success = result { true } else { false }
        let (finished, cacheable) = state.withLock {
            $0.finish(key, run: run, epoch: epoch, succeeded: succeeded, cancelled: cancelled)
        }
        if cacheable {
            switch result {
            case .success(let value): cache.insert(value, forKey: key)
            case .failure(let error) where cachesFailures: failures.insert(FailedLoad(error: error), forKey: key)
            case .failure: break
            }
        }
        guard case .deliver(let requesters) = finished else { return }
        for deliver in requesters { deliver(result) }
    }
}

/// A remembered failure.
struct FailedLoad: Sendable {
    let error: any Error
}
