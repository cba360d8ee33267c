import Lanes
import LanesLists
import LanesTesting
import Testing

/// The adaptive preload driving a loader: speculative work follows the user and never runs before visible rows.
@MainActor
@Suite("Adaptive preload wired to a ContentLoader", .timeLimit(.minutes(5)))
struct AdaptivePreloadWiringTests {
    private func makeList(_ h: LoaderHarness, clock: VirtualClock) -> ListModel<TestCell> {
        var next = 0
        let loader = h.loader
        let list = ListModel(rowCount: 1_000, rowHeight: 1, viewportHeight: 4, preload: .adaptive(testPreload), clock: clock) {
            next += 1
            return TestCell(id: next, loader: loader)
        }
        list.connect(to: h.loader, key: { "row \($0)" }, binding: { $0.content })
        return list
    }

    private func move(_ list: ListModel<TestCell>, _ clock: VirtualClock, by rows: Double, frames: Int) {
        for _ in 0..<frames {
            clock.advance(by: .milliseconds(10))
            list.scroll(by: rows)
        }
    }

    @Test("rows coming on screen run before the speculative rows already queued")
    func visibleBeforeSpeculative() {
        let h = LoaderHarness(costLimit: 100_000)
        let clock = VirtualClock(start: 1_000_000_000)
        let list = makeList(h, clock: clock)
        list.layoutIfNeeded()
        h.settle()
        move(list, clock, by: 0.5, frames: 20)        // 50 rows/s
        let speculative = list.preloadRows
        // A steady scroll with a known cost (the loader measured the visible rows): the rows the threads need to have
        // the next ones ready, two renders and a frame of travel (one row at 50 rows/s), not the fixed lead.
        #expect(speculative.count == 1)
        #expect(h.loader.inFlightPriority(of: "row \(speculative.last!)") == .prefetch)
        clock.advance(by: .milliseconds(10))
        list.scroll(by: 10)                           // past the queued rows (not a jump: under 3 screens)
        #expect(list.preloadRows.isEmpty)             // a sudden speed-up: where it goes is not known yet
        let visible = Set(list.visibleRows.map { "row \($0)" })
        let before = h.ran.elements.count
        for _ in 0..<list.visibleRows.count { h.workExecutor.runNext() }
        #expect(Set(h.ran.elements.dropFirst(before)) == visible)
        h.settle()
        for row in list.visibleRows { #expect(list.cell(forRow: row)!.shown.last == "v:row \(row)") }
    }

    @Test("a loader made of chains plans on the threads it was given, as a queue's loader does")
    func chainLoaderPlansOnItsThreads() {
        let h = LoaderHarness(costLimit: 100_000)
        let clock = VirtualClock(start: 1_000_000_000)
        let costs = CostEstimate()
        costs.record(seconds: 0.000_01)
        let work = h.work
        let planned = ContentLoader<String, String>(
            name: "chain", deliveryQueue: h.main, cache: CostLimitedCache(costLimit: 100_000, cost: { $0.count }),
            costs: costs, threads: 2
        ) { key in
            work.add(priority: .background) { _ in "v:" + key }
        }
        let unplanned = ContentLoader<String, String>(
            name: "chain", deliveryQueue: h.main, cache: CostLimitedCache(costLimit: 100_000, cost: { $0.count }),
            costs: costs
        ) { key in
            work.add(priority: .background) { _ in "v:" + key }
        }
        #expect(planned.threads == 2)
        #expect(unplanned.threads == nil)
        var leads: [Int] = []
        for loader in [planned, unplanned] {
            let list = ListModel(rowCount: 1_000, rowHeight: 1, viewportHeight: 4, preload: .adaptive(testPreload), clock: clock) {
                TestCell(id: 0, loader: loader)
            }
            list.connect(to: loader, key: { "row \($0)" }, binding: { $0.content })
            list.layoutIfNeeded()
            h.settle()
            move(list, clock, by: 0.5, frames: 20)    // 50 rows/s
            leads.append(list.preloadRows.count)
            h.settle()
        }
        // With a cost and threads, the lead is what two renders and a frame need (one row); without threads the list
        // cannot plan and keeps the fixed lead.
        #expect(leads[0] == 1)
        #expect(leads[1] > leads[0])
    }

    @Test("a jump cancels the speculative work at once: none of it runs")
    func jumpCancelsSpeculativeWork() {
        let h = LoaderHarness(costLimit: 100_000)
        let clock = VirtualClock(start: 1_000_000_000)
        let list = makeList(h, clock: clock)
        list.layoutIfNeeded()
        h.settle()
        move(list, clock, by: 0.5, frames: 20)
        let speculative = list.preloadRows
        #expect(!speculative.isEmpty)
        clock.advance(by: .milliseconds(10))
        list.scroll(to: 700)
        for row in speculative { #expect(h.loader.inFlightPriority(of: "row \(row)") == nil) }
        let before = h.ran.elements.count
        h.settle()
        #expect(Array(h.ran.elements.dropFirst(before)) == (700..<704).map { "row \($0)" })
    }
}
