import Lanes
import LanesLists
import LanesTesting
import Testing

/// The cost-aware preload against the fixed lead, on a simulated render pool and a virtual clock.
@MainActor
@Suite("Cost-aware preload plan", .timeLimit(.minutes(5)))
struct PreloadPlanTests {
    /// With prefetch held to fewer threads than the queue has, the plan leaves fewer rows unshown than the fixed lead.
    @Test("the bench's fling: no more rows unshown than the fixed lead, waste under 5%")
    func flingPlans() {
        for (threads, speculative) in [(2, 1), (2, 2), (4, 3)] {
            let old = PreloadPlanSimulation(cost: 0.003, threads: threads, speculative: speculative, planned: false)
                .play(seconds: 4, path: PreloadPlanSimulation.fling)
            let new = PreloadPlanSimulation(cost: 0.003, threads: threads, speculative: speculative, planned: true)
                .play(seconds: 4, path: PreloadPlanSimulation.fling)
            let message: Comment = "threads \(threads)/\(speculative): \(new.unshown) against \(old.unshown)"
            if speculative < threads { #expect(new.unshown < old.unshown, message) } else {
                #expect(new.unshown <= old.unshown, message)
            }
            #expect(Double(new.wasted) <= 0.05 * Double(new.completed), "threads \(threads)/\(speculative)")
        }
    }

    @Test("a steady scroll the threads keep up with shows every row on arrival")
    func steadyScrollKeepsUp() {
        let outcome = PreloadPlanSimulation(cost: 0.003, threads: 2, speculative: 1, planned: true)
            .play(seconds: 3) { 120 * $0 }
        #expect(outcome.unshown == 0)
        // Only rows of the first frames wait (nothing is speculative while the scroll settles), and never a frame.
        #expect(outcome.shownLate.count <= 30)
        #expect(outcome.shownLate.allSatisfy { $0 <= 1.0 / 60 + 1e-9 })
    }

    @Test("the running cost estimate moves a quarter of the way to each new time")
    func costEstimate() {
        let costs = CostEstimate()
        #expect(costs.seconds == nil)
        costs.record(seconds: 0.004)
        #expect(costs.seconds == 0.004)
        costs.record(seconds: 0.008)
        #expect(costs.seconds == 0.005)
        costs.record(seconds: -1)
        costs.record(seconds: .nan)
        #expect(costs.samples == 2)
    }

    @Test("rows too close to be ready are skipped, not started; rows already started stay until they appear")
    func skipsRowsThatCannotMakeIt() {
        let clock = VirtualClock(start: 1_000_000_000)
        let list = ListModel(rowCount: 100_000, rowHeight: 1, viewportHeight: 20, clock: clock) { 0 }
        let costs = CostEstimate()
        costs.record(seconds: 0.02)                     // a render takes longer than a row stays on screen
        list.planPreload(costs: costs, threads: 1)
        list.layoutIfNeeded()
        for _ in 0..<12 {                             // 3,000 rows a second, steady: 50 rows a frame
            clock.advance(by: .milliseconds(16))
            list.scroll(by: 48)
        }
        let first = list.preloadRows.first ?? 0
        #expect(first > list.visibleRows.upperBound + 20)   // the nearest rows would leave before they are ready
        #expect(list.loadPriority(forRow: list.visibleRows.lowerBound) == .utility)
        #expect(list.preloadPriority == .normal)
        clock.advance(by: .milliseconds(16))
        list.scroll(by: 48)
        // The rows planned a frame ago and not yet on screen are still planned.
        #expect(list.preloadRows.first! <= max(first, list.visibleRows.upperBound))
        #expect(list.preloadRows.contains(first) || list.visibleRows.contains(first))
    }
}
