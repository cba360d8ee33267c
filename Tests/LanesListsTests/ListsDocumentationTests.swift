import Lanes
import LanesLists
import LanesTesting
import Testing

// What "A list that follows the user" promises, run with the article's own `StockList` and `ChartCell`
// (Articles/AListThatFollowsTheUser.swift, generated from the article by scripts/check-snippets --update).

@MainActor
@Suite("LanesLists documentation examples", .timeLimit(.minutes(5)))
struct ListsDocumentationTests {
    let fetchExecutor = ManualExecutor(), chartExecutor = ManualExecutor(), mainExecutor = ManualExecutor()

    func makeList(clock: VirtualClock) -> StockList {
        StockList(
            fetches: WorkQueue("doc fetches", maxConcurrency: 4, executor: fetchExecutor),
            charts: WorkQueue("doc charts", maxConcurrency: 2, executor: chartExecutor),
            deliveryQueue: WorkQueue("doc main", maxConcurrency: 1, executor: mainExecutor), clock: clock)
    }

    func settle() {
        while fetchExecutor.runAll() + chartExecutor.runAll() + mainExecutor.runAll() > 0 {}
    }

    @Test("at rest only the visible rows load, through both steps, into their own cells")
    func restLoadsVisibleRowsOnly() {
        let clock = VirtualClock()
        let screen = makeList(clock: clock)
        screen.list.layoutIfNeeded()
        #expect(screen.list.visibleRows == 0..<10)
        #expect(screen.list.preloadRows.isEmpty)
        #expect(screen.loader.inFlightPriority(of: 0) == .visible)
        #expect(screen.loader.inFlightPriority(of: 10) == nil)
        settle()
        for row in 0..<10 {
            #expect(screen.list.cell(forRow: row)?.chart == "chart of row \(row): 50 points")
        }
    }

    @Test("jittering preloads nothing; a steady fling leans ahead; a reused cell never shows its old row")
    func followsTheUser() {
        let clock = VirtualClock()
        let screen = makeList(clock: clock)
        screen.list.layoutIfNeeded()
        for step in 0..<20 {                                   // ±1 row every frame
            clock.advance(by: .milliseconds(16))
            screen.list.scroll(by: step.isMultiple(of: 2) ? 44 : -44)
        }
        #expect(screen.list.preloadRows.isEmpty)
        for _ in 0..<12 {                                      // a steady fling: two rows a frame, 125 rows a second
            clock.advance(by: .milliseconds(16))
            screen.list.scroll(by: 44 * 2)
        }
        #expect(!screen.list.preloadRows.isEmpty)
        #expect(screen.list.preloadRows.allSatisfy { $0 >= screen.list.visibleRows.upperBound })
        settle()
        for row in screen.list.visibleRows {
            #expect(screen.list.cell(forRow: row)?.chart == "chart of row \(row): 50 points")
        }
        #expect(screen.loader.stats.wrongCellDeliveries == 0)
    }

    @Test("a reused cell shows its own row's chart or nothing, at every look during a scroll, never another row's")
    func reusedCellsNeverShowAnotherRow() {
        let clock = VirtualClock()
        let screen = makeList(clock: clock)
        screen.list.layoutIfNeeded()
        settle()                                               // rows 0–9 drawn: every cell holds a chart
        var looks = 0, wrong: [String] = []
        func look() {
            looks += 1
            for row in screen.list.visibleRows {
                guard let chart = screen.list.cell(forRow: row)?.chart else { continue }
                if chart != "chart of row \(row): 50 points" { wrong.append("row \(row) showed '\(chart)'") }
            }
        }
        for step in 0..<30 {                                   // a scroll of 3 rows a frame, work trickling in
            clock.advance(by: .milliseconds(16))
            screen.list.scroll(by: 44 * 3)
            look()
            if step.isMultiple(of: 3) { _ = fetchExecutor.runNext(); _ = chartExecutor.runNext(); _ = mainExecutor.runNext() }
            look()
        }
        screen.list.scroll(to: 44 * 200)                       // a jump: the cells are reused for rows 200–209
        look()
        settle()
        look()
        #expect(looks == 62)
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
        for row in screen.list.visibleRows {
            #expect(screen.list.cell(forRow: row)?.chart == "chart of row \(row): 50 points")
        }
    }
}
