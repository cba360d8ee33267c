import Dispatch
import Lanes
import LanesImages
import Testing

@Suite(.timeLimit(.minutes(5))) struct MemoryBudgetConcurrencyTests {
    @Test func eightThreadsReservingAndReleasingNeverExceedTheLimit() async {
        let limit = 1_000
        let budget = MemoryBudget(limit: limit)
        let grants = LockedValue(0)
        let overLimit = LockedValue(0)

        // Every thread first holds 100 bytes until all eight hold theirs, so reservations overlap whatever the
        // scheduler does (the peak is then at least 800); then the random mix runs.
        let allHolding = DispatchGroup()
        for _ in 0..<8 { allHolding.enter() }
        let barrierTimedOut = LockedValue(false)
        await DiskTestSupport.onThreads(8) { thread in
            let first = budget.tryReserve(100)
            allHolding.leave()
            if allHolding.wait(timeout: .now() + 60) == .timedOut { barrierTimedOut.withLock { $0 = true } }
            first?.release()
            var random = DiskTestSupport.Random(seed: thread + 100)
            let priorities = WorkPriority.allCases
            for _ in 0..<1_000 {
                let bytes = 1 + random.next(limit / 3)
                let reservation: BudgetReservation?
                switch random.next(10) {
                case 0, 1:
                    reservation = budget.tryReserve(bytes)
                default:
                    let arrived = DispatchSemaphore(value: 0)
                    let box = LockedValue<BudgetReservation?>(nil)
                    let request = budget.reserve(bytes, priority: priorities[random.next(priorities.count)]) { granted in
                        box.withLock { $0 = granted }
                        arrived.signal()
                    }
                    if random.next(4) == 0 { request.setPriority(priorities[random.next(priorities.count)]) }
                    if random.next(5) == 0, request.cancel() {
                        reservation = nil                   // withdrawn: never granted
                    } else {
                        arrived.wait()
                        reservation = box.withLock { $0 }
                    }
                }
                guard let reservation else { continue }
                grants.withLock { $0 += 1 }
                if budget.inUse > limit { overLimit.withLock { $0 += 1 } }
                reservation.release()
            }
        }

        #expect(budget.peakInUse <= limit)
        #expect(!barrierTimedOut.withLock { $0 })
        #expect(budget.peakInUse >= 800)
        #expect(overLimit.withLock { $0 } == 0)
        #expect(budget.inUse == 0)
        #expect(budget.waiting == 0)
        #expect(grants.withLock { $0 } > 4_000)
    }
}
