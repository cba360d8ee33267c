import Lanes
import LanesLists
import LanesTesting
import Testing

// The example of the "A list that follows the user" article (Sources/LanesLists/LanesLists.docc), compiled and run.
// Keep the two in step.

@MainActor final class ChartCell {
    var chart: String?
    var content: ContentBinding<Int, String>!
}

@MainActor final class StockList {
    let loader: ContentLoader<Int, String>
    let list: ListModel<ChartCell>

    init(
        fetches: WorkQueue, charts: WorkQueue, deliveryQueue: WorkQueue = .main,
        clock: any LaneClock = SystemLaneClock()
    ) {
        charts.setSpeculativeLimit(1, below: .normal)
        loader = ContentLoader(deliveryQueue: deliveryQueue, cache: CostLimitedCache(costLimit: 500)) { job in
            job.run(on: fetches, { _ in (0..<50).map { Double(job.key + $0) } }) { series in
                job.run(on: charts) { context in
                    try context.checkCancellation()
                    return "chart of row \(job.key): \(try series.get().count) points"
                }
            }
        }
        let loader = self.loader
        list = ListModel(rowCount: 10_000, rowHeight: 44, viewportHeight: 440, clock: clock) {
            let cell = ChartCell()
            cell.content = loader.binding { [unowned cell] _, result in cell.chart = try? result.get() }
            return cell
        }
        list.connect(to: loader, key: { $0 }, binding: { $0.content })
    }
}

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
}
