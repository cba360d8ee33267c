import Lanes

/// The books of a ``MemoryBudget``: bytes in use and the queue of waiting requests, as a state machine.
///
/// Methods run under the budget's lock and return the grants to deliver; the budget calls them after unlocking.
/// Waiters wait in one FIFO per priority. Withdrawn or re-prioritised waiters leave a stale slot behind (recognised by
/// its ticket) that is skipped when it reaches the head, and swept when stale slots outnumber live waiters.
struct BudgetState: Sendable {
    /// A request to hand its bytes to, after unlocking.
    struct Grant: Sendable {
        var bytes: Int
        var deliver: @Sendable (BudgetReservation) -> Void
    }

    private struct Waiter: Sendable {
        var bytes: Int
        var priority: WorkPriority
        var ticket: UInt64
        var deliver: @Sendable (BudgetReservation) -> Void
    }

    private struct Slot: Sendable {
        var id: UInt64
        var ticket: UInt64
    }

    let limit: Int
    private(set) var inUse = 0
    private(set) var peak = 0
    private var waiters: [UInt64: Waiter] = [:]
    private var levels = [SlotQueue](repeating: SlotQueue(), count: WorkPriority.allCases.count)
    private var staleSlots = 0
    private var nextID: UInt64 = 1
    private var nextTicket: UInt64 = 1

    var waiting: Int { waiters.count }

    init(limit: Int) { self.limit = limit }

    /// Queues a request behind every waiter of its priority or higher, then grants what fits.
    mutating func enqueue(_ bytes: Int, priority: WorkPriority,
                          deliver: @escaping @Sendable (BudgetReservation) -> Void) -> (id: UInt64, grants: [Grant]) {
        let id = nextID
        nextID &+= 1
        let ticket = takeTicket()
        waiters[id] = Waiter(bytes: bytes, priority: priority, ticket: ticket, deliver: deliver)
        levels[priority.rawValue].append(Slot(id: id, ticket: ticket))
        return (id, drain())
    }

    /// Takes `bytes` now if nobody waits and they fit (or nothing is reserved).
    mutating func tryReserve(_ bytes: Int) -> Bool {
        guard waiters.isEmpty, fits(bytes) else { return false }
        take(bytes)
        return true
    }

    /// Gives `bytes` back and grants the waiters that now fit.
    mutating func release(_ bytes: Int) -> [Grant] {
        inUse -= bytes
        return drain()
    }

    /// Withdraws waiter `id`; whether it was still waiting, and the grants its leaving allows.
    mutating func cancel(_ id: UInt64) -> (withdrawn: Bool, grants: [Grant]) {
        guard waiters.removeValue(forKey: id) != nil else { return (false, []) }
        staleSlots += 1
        return (true, drain())
    }

    /// Moves waiter `id` to the back of `priority`'s queue (no effect once granted), and grants what that allows.
    mutating func setPriority(_ id: UInt64, _ priority: WorkPriority) -> [Grant] {
        guard var waiter = waiters[id], waiter.priority != priority else { return [] }
        waiter.priority = priority
        waiter.ticket = takeTicket()
        waiters[id] = waiter
        staleSlots += 1
        levels[priority.rawValue].append(Slot(id: id, ticket: waiter.ticket))
        return drain()
    }

    func isWaiting(_ id: UInt64) -> Bool { waiters[id] != nil }

    private func fits(_ bytes: Int) -> Bool { inUse == 0 || inUse + bytes <= limit }

    private mutating func take(_ bytes: Int) {
        inUse += bytes
        peak = max(peak, inUse)
    }

    private mutating func takeTicket() -> UInt64 {
        defer { nextTicket &+= 1 }
        return nextTicket
    }

    /// Grants waiters from the head (highest priority, then oldest) while the head fits; stops at the first that does
    /// not, so a big request is never overtaken by smaller ones of its priority or lower.
    private mutating func drain() -> [Grant] {
        var grants: [Grant] = []
        for level in levels.indices.reversed() {
            while let slot = levels[level].first {
                guard let waiter = waiters[slot.id], waiter.ticket == slot.ticket else {
                    levels[level].removeFirst()
                    staleSlots -= 1
                    continue
                }
                guard fits(waiter.bytes) else {
                    sweepIfStale()
                    return grants
                }
                levels[level].removeFirst()
                waiters[slot.id] = nil
                take(waiter.bytes)
                grants.append(Grant(bytes: waiter.bytes, deliver: waiter.deliver))
            }
        }
        sweepIfStale()
        return grants
    }

    private mutating func sweepIfStale() {
        guard staleSlots > 64, staleSlots > waiters.count else { return }
        let live = waiters
        for level in levels.indices {
            levels[level].removeAll { slot in live[slot.id]?.ticket != slot.ticket }
        }
        staleSlots = 0
    }

    /// A FIFO of slots: an array and a head index, compacted as the head advances.
    private struct SlotQueue: Sendable {
        private var items: [Slot] = []
        private var head = 0

        var first: Slot? { head < items.count ? items[head] : nil }

        mutating func append(_ slot: Slot) { items.append(slot) }

        mutating func removeFirst() {
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 32, head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
        }

        mutating func removeAll(where shouldRemove: (Slot) -> Bool) {
            items = items[head...].filter { !shouldRemove($0) }
            head = 0
        }
    }
}
