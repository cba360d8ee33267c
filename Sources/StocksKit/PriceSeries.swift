import Foundation

/// The price history of one symbol: parallel arrays of dates and prices, oldest first.
///
/// Dates are midnight UTC of each trading day (see ``StockDates``). Prices are whatever
/// the source holds: dollars for most files, or prices relative to the first row for the
/// bundled plotly data set.
///
/// ```swift
/// let series = PriceSeries(
///     symbol: "AAPL",
///     dates: [StockDates.date(year: 2024, month: 1, day: 2)!,
///             StockDates.date(year: 2024, month: 1, day: 3)!],
///     prices: [185.6, 184.3])
/// series.sector          // .technology (from the built-in table)
/// series.lastPrice       // 184.3
/// ```
public struct PriceSeries: Sendable, Equatable, Identifiable {
    /// What a series' numbers are.
    public enum Kind: Sendable, Equatable {
        /// Prices in a currency.
        case price
        /// Prices relative to the first point (1.0 = the first date's price), as in the bundled plotly data set.
        case relative
    }

    /// The ticker symbol, e.g. "AAPL".
    public var symbol: String
    /// The sector used to group this series into a category.
    public var sector: Sector
    /// Where the series came from (a file name stem such as
    /// "vega-stocks-monthly-2000-2010", or "synthetic"); empty when unknown.
    public var source: String
    /// The trading days, oldest first; same count as ``prices``.
    public private(set) var dates: [Date]
    /// The prices, one per date.
    public private(set) var prices: [Double]
    /// Whether ``prices`` are prices or relative to the first point; apps show the two differently.
    public var kind: Kind

    /// Creates a series.
    ///
    /// - Parameters:
    ///   - symbol: The ticker symbol.
    ///   - dates: The trading days, oldest first.
    ///   - prices: The prices, one per date.
    ///   - kind: Whether `prices` are prices or relative to the first point.
    ///   - source: Where the data came from.
    ///   - sector: The category; when nil, looked up with ``Sector/known(symbol:)``.
    /// - Precondition: `dates.count == prices.count`.
    public init(
        symbol: String, dates: [Date], prices: [Double], sector: Sector? = nil, source: String = "", kind: Kind = .price
    ) {
        precondition(dates.count == prices.count, "PriceSeries: \(dates.count) dates but \(prices.count) prices")
        self.symbol = symbol
        self.sector = sector ?? Sector.known(symbol: symbol)
        self.source = source
        self.dates = dates
        self.prices = prices
        self.kind = kind
    }

    /// A stable identifier: `source/symbol`, or just the symbol when the source is empty.
    ///
    /// Two data sets may hold the same symbol (the bundled files both have AAPL), so the
    /// symbol alone is not unique in a ``StockUniverse``.
    public var id: String { source.isEmpty ? symbol : source + "/" + symbol }

    /// The number of points.
    public var count: Int { prices.count }

    /// Whether the series has no points.
    public var isEmpty: Bool { prices.isEmpty }

    /// The most recent price, or nil for an empty series.
    public var lastPrice: Double? { prices.last }

    /// The years the series covers, for telling apart two series of one symbol: `2000–2010`, `2018–2019`, or one
    /// year alone; empty for an empty series.
    ///
    /// ```swift
    /// series.period   // "2024"
    /// ```
    public var period: String {
        guard let range = dateRange else { return "" }
        let first = StockDates.components(of: range.lowerBound).year
        let last = StockDates.components(of: range.upperBound).year
        return first == last ? String(first) : "\(first)–\(last)"
    }

    /// The oldest and newest date, or nil for an empty series.
    public var dateRange: ClosedRange<Date>? {
        guard let first = dates.first, let last = dates.last, first <= last else { return nil }
        return first...last
    }
}
