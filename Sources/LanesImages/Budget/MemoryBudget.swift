import Lanes

/// A limit on bytes in flight — decoded bitmaps being produced — that makes work wait for room instead of all
/// allocating at once.
///
/// Work reserves the bytes it is about to allocate and starts when they are granted; releasing them (or dropping the
/// reservation) lets waiting work go. Nothing blocks a thread: ``reserve(_:priority:granted:)`` calls back, and the
/// `async` ``reserve(_:priority:)`` suspends.
///
/// **Order.** Waiters are granted highest priority first, first come first served within a priority. Only the head
/// of that order is considered: if it does not fit, nobody behind it is granted, even a smaller request that would
/// fit. A big decode therefore cannot be starved by a stream of small ones; the cost is that small ones wait behind it.
/// A later request of higher priority goes ahead of it.
///
/// **Oversize.** A request bigger than ``limit`` is granted when nothing else is reserved, so it runs alone rather
/// than waiting forever; ``peakInUse`` can then exceed ``limit``.
///
/// **Delivery.** Grants are delivered outside the lock: at once on the caller's thread when the request fits, else on
/// the thread that releases (or cancels, or re-prioritises) and so makes room. Keep `granted` short — start the work
/// on a queue rather than doing it there; a `granted` that releases synchronously nests one delivery in another.
///
/// ```swift
/// let budget = MemoryBudget(limit: 256 << 20)
/// let request = budget.reserve(width * height * 4, priority: .visible) { reservation in
///     decodeQueue.add { _ in
///         defer { reservation.release() }
///         return try decoder.decode(data)
///     }
/// }
/// // cell scrolled away before room was found:
/// request.cancel()
/// ```
public final class MemoryBudget: Sendable {
    /// The most bytes reservations may add up to (but see the oversize rule above).
    ///
    /// ```swift
    /// let budget = MemoryBudget(limit: 64 << 20)
    /// print(budget.limit)   // 67108864
    /// ```
    public let limit: Int

    private let state: LockedValue<BudgetState>

    /// Creates a budget of `limit` bytes (negative counts as 0, which runs reservations one at a time).
    ///
    /// ```swift
    /// let budget = MemoryBudget(limit: 512 << 20)
    /// ```
    public init(limit: Int) {
        self.limit = max(0, limit)
        state = LockedValue(BudgetState(limit: self.limit))
    }

    /// Asks for `bytes` (negative counts as 0) and calls `granted` with the reservation once they fit.
    ///
    /// `granted` runs outside any lock: before this method returns when there is room now, else later on the thread
    /// that makes room. The returned request can be withdrawn or re-prioritised while it waits.
    ///
    /// ```swift
    /// let request = budget.reserve(bytes, priority: .prefetch) { reservation in
    ///     queue.add { _ in defer { reservation.release() }; render() }
    /// }
    /// request.setPriority(.visible)   // the row scrolled into view
    /// ```
    @discardableResult
    public func reserve(_ bytes: Int, priority: WorkPriority,
                        granted: @escaping @Sendable (BudgetReservation) -> Void) -> BudgetRequest {
        let bytes = max(0, bytes)
        let (id, grants) = state.withLock { $0.enqueue(bytes, priority: priority, deliver: granted) }
        deliver(grants)
        return BudgetRequest(budget: self, id: id)
    }

    /// Takes `bytes` at once if they fit and nobody is waiting (waiters are never overtaken); nil otherwise.
    ///
    /// ```swift
    /// if let reservation = budget.tryReserve(thumbnailBytes) {
    ///     defer { reservation.release() }
    ///     renderThumbnail()
    /// }
    /// ```
    public func tryReserve(_ bytes: Int) -> BudgetReservation? {
        let bytes = max(0, bytes)
        guard state.withLock({ $0.tryReserve(bytes) }) else { return nil }
        return BudgetReservation(budget: self, bytes: bytes)
    }

    /// Bytes currently reserved.
    ///
    /// ```swift
    /// print("\(budget.inUse >> 20) MiB decoding")
    /// ```
    public var inUse: Int { state.withLock { $0.inUse } }

    /// Requests waiting for room.
    ///
    /// ```swift
    /// if budget.waiting > 10 { print("decodes are memory-bound") }
    /// ```
    public var waiting: Int { state.withLock { $0.waiting } }

    /// The most bytes ever reserved at once; at most ``limit`` unless an oversize request was granted alone.
    ///
    /// ```swift
    /// assert(budget.peakInUse <= budget.limit)
    /// ```
    public var peakInUse: Int { state.withLock { $0.peak } }

    // MARK: Internal

    func release(_ bytes: Int) {
        deliver(state.withLock { $0.release(bytes) })
    }

    func cancel(_ id: UInt64) -> Bool {
        let (withdrawn, grants) = state.withLock { $0.cancel(id) }
        deliver(grants)
        return withdrawn
    }

    func setPriority(_ id: UInt64, _ priority: WorkPriority) {
        deliver(state.withLock { $0.setPriority(id, priority) })
    }

    func isWaiting(_ id: UInt64) -> Bool { state.withLock { $0.isWaiting(id) } }

    private func deliver(_ grants: [BudgetState.Grant]) {
        for grant in grants { grant.deliver(BudgetReservation(budget: self, bytes: grant.bytes)) }
    }
}
