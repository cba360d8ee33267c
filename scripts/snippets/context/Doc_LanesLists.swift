// What the LanesLists doc comments' examples assume of the reader's app: a stock list whose rows show charts.
struct Chart: Sendable {}
let symbols = ["AAPL", "MSFT", "GOOG"]
let queue = WorkQueue("queue", maxConcurrency: 2)
let renders = WorkQueue("renders", maxConcurrency: 2)
let downloads = WorkQueue("downloads", maxConcurrency: 4)
let filters = WorkQueue("filters", maxConcurrency: 2)
let decoding = WorkQueue("decoding", maxConcurrency: 2)
func renderChart(_ symbol: String, _ ctx: WorkContext) throws -> Chart { Chart() }
let cache = CostLimitedCache<String, Chart>(costLimit: 100)
let charts = ContentLoader(queue: renders, cache: cache) { symbol, ctx in try renderChart(symbol, ctx) }
let loader = charts
let key = "AAPL"
@MainActor final class StockCell {
    var chart: Chart?
    lazy var content = charts.binding(placeholder: { [unowned self] _ in chart = nil }) { [unowned self] _, result in
        chart = try? result.get()
    }
}
@MainActor let cell = StockCell()
@MainActor let list = ListModel(rowCount: symbols.count, rowHeight: 1, viewportHeight: 20) { StockCell() }
@MainActor func show(_ chart: Chart) {}
