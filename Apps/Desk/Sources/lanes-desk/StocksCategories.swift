import CGtk4
import Foundation
import Lanes
import LanesAppSupport
import StocksKit

/// What the Stocks page loads off the main thread: the series grouped by sector, and one aggregate series per
/// category (drawn as the category's sparkline).
struct StockData: Sendable {
    var universe: StockUniverse
    var aggregates: [PriceSeries]

    /// Groups `series` and computes the aggregates (a few milliseconds for 5,000 series).
    init(_ series: [PriceSeries]) {
        universe = StockUniverse(series)
        aggregates = universe.categories.map(Self.aggregate)
    }

    /// Points in an aggregate: the sparkline draws the last 90.
    static let points = 90

    /// The mean of the category's series, each relative to its first price and resampled to ``points`` points over
    /// its own period (the bundled series cover different years, so this is a shape, not an index).
    static func aggregate(_ category: StockUniverse.Category) -> PriceSeries {
        var sums = [Double](repeating: 0, count: points), counts = [Int](repeating: 0, count: points)
        for item in category.series {
            let prices = item.prices
            guard prices.count > 1, let first = prices.first(where: { $0.isFinite && $0 > 0 }) else { continue }
            for point in 0..<points {
                let value = prices[point * (prices.count - 1) / (points - 1)]
                guard value.isFinite else { continue }
                sums[point] += value / first
                counts[point] += 1
            }
        }
        let prices = (0..<points).map { counts[$0] > 0 ? sums[$0] / Double(counts[$0]) : 1 }
        let dates = (0..<points).map { Date(timeIntervalSince1970: Double($0) * 86_400) }
        return PriceSeries(
            symbol: category.name, dates: dates, prices: prices, sector: category.sector, source: "category",
            kind: .relative)
    }
}

/// The category screen: the list shows one row per sector (name, how many stocks, the aggregate's change and
/// sparkline); activating a row shows that sector's stocks; Back (or Escape) returns at once and cancels the
/// category's chart work in flight.
extension StocksPage {
    /// Fills the list with the categories (on load, and on Back).
    func showCategories() {
        category = nil
        gtk_widget_set_visible(back, 0)
        setLabel(listTitle, "\(data.universe.count) stocks in \(data.universe.categories.count) sectors")
        replaceRows(with: data.aggregates)
    }

    /// Shows the stocks of category `index`, from the top.
    func openCategory(_ index: Int) {
        guard category == nil, index < data.universe.categories.count else { return }
        let chosen = data.universe.categories[index]
        category = index
        gtk_widget_set_visible(back, 1)
        setLabel(listTitle, chosen.name + " · \(chosen.series.count) stocks")
        replaceRows(with: chosen.series)
        gtk_adjustment_set_value(adjustment, 0)
    }

    /// Back from a category's list to the categories (no-op on the categories).
    func backToCategories() {
        guard category != nil else { return }
        showCategories()
    }

    /// Escape: closes the detail chart, else leaves the category.
    func escape() {
        if isShowingDetail { closeDetailForScript() } else { backToCategories() }
    }

    /// Withdraws every row's charts (the list they showed is gone: nothing of it is delivered afterwards), then puts
    /// `items` in the list; GTK rebinds the rows on its next layout.
    private func replaceRows(with items: [PriceSeries]) {
        for row in rows.values {
            row.index = nil
            row.clear()
        }
        gtk_string_list_splice(strings, 0, UInt32(series.count), nil)  // the list holds one string per series
        series = items
        for item in items { gtk_string_list_append(strings, item.id) }
    }

    /// Labels a category row; its sparkline is the aggregate's, drawn like a stock's.
    func bindCategory(_ row: StockRow, _ index: Int) {
        let item = series[index], count = data.universe.categories[index].series.count
        setLabel(row.symbol, TerminalText.sanitized(item.symbol))
        setLabel(row.last, count == 1 ? "1 stock" : "\(count) stocks")
        let last = item.lastPrice ?? 1
        setLabel(row.change, String(format: "%+.1f%%", (last - 1) * 100))
        guard !isSuspended else { return }
        row.showCategory(spark: ChartKey(kind: .sparkline, series: item, width: Self.sparkSize.width, height: Self.sparkSize.height))
    }

    /// The scripts' handle on the categories: the index of the largest one.
    var largestCategory: Int? {
        data.universe.categories.indices.max { data.universe.categories[$0].series.count < data.universe.categories[$1].series.count }
    }
}
