import Lanes
import Synchronization

/// A request waiting for room in a ``MemoryBudget``: withdraw it or change its priority while it waits.
///
/// ```swift
/// let request = budget.reserve(bytes, priority: .prefetch) { reservation in startDecode(reservation) }
/// request.setPriority(.visible)   // now on screen
/// request.cancel()                // scrolled away: never granted
/// ```
public final class BudgetRequest: Sendable {
    private let budget: MemoryBudget
    private let id: UInt64

    init(budget: MemoryBudget, id: UInt64) {
        self.budget = budget
        self.id = id
    }

    /// Withdraws the request if it is still waiting (its `granted` will never run) and lets the waiters behind it
    /// move up. Returns true if it withdrew it, false if it had already been granted or withdrawn.
    ///
    /// ```swift
    /// if !budgetRequest.cancel() { /* granted already: the reservation went to `granted`, release it there */ }
    /// ```
    @discardableResult
    public func cancel() -> Bool { budget.cancel(id) }

    /// Moves the waiting request to the back of `priority`'s queue (no effect once granted or withdrawn); raising it
    /// may grant it at once.
    ///
    /// ```swift
    /// budgetRequest.setPriority(.visible)
    /// ```
    public func setPriority(_ priority: WorkPriority) { budget.setPriority(id, priority) }

    /// Whether the request is still waiting (neither granted nor withdrawn).
    ///
    /// ```swift
    /// if budgetRequest.isWaiting { showPlaceholder() }
    /// ```
    public var isWaiting: Bool { budget.isWaiting(id) }
}

/// Bytes granted by a ``MemoryBudget``. Release them when the memory is freed; dropping the last reference to the
/// reservation releases them too, so a reservation cannot leak its bytes.
///
/// ```swift
/// let reservation = try await budget.reserve(bitmapBytes, priority: .visible)
/// defer { reservation.release() }
/// let bitmap = try decoder.decode(data)
/// ```
public final class BudgetReservation: Sendable {
    /// The bytes reserved.
    ///
    /// ```swift
    /// print("holding \(reservation.bytes) bytes")
    /// ```
    public let bytes: Int

    private let budget: MemoryBudget
    private let released = Atomic<Bool>(false)

    init(budget: MemoryBudget, bytes: Int) {
        self.budget = budget
        self.bytes = bytes
    }

    deinit { release() }

    /// Gives the bytes back and grants waiters that now fit, on this thread. Only the first call has an effect.
    ///
    /// ```swift
    /// reservation.release()
    /// reservation.release()   // no effect
    /// ```
    public func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        budget.release(bytes)
    }

    /// Whether ``release()`` has run.
    ///
    /// ```swift
    /// assert(!reservation.isReleased)
    /// ```
    public var isReleased: Bool { released.load(ordering: .acquiring) }
}
