import Lanes
import LanesImages
import LanesTesting
import Testing

/// Records grants (label and bytes) in the order they are delivered, keeping the reservations.
private final class GrantLog: Sendable {
    private let entries = LockedValue<[(label: String, reservation: BudgetReservation)]>([])

    func callback(_ label: String) -> @Sendable (BudgetReservation) -> Void {
        { reservation in self.entries.withLock { $0.append((label, reservation)) } }
    }

    var labels: [String] { entries.withLock { $0.map(\.label) } }

    func reservation(_ label: String) -> BudgetReservation? {
        entries.withLock { $0.first { $0.label == label }?.reservation }
    }
}

@Suite(.timeLimit(.minutes(5))) struct MemoryBudgetTests {
    @Test func grantsAtOnceWhileThereIsRoomThenInOrderAsBytesAreReleased() throws {
        let budget = MemoryBudget(limit: 100)
        let log = GrantLog()
        budget.reserve(60, priority: .normal, granted: log.callback("60"))
        budget.reserve(30, priority: .normal, granted: log.callback("30"))
        #expect(log.labels == ["60", "30"])           // delivered before reserve returned
        let twenty = budget.reserve(20, priority: .normal, granted: log.callback("20"))
        budget.reserve(5, priority: .normal, granted: log.callback("5"))   // would fit, but waits behind 20
        #expect(log.labels == ["60", "30"])
        #expect(budget.waiting == 2)
        #expect(twenty.isWaiting)
        #expect(budget.tryReserve(1) == nil)            // nobody overtakes waiters

        try #require(log.reservation("30")).release()  // 60 + 20 + 5 fit now
        #expect(log.labels == ["60", "30", "20", "5"])  // delivered on the releasing thread, before release returned
        #expect(!twenty.isWaiting)
        #expect(budget.inUse == 85)
        #expect(budget.waiting == 0)
        #expect(budget.peakInUse == 90)
    }

    @Test func higherPrioritiesGoFirstAndFIFOWithinAPriority() throws {
        let budget = MemoryBudget(limit: 10)
        let holder = try #require(budget.tryReserve(10))
        let log = GrantLog()
        budget.reserve(2, priority: .background, granted: log.callback("background"))
        budget.reserve(2, priority: .visible, granted: log.callback("visible 1"))
        budget.reserve(2, priority: .normal, granted: log.callback("normal"))
        budget.reserve(2, priority: .visible, granted: log.callback("visible 2"))
        budget.reserve(2, priority: .prefetch, granted: log.callback("prefetch"))
        budget.reserve(2, priority: .utility, granted: log.callback("utility"))
        #expect(log.labels.isEmpty)
        holder.release()
        #expect(log.labels == ["visible 1", "visible 2", "normal", "prefetch", "utility"])
        try #require(log.reservation("normal")).release()
        #expect(log.labels.last == "background")
    }

    @Test func aBigHeadBlocksSmallerRequestsOfItsPriorityButNotHigherOnes() throws {
        let budget = MemoryBudget(limit: 10)
        let holder = try #require(budget.tryReserve(6))
        let log = GrantLog()
        budget.reserve(8, priority: .normal, granted: log.callback("big"))
        budget.reserve(1, priority: .normal, granted: log.callback("small normal"))
        budget.reserve(1, priority: .utility, granted: log.callback("small utility"))
        #expect(log.labels.isEmpty)
        budget.reserve(3, priority: .visible, granted: log.callback("visible"))
        #expect(log.labels == ["visible"])              // ahead of the big one, and fits
        holder.release()
        try #require(log.reservation("visible")).release()
        #expect(log.labels == ["visible", "big", "small normal", "small utility"])
    }

    @Test func setPriorityReordersWaiters() throws {
        let budget = MemoryBudget(limit: 3)
        let holder = try #require(budget.tryReserve(3))
        let log = GrantLog()
        let a = budget.reserve(1, priority: .utility, granted: log.callback("a"))
        budget.reserve(1, priority: .utility, granted: log.callback("b"))
        let c = budget.reserve(1, priority: .utility, granted: log.callback("c"))
        c.setPriority(.visible)
        a.setPriority(.background)
        a.setPriority(.utility)                         // back of utility: behind b now
        holder.release()
        #expect(log.labels == ["c", "b", "a"])
        a.setPriority(.visible)                         // granted already: no effect, no crash
        #expect(budget.inUse == 3)
    }

    @Test func raisingAWaiterThatFitsGrantsItAtOnce() throws {
        let budget = MemoryBudget(limit: 10)
        let holder = try #require(budget.tryReserve(5))
        let log = GrantLog()
        budget.reserve(8, priority: .normal, granted: log.callback("big"))
        let small = budget.reserve(2, priority: .utility, granted: log.callback("small"))
        #expect(log.labels.isEmpty)
        small.setPriority(.visible)
        #expect(log.labels == ["small"])
        #expect(budget.inUse == 7)
        holder.release()
    }

    @Test func cancelWithdrawsAWaiterAndLetsTheOnesBehindMoveUp() throws {
        let budget = MemoryBudget(limit: 10)
        let holder = try #require(budget.tryReserve(6))
        let log = GrantLog()
        let big = budget.reserve(8, priority: .normal, granted: log.callback("big"))
        let small = budget.reserve(3, priority: .normal, granted: log.callback("small"))
        #expect(budget.waiting == 2)
        #expect(big.cancel())
        #expect(log.labels == ["small"])               // no longer blocked by the big head
        #expect(!big.cancel())                         // already withdrawn
        #expect(!small.cancel())                       // already granted
        #expect(budget.waiting == 0)
        holder.release()
        #expect(log.labels == ["small"])               // the withdrawn request is never granted
        #expect(budget.inUse == 3)
    }

    @Test func anOversizeRequestRunsAloneWhenNothingElseIsReserved() throws {
        let budget = MemoryBudget(limit: 10)
        let holder = try #require(budget.tryReserve(4))
        let log = GrantLog()
        budget.reserve(50, priority: .normal, granted: log.callback("oversize"))
        budget.reserve(1, priority: .normal, granted: log.callback("after"))
        #expect(log.labels.isEmpty)
        holder.release()
        #expect(log.labels == ["oversize"])
        #expect(budget.inUse == 50)
        #expect(budget.peakInUse == 50)
        try #require(log.reservation("oversize")).release()
        #expect(log.labels == ["oversize", "after"])

        let empty = MemoryBudget(limit: 10)
        let alone = try #require(empty.tryReserve(25))
        #expect(empty.tryReserve(1) == nil)
        alone.release()
        #expect(empty.tryReserve(1) != nil)
    }

    @Test func releaseIsIdempotentAndDroppingAReservationReleasesIt() throws {
        let budget = MemoryBudget(limit: 10)
        let reservation = try #require(budget.tryReserve(4))
        let other = try #require(budget.tryReserve(3))
        reservation.release()
        reservation.release()
        #expect(reservation.isReleased)
        #expect(budget.inUse == 3)
        do {
            let dropped = budget.tryReserve(5)
            #expect(dropped != nil)
            withExtendedLifetime(dropped) { #expect(budget.inUse == 8) }
        }
        #expect(budget.inUse == 3)               // the dropped reservation gave its bytes back
        withExtendedLifetime(other) {}
    }

    @Test func zeroAndNegativeRequestsAreGrantedAtOnce() throws {
        let budget = MemoryBudget(limit: 0)
        let log = GrantLog()
        budget.reserve(0, priority: .normal, granted: log.callback("zero"))
        budget.reserve(-5, priority: .normal, granted: log.callback("negative"))
        #expect(log.labels == ["zero", "negative"])
        #expect(log.reservation("negative")?.bytes == 0)
        #expect(budget.inUse == 0)
    }
}
