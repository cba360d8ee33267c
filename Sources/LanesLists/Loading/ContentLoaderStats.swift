import Lanes

/// What a ``ContentLoader`` has done since it was made: for an app's HUD, a benchmark, or a test.
///
/// ```swift
/// let stats = loader.stats
/// print("hits \(stats.cacheHits), renders \(stats.started), cancelled \(stats.cancelled)")
/// ```
public struct ContentLoaderStats: Sendable, Equatable, CustomStringConvertible {
    /// Requests made: by bindings, by ``ContentLoader/request(_:priority:deliver:)`` and by prefetches.
    public var requests = 0
    /// Requests answered synchronously from the cache (values, or failures when failures are cached).
    public var cacheHits = 0
    /// Requests that joined a job already in flight for the same key instead of starting another.
    public var joined = 0
    /// Jobs started (one per key in flight).
    public var scheduled = 0
    /// Bodies of `Work` that started (a loader made with a `Make` counts none: its items are its own).
    public var started = 0
    /// Jobs that produced a value.
    public var completed = 0
    /// Jobs that failed (not counting cancellations).
    public var failed = 0
    /// Jobs cancelled before they ended: withdrawn by the loader because every requester left or
    /// ``ContentLoader/invalidate(clearingCache:)`` ran (most never start; a running step sees `isCancelled`, and
    /// if it finishes anyway its value still goes to the cache, unless the loader was invalidated), or cancelled
    /// behind the loader's back (its queue's `cancelAll()`), which ends the job with `CancellationError` for every
    /// requester still waiting.
    public var cancelled = 0
    /// Results handed over: to ``ContentLoader/request(_:priority:deliver:)`` callers, and to bindings that still
    /// showed the key (synchronous cache hits included).
    public var deliveries = 0
    /// Results that arrived after everyone who asked had moved on. Values among them went to the cache.
    public var staleDropped = 0
    /// Results a binding refused because it showed another key when they arrived. Zero by construction: the
    /// binding checks anyway, and counts here what it would have put into a reused cell.
    public var wrongCellDeliveries = 0
    /// Keys the loader prefetched (each started or joined a low-priority request).
    public var prefetches = 0

    /// All zero.
    public init() {}

    /// One line for logs and HUDs.
    public var description: String {
        "requests \(requests), hits \(cacheHits), joined \(joined), scheduled \(scheduled), started \(started), "
            + "completed \(completed), failed \(failed), cancelled \(cancelled), delivered \(deliveries), "
            + "stale \(staleDropped), wrong-cell \(wrongCellDeliveries), prefetches \(prefetches)"
    }
}

/// Counts kept in a statistics value under a lock, touched from any thread (callers, items finishing on workers,
/// bindings on the delivery queue) and read together: the loader's and the image pipeline's.
@usableFromInline package final class Counters<Stats: Sendable>: Sendable {
    private let stats: LockedValue<Stats>

    package init(_ initial: Stats) { stats = LockedValue(initial) }

    /// Adds one to each count named.
    @usableFromInline package func count(_ counts: WritableKeyPath<Stats, Int>...) {
        stats.withLock { stats in for count in counts { stats[keyPath: count] += 1 } }
    }

    /// The counts now.
    package var snapshot: Stats { stats.withLock { $0 } }
}

/// The loader's counts.
@usableFromInline typealias LoaderCounters = Counters<ContentLoaderStats>

extension Counters where Stats == ContentLoaderStats {

    /// Counts what happened to a job, and keeps its result: a value in `cache` (unless the loader was invalidated
    /// since the job started, or the loader's owner fills the cache: nil), a failure in `failures` (when failures
    /// are cached) if it was delivered.
    func record<Key: Hashable & Sendable, Value: Sendable>(
        _ event: WorkTable<LoaderJob<Key>, Value>.Event, cache: CostLimitedCache<Key, Value>?,
        failures: CostLimitedCache<Key, FailedLoad>?
    ) {
        switch event {
        case .finished(let key, .success(let value), let current, let delivered):
            if delivered { count(\.completed) } else { count(\.completed, \.staleDropped) }
            if current { cache?.insert(value, forKey: key.key) }
        case .finished(_, .failure(let error), _, let delivered) where error is CancellationError:
            // Cancelled behind the loader's back (its queue's `cancelAll()`); withdrawn jobs were counted already.
            if delivered { count(\.cancelled) }
        case .finished(let key, .failure(let error), _, let delivered):
            count(\.failed)
            if delivered, let failures { failures.insert(FailedLoad(error: error), forKey: key.key) }
        case .withdrawn:
            count(\.cancelled)
        }
    }
}
