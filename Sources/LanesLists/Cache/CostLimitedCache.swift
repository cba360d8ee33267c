import Lanes

/// A thread-safe memory cache with an exact cost limit and least-recently-used eviction.
///
/// Every entry has a cost (bytes of a bitmap, points of a series, or 1 to limit the count); the sum of the costs of
/// the entries held never exceeds ``costLimit``, at any moment, whatever threads do. Storing a value evicts the least
/// recently used entries until it fits; a value that costs more than the whole limit is not stored. Reads, writes and
/// evictions are O(1).
///
/// ```swift
/// let charts = CostLimitedCache<String, Chart>(costLimit: 32 << 20) { $0.byteCount }
/// charts["AAPL"] = chart           // may evict older charts to stay under 32 MiB
/// if let chart = charts["AAPL"] { show(chart) }
/// ```
public final class CostLimitedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    // The state is `@usableFromInline`, and the lookups `@inlinable`, so a cache of another module's types (the
    // image pipeline's of `ImageRequest`s) runs its hits specialised.
    @usableFromInline struct State: Sendable {
        @usableFromInline var storage = LRUStorage<Key, Value>()
        var costLimit: Int
        var countLimit: Int
        @usableFromInline var hits = 0
        @usableFromInline var misses = 0
        var evictions = 0

        init(costLimit: Int, countLimit: Int) {
            self.costLimit = costLimit
            self.countLimit = countLimit
        }
    }

    @usableFromInline let state: LockedValue<State>
    private let costOf: @Sendable (Value) -> Int

    /// Creates a cache.
    /// - Parameters:
    ///   - costLimit: the most the costs of the entries held may add up to.
    ///   - countLimit: the most entries it holds (no limit by default).
    ///   - cost: the cost of a value (1 by default, so `costLimit` limits the count). Negative costs count as 0.
    ///
    /// ```swift
    /// let thumbnails = CostLimitedCache<URL, Bitmap>(costLimit: 16 << 20) { $0.byteCount }
    /// let recent = CostLimitedCache<String, Int>(costLimit: 100)   // at most 100 entries
    /// ```
    public init(costLimit: Int, countLimit: Int = .max, cost: @escaping @Sendable (Value) -> Int = { _ in 1 }) {
        state = LockedValue(State(costLimit: max(0, costLimit), countLimit: max(0, countLimit)))
        costOf = cost
    }

    /// The cached value for `key`, marked most recently used (nil on a miss); setting stores or removes it.
    ///
    /// ```swift
    /// cache["row 12"] = chart
    /// if let chart = cache[symbol] { cell.show(chart) }
    /// ```
    public subscript(key: Key) -> Value? {
        @inlinable get {
            state.withLock { state in
                let value = state.storage.value(forKey: key)
                if value == nil { state.misses += 1 } else { state.hits += 1 }
                return value
            }
        }
        set {
            if let newValue { insert(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// Whether a value for `key` is cached, without touching its recency or the hit counts.
    ///
    /// ```swift
    /// let needed = symbols.filter { !cache.contains($0) }
    /// ```
    public func contains(_ key: Key) -> Bool {
        state.withLock { $0.storage.contains(key) }
    }

    /// Marks the entry for `key` most recently used, without counting a hit; true when it is cached.
    ///
    /// ```swift
    /// if !cache.touch(key) { startLoading(key) }   // about to be shown: keep it
    /// ```
    @discardableResult
    public func touch(_ key: Key) -> Bool {
        state.withLock { $0.storage.value(forKey: key) != nil }
    }

    /// Stores `value` for `key` as the most recently used entry, evicting least recently used entries until the
    /// total cost fits the limit. Returns false (and removes any older value for `key`) when `value` alone costs more
    /// than the limit.
    ///
    /// ```swift
    /// cache.insert(chart, forKey: "AAPL", cost: chart.byteCount)
    /// ```
    /// - Parameters:
    ///   - value: the value to store.
    ///   - key: its key.
    ///   - cost: the value's cost; the cache's cost function decides when nil.
    @discardableResult
    public func insert(_ value: Value, forKey key: Key, cost: Int? = nil) -> Bool {
        let cost = max(0, cost ?? costOf(value))
        return change { state, released in
            guard cost <= state.costLimit, state.countLimit > 0 else {
                if let old = state.storage.removeValue(forKey: key) { released.append(old) }
                return false
            }
            if let old = state.storage.insert(value, forKey: key, cost: cost) { released.append(old) }
            return true
        }
    }

    /// Removes and returns the value for `key`.
    ///
    /// ```swift
    /// cache.removeValue(forKey: staleSymbol)
    /// ```
    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        state.withLock { $0.storage.removeValue(forKey: key) }
    }

    /// Removes every entry.
    ///
    /// ```swift
    /// cache.removeAll()   // memory warning
    /// ```
    public func removeAll() {
        let released = state.withLock { $0.storage.removeAll() }
        _ = released
    }

    /// The most the costs of the held entries may add up to. Lowering it evicts at once.
    public var costLimit: Int {
        get { state.withLock { $0.costLimit } }
        set { change { state, _ in state.costLimit = max(0, newValue) } }
    }

    /// The most entries the cache holds. Lowering it evicts at once.
    public var countLimit: Int {
        get { state.withLock { $0.countLimit } }
        set { change { state, _ in state.countLimit = max(0, newValue) } }
    }

    /// The sum of the costs of the entries held now (never above ``costLimit``).
    public var totalCost: Int { state.withLock { $0.storage.totalCost } }

    /// How many entries are held now.
    public var count: Int { state.withLock { $0.storage.count } }

    /// The keys held, most recently used first.
    public var keysByRecency: [Key] { state.withLock { $0.storage.keysByRecency } }

    /// Lookups that found a value, lookups that did not, and entries evicted to make room, since the cache was made.
    public var statistics: (hits: Int, misses: Int, evictions: Int) {
        state.withLock { ($0.hits, $0.misses, $0.evictions) }
    }

    /// Runs `change` under the lock, then evicts until the cache fits its limits. Values leaving the cache (the ones
    /// `change` adds to `released`, and the evicted) are released after the lock, in case their deinit does real work.
    @discardableResult
    private func change<Result: Sendable>(_ change: (inout State, inout [Value]) -> Result) -> Result {
        var released: [Value] = []
        let result = state.withLock { state in
            let result = change(&state, &released)
            Self.trim(&state, into: &released)
            return result
        }
        _ = released
        return result
    }

    private static func trim(_ state: inout State, into released: inout [Value]) {
        while state.storage.totalCost > state.costLimit || state.storage.count > state.countLimit,
            let oldest = state.storage.oldestKey, let evicted = state.storage.removeValue(forKey: oldest)
        {
            released.append(evicted)
            state.evictions += 1
        }
    }
}
