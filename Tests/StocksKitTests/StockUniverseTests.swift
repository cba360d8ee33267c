import Foundation
import StocksKit
import Testing

@Suite("Stock universe", .timeLimit(.minutes(5)))
struct StockUniverseTests {
    private func series(_ symbol: String, sector: Sector? = nil, source: String = "") -> PriceSeries {
        PriceSeries(symbol: symbol, dates: [StockDates.date(dayNumber: 0)], prices: [1], sector: sector, source: source)
    }

    @Test func knownSymbolsMapToSectorsWithOtherAsFallback() {
        #expect(Sector.known(symbol: "AAPL") == .technology)
        #expect(Sector.known(symbol: "goog") == .communication)
        #expect(Sector.known(symbol: "AMZN") == .consumerDiscretionary)
        #expect(Sector.known(symbol: "XOM") == .energy)
        #expect(Sector.known(symbol: "QQQQQ") == .other)
        #expect(series("JPM").sector == .financials)
        #expect(series("JPM", sector: .other).sector == .other)
    }

    @Test func groupsBySectorInSectorOrderWithOtherLast() {
        let universe = StockUniverse([series("ZZZ"), series("MSFT"), series("XOM"), series("AAPL"), series("NFLX")])
        #expect(universe.categories.map(\.sector) == [.technology, .communication, .energy, .other])
        #expect(universe.categories.map(\.name) == ["Technology", "Communication Services", "Energy", "Other"])
        #expect(universe.categories[0].series.map(\.symbol) == ["AAPL", "MSFT"])
        #expect(universe.allSeries.map(\.symbol) == ["AAPL", "MSFT", "NFLX", "XOM", "ZZZ"])
        #expect(universe.count == 5)
    }

    @Test func idsDistinguishSourcesAndDuplicatesAreDropped() {
        let universe = StockUniverse([series("AAPL", source: "a"), series("AAPL", source: "b"),
                                      series("AAPL", source: "a")])
        #expect(universe.count == 2)
        #expect(universe.series(id: "a/AAPL")?.source == "a")
        #expect(universe.series(id: "b/AAPL")?.source == "b")
        #expect(universe.series(id: "c/AAPL") == nil)
        #expect(universe.series(symbol: "aapl").map(\.id) == ["a/AAPL", "b/AAPL"])
        #expect(series("IBM").id == "IBM")
    }

    @Test func priceSeriesConveniences() {
        let s = PriceSeries(symbol: "X", dates: [StockDates.date(dayNumber: 1), StockDates.date(dayNumber: 2)],
                            prices: [3, 4])
        #expect(s.count == 2)
        #expect(s.lastPrice == 4)
        #expect(s.dateRange == StockDates.date(dayNumber: 1)...StockDates.date(dayNumber: 2))
        let empty = PriceSeries(symbol: "E", dates: [], prices: [])
        #expect(empty.isEmpty && empty.lastPrice == nil && empty.dateRange == nil)
    }
}
