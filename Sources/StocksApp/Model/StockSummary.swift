import StocksKit

/// One row of a category's list: what the category load computes for each stock off the main queue.
///
/// ```swift
/// let row = try StockSummary(series, sparkWidth: 16)
/// print(row.symbol, row.last, row.spark)
/// ```
struct StockSummary: Sendable, Equatable {
    /// The series' id (the key of its row chart).
    var id: String
    var symbol: String
    var last: Double
    var change: Double
    var percentChange: Double?
    /// A block-character sparkline of the smoothed prices.
    var spark: String
    /// The years the series covers (``PriceSeries/period``): tells apart two series of one symbol.
    var period: String
    /// Whether prices are relative to the first point (``PriceSeries/Kind/relative``), shown as `×1.68`.
    var isRelative: Bool

    /// A summary from plain values (for tests and fixtures).
    init(
        id: String, symbol: String, last: Double, change: Double, percentChange: Double?, spark: String,
        period: String = "", isRelative: Bool = false
    ) {
        self.id = id
        self.symbol = symbol
        self.last = last
        self.change = change
        self.percentChange = percentChange
        self.spark = spark
        self.period = period
        self.isRelative = isRelative
    }

    /// Summarises `series`: headline statistics and a sparkline of its exponentially smoothed prices.
    /// - Throws: `CancellationError` when `isCancelled` returns true.
    init(_ series: PriceSeries, sparkWidth: Int, isCancelled: () -> Bool = { false }) throws(CancellationError) {
        let finite = series.prices.filter(\.isFinite)
        let stats = SummaryStats(finite)
        let smoothed = try Analysis.smooth(finite, with: .exponential(alpha: 0.3), isCancelled: isCancelled)
        self.init(
            id: series.id, symbol: series.symbol, last: stats?.last ?? .nan, change: stats?.change ?? .nan,
            percentChange: stats?.percentChange, spark: Sparkline.render(smoothed, width: sparkWidth),
            period: series.period, isRelative: series.kind == .relative)
    }
}

/// The work the app does for one category, one row chart and one detail chart: pure functions that run on a
/// processing lane (or, with `--naive`, on the main queue).
enum StockWork {
    /// The costly analysis behind every chart: robust LOESS smoothing and a Holt forecast fitted by grid search.
    static let options = AnalysisOptions(smoother: .loess(span: 0.2, robustnessIterations: 3), forecastHorizon: 20)

    /// Summaries of a category's stocks, polling `isCancelled` between stocks.
    static func summaries(
        _ series: [PriceSeries], sparkWidth: Int, isCancelled: () -> Bool
    ) throws(CancellationError) -> [StockSummary] {
        var rows: [StockSummary] = []
        rows.reserveCapacity(series.count)
        for item in series {
            if isCancelled() { throw CancellationError() }
            rows.append(try StockSummary(item, sparkWidth: sparkWidth, isCancelled: isCancelled))
        }
        return rows
    }

    /// A one-line braille chart of a stock (raw, smoothed, forecast) for its list row.
    static func rowChart(_ series: PriceSeries, width: Int, isCancelled: () -> Bool) throws(CancellationError) -> ChartRow {
        let result = try Analysis.run(series, options: options, isCancelled: isCancelled)
        let chart = ChartRenderer(width: width, height: 1, showsAxes: false, fillsBand: false).render(result)
        return chart.rows.first ?? ChartRow(characters: [], layers: [])
    }

    /// The detail screen's chart with axes and the forecast band.
    static func detailChart(
        _ series: PriceSeries, width: Int, height: Int, isCancelled: () -> Bool
    ) throws(CancellationError) -> DetailContent {
        let result = try Analysis.run(series, options: options, isCancelled: isCancelled)
        var period = series.period
        if series.kind == .relative, let first = series.dates.first {
            period += " · relative to \(StockDates.format(first))"
        }
        return DetailContent(
            symbol: series.symbol, sector: series.sector.displayName, summary: result.summary,
            forecastEnd: result.forecast.points.last,
            chart: ChartRenderer(width: width, height: height).render(result), period: period,
            isRelative: series.kind == .relative)
    }
}

/// What the detail screen shows once its analysis finished.
struct DetailContent: Sendable, Equatable {
    var symbol: String
    var sector: String
    var summary: SummaryStats?
    var forecastEnd: ForecastPoint?
    var chart: Chart
    /// The years covered, and for a relative series what it is relative to (`2018–2019 · relative to 2018-01-01`).
    var period: String = ""
    /// Whether the numbers are relative to the first point (shown as `×1.68`).
    var isRelative = false
}
