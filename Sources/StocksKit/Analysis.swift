import Foundation

/// The smoothing method ``Analysis`` applies to a series.
///
/// ```swift
/// let smooth = try Analysis.smooth(prices, with: .savitzkyGolay(window: 21, order: 3))
/// ```
public enum Smoother: Sendable, Equatable {
    /// Simple exponential smoothing with factor `alpha` (0…1; smaller is smoother).
    case exponential(alpha: Double)
    /// Holt's linear trend method; the smoothed series is the level.
    case holt(alpha: Double, beta: Double)
    /// Savitzky–Golay with an odd `window` and polynomial `order`.
    case savitzkyGolay(window: Int, order: Int)
    /// LOESS with `span` (fraction of points per local fit) and robustness passes.
    case loess(span: Double, robustnessIterations: Int)
}

/// What ``Analysis/run(_:options:isCancelled:)`` computes.
///
/// ```swift
/// var options = AnalysisOptions()
/// options.smoother = .savitzkyGolay(window: 21, order: 3)
/// options.forecastHorizon = 30
/// ```
public struct AnalysisOptions: Sendable, Equatable {
    /// The smoother; default robust LOESS over 10 % of the points, the costly choice.
    public var smoother: Smoother
    /// How many points to forecast after the last one.
    public var forecastHorizon: Int
    /// Holt's parameters for the forecast; nil fits them by grid search.
    public var holtParameters: HoltParameters?
    /// The band half-width in residual standard deviations.
    public var bandZ: Double

    /// Creates options; every parameter has a sensible default.
    public init(
        smoother: Smoother = .loess(span: 0.1, robustnessIterations: 2),
        forecastHorizon: Int = 20,
        holtParameters: HoltParameters? = nil,
        bandZ: Double = 1.96
    ) {
        self.smoother = smoother
        self.forecastHorizon = forecastHorizon
        self.holtParameters = holtParameters
        self.bandZ = bandZ
    }
}

/// Everything the stock browser shows for one series.
///
/// ```swift
/// let result = try Analysis.run(series)
/// let change = result.summary?.percentChange ?? 0
/// let chart = ChartRenderer(width: 80, height: 20).render(result)
/// ```
public struct AnalysisResult: Sendable, Equatable {
    /// The analysed series' symbol.
    public var symbol: String
    /// The dates of the finite prices.
    public var dates: [Date]
    /// The finite prices (non-finite ones are dropped before analysis).
    public var prices: [Double]
    /// The smoothed prices, one per price.
    public var smoothed: [Double]
    /// The forecast after the last price, with its band.
    public var forecast: Forecast
    /// Dates for the forecast points, continuing the series' cadence.
    public var forecastDates: [Date]
    /// Headline statistics; nil for a series without finite prices.
    public var summary: SummaryStats?
    /// How many non-finite prices were dropped.
    public var droppedPoints: Int
}

/// Runs the full per-series analysis: smoothing, forecast with band, summary statistics.
///
/// Pure and synchronous: call it on a background queue and pass a cancellation check.
///
/// ```swift
/// let series = try BundledStocks.load().series[0]
/// let result = try Analysis.run(series, options: AnalysisOptions(), isCancelled: { Task.isCancelled })
/// print(result.summary?.last ?? .nan, result.forecast.points.last?.upper ?? .nan)
/// ```
public enum Analysis {
    /// Analyses `series`.
    ///
    /// - Throws: `CancellationError` as soon as `isCancelled` returns true at one of the
    ///   polling points (every few hundred loop iterations in each stage).
    public static func run(
        _ series: PriceSeries, options: AnalysisOptions = AnalysisOptions(), isCancelled: () -> Bool = { false }
    ) throws(CancellationError) -> AnalysisResult {
        if isCancelled() { throw CancellationError() }
        var dates: [Date] = [], prices: [Double] = []
        dates.reserveCapacity(series.count)
        prices.reserveCapacity(series.count)
        for (date, price) in zip(series.dates, series.prices) where price.isFinite {
            dates.append(date)
            prices.append(price)
        }
        let smoothed = try smooth(prices, with: options.smoother, isCancelled: isCancelled)
        let forecast = try HoltForecast.forecast(
            prices, horizon: options.forecastHorizon, parameters: options.holtParameters,
            z: options.bandZ, floor: prices.allSatisfy { $0 >= 0 } ? 0 : nil, isCancelled: isCancelled)
        return AnalysisResult(
            symbol: series.symbol,
            dates: dates,
            prices: prices,
            smoothed: smoothed,
            forecast: forecast,
            forecastDates: TradingCalendar.dates(after: dates, count: forecast.points.count),
            summary: SummaryStats(prices),
            droppedPoints: series.count - prices.count)
    }

    /// Applies `smoother` to `values`.
    ///
    /// - Throws: `CancellationError` when `isCancelled` returns true.
    public static func smooth(
        _ values: [Double], with smoother: Smoother, isCancelled: () -> Bool = { false }
    ) throws(CancellationError) -> [Double] {
        switch smoother {
        case .exponential(let alpha):
            try ExponentialSmoothing.simple(values, alpha: alpha, isCancelled: isCancelled)
        case let .holt(alpha, beta):
            try ExponentialSmoothing.holt(values, alpha: alpha, beta: beta, isCancelled: isCancelled).level
        case let .savitzkyGolay(window, order):
            try SavitzkyGolay.smooth(values, window: window, order: order, isCancelled: isCancelled)
        case let .loess(span, iterations):
            try Loess.smooth(values, span: span, robustnessIterations: iterations, isCancelled: isCancelled)
        }
    }
}
