import Lanes
import LanesLists
import StocksKit

/// Which chart of a series is drawn.
enum ChartKind: Sendable, Hashable {
    /// The last 90 prices as a line (a stock's row, or a category's aggregate).
    case sparkline
    /// Prices, Savitzky–Golay smoothing and a Holt forecast, at a row's size.
    case analysis
    /// Prices, LOESS smoothing and a Holt forecast, at the detail view's size.
    case detail
}

/// One chart to draw: its kind and size, and the series it is drawn from. Two keys are the same chart when kind,
/// size and the series' id are (the series itself is the payload the drawing reads).
struct ChartKey: Hashable, Sendable, CustomStringConvertible {
    let kind: ChartKind
    let series: PriceSeries
    let width: Int
    let height: Int

    static func == (lhs: ChartKey, rhs: ChartKey) -> Bool {
        lhs.kind == rhs.kind && lhs.series.id == rhs.series.id && lhs.width == rhs.width && lhs.height == rhs.height
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(series.id)
        hasher.combine(width)
        hasher.combine(height)
    }

    var description: String { "\(kind) \(series.id) \(width)x\(height)" }
}

/// Why a chart could not be drawn (Cairo could not make its surface).
struct ChartNotDrawn: Error, CustomStringConvertible {
    let key: ChartKey
    var description: String { "the chart \(key) could not be drawn" }
}

/// The Stocks page's chart loaders: one `ContentLoader` per list the page shows (the categories' aggregate
/// sparklines, a category's stocks, the detail chart), sharing one queue and one cost-limited texture cache. Each
/// row's pictures are `ContentBinding`s to them, so a reused row never receives another row's chart, a chart wanted
/// by nobody any more is cancelled, and a drawn chart comes back from the cache at once.
///
/// ```swift
/// let charts = StockCharts()
/// let binding = charts.stocks.binding(placeholder: { _ in show(nil) }) { key, result in show(try? result.get()) }
/// binding.show(ChartKey(kind: .sparkline, series: series, width: 120, height: 28))
/// ```
struct StockCharts: Sendable {
    /// Where charts are drawn: two at a time on the app's background pool.
    let queue = WorkQueue("charts", maxConcurrency: 2, executor: PhotosPage.background)
    /// Drawn charts by cost in bytes: 48 MB (about 900 rows' two charts, or a few detail charts and the rest).
    let cache = CostLimitedCache<ChartKey, TextureHandle>(costLimit: 48 << 20) { $0.byteCount }
    let categories: ContentLoader<ChartKey, TextureHandle>
    let stocks: ContentLoader<ChartKey, TextureHandle>
    let detail: ContentLoader<ChartKey, TextureHandle>

    init() {
        categories = ContentLoader(name: "category charts", queue: queue, cache: cache, work: Self.draw)
        stocks = ContentLoader(name: "stock charts", queue: queue, cache: cache, work: Self.draw)
        detail = ContentLoader(name: "detail chart", queue: queue, cache: cache, work: Self.draw)
    }

    var all: [ContentLoader<ChartKey, TextureHandle>] { [categories, stocks, detail] }

    /// Draws `key`'s chart; a cancelled drawing throws instead of returning a half-drawn chart.
    @Sendable static func draw(_ key: ChartKey, _ context: WorkContext) throws -> TextureHandle {
        let cancelled = { context.isCancelled }
        let handle: TextureHandle?
        switch key.kind {
        case .sparkline:
            handle = ChartDrawing.sparkline(key.series.prices, width: key.width, height: key.height, isCancelled: cancelled)
        case .analysis:
            let analysis = try Analysis.run(
                key.series, options: AnalysisOptions(smoother: .savitzkyGolay(window: 21, order: 3)),
                isCancelled: cancelled)
            handle = ChartDrawing.analysis(analysis, width: key.width, height: key.height, isCancelled: cancelled)
        case .detail:
            let analysis = try Analysis.run(key.series, isCancelled: cancelled)
            handle = ChartDrawing.analysis(analysis, width: key.width, height: key.height, isCancelled: cancelled)
        }
        if context.isCancelled { throw CancellationError() }
        guard let handle else { throw ChartNotDrawn(key: key) }
        return handle
    }
}
