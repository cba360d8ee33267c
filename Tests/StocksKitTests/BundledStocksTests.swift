import Foundation
import StocksKit
import Testing

@Suite("Bundled data set", .timeLimit(.minutes(5)))
struct BundledStocksTests {
    @Test func loadsBothFilesWithoutErrors() throws {
        let result = try BundledStocks.load()
        #expect(result.errors.isEmpty, "\(result.errors)")
        #expect(result.series.count == 11)
    }

    @Test func monthlyVegaFileHasTheExpectedSymbolsAndCounts() throws {
        let monthly = try BundledStocks.load().series.filter { $0.source == "vega-stocks-monthly-2000-2010" }
        #expect(monthly.map(\.symbol) == ["MSFT", "AMZN", "IBM", "GOOG", "AAPL"])
        #expect(monthly.map(\.count) == [123, 123, 123, 68, 123])
        #expect(monthly.reduce(0) { $0 + $1.count } == 560)
        let msft = try #require(monthly.first)
        #expect(msft.prices.first == 39.81)
        #expect(msft.dates.first == StockDates.date(year: 2000, month: 1, day: 1))
        #expect(msft.dates.last == StockDates.date(year: 2010, month: 3, day: 1))
        let goog = try #require(monthly.first { $0.symbol == "GOOG" })
        #expect(goog.dates.first == StockDates.date(year: 2004, month: 8, day: 1))
        let aapl = try #require(monthly.last)
        #expect(aapl.prices.last == 223.02)
    }

    @Test func weeklyPlotlyFileHasSixSymbolsOf105Rows() throws {
        let weekly = try BundledStocks.load().series.filter { $0.source == "plotly-stocks-weekly-2018-2019" }
        #expect(weekly.map(\.symbol) == ["GOOG", "AAPL", "AMZN", "FB", "NFLX", "MSFT"])
        #expect(weekly.allSatisfy { $0.count == 105 })
        #expect(weekly.allSatisfy { $0.prices.first == 1.0 })  // relative to the first week
        #expect(weekly[0].dates.first == StockDates.date(year: 2018, month: 1, day: 1))
        #expect(weekly[0].dates.last == StockDates.date(year: 2019, month: 12, day: 30))
    }

    @Test func universeKeepsBothCopiesOfSharedSymbolsApart() throws {
        let universe = StockUniverse(try BundledStocks.load().series)
        #expect(universe.count == 11)
        #expect(universe.series(symbol: "AAPL").count == 2)
        #expect(universe.series(symbol: "FB").count == 1)
        #expect(universe.categories.map(\.sector) == [.technology, .communication, .consumerDiscretionary])
        let technology = universe.categories[0].series.map(\.symbol)
        #expect(technology == ["AAPL", "AAPL", "IBM", "MSFT", "MSFT"])
        let ibm = try #require(universe.series(id: "vega-stocks-monthly-2000-2010/IBM"))
        #expect(ibm.count == 123)
    }
}
