import Foundation
import StocksKit
import Testing

/// The data problems a new user meets first: single-series files, Yahoo's nulls, US dates, binary files, full paths,
/// series that share a symbol, forecasts below zero.
@Suite("Stock data from the wild", .timeLimit(.minutes(5)))
struct StockDataHardeningTests {
    private func date(_ y: Int, _ m: Int, _ d: Int) -> Date { StockDates.date(year: y, month: m, day: d)! }

    @Test("a date,price file is one series named after the file, not \"price\"")
    func singleSeriesNamedAfterFile() throws {
        let result = try StockCSV.parse("date,price\n2023-01-02,10\n2023-01-03,11\n", fileName: "/data/acme.csv")
        #expect(StockCSV.detectFormat(header: ["date", "price"]) == .single)
        #expect(result.errors.isEmpty)
        #expect(result.series.map(\.symbol) == ["ACME"])
        #expect(result.series.first?.prices == [10, 11])
        // A wide file with one symbol stays wide.
        #expect(try StockCSV.parse("date,GOOG\n2018-01-01,1.0\n", fileName: "x.csv").series.map(\.symbol) == ["GOOG"])
    }

    @Test("Yahoo's null rows are skipped and counted apart from errors")
    func yahooNulls() throws {
        let csv = """
            Date,Open,High,Low,Close,Adj Close,Volume
            2020-04-01,1,1,1,2,1.5,10
            2020-04-02,null,null,null,null,null,null
            2020-04-03,1,1,1,2,oops,10
            2020-04-06,1,1,1,2,1.7,10
            """
        let result = try StockCSV.parse(csv, fileName: "IBM.csv")
        #expect(result.nullRows == 1)
        #expect(result.errors.map(\.line) == [4])
        #expect(result.series.first?.prices == [1.5, 1.7])
        let wide = try StockCSV.parse("date,A,B\n2020-01-01,1,null\n2020-01-02,2,3\n", fileName: "w.csv")
        #expect(wide.nullRows == 1 && wide.errors.isEmpty)
        let long = try StockCSV.parse("symbol,date,price\nA,Jan 1 2000,NULL\nA,Jan 2 2000,2\n", fileName: "l.csv")
        #expect(long.nullRows == 1 && long.errors.isEmpty && long.series.first?.prices == [2])
    }

    @Test("US dates (month first), ISO and Yahoo's month-name dates are read; day-first is not guessed")
    func usDates() throws {
        #expect(StockDates.parse("01/02/2023") == date(2023, 1, 2))
        #expect(StockDates.parse("1/2/2023") == date(2023, 1, 2))
        #expect(StockDates.parse("12-31-2022") == date(2022, 12, 31))
        #expect(StockDates.parse("Jan 02, 2023") == date(2023, 1, 2))
        #expect(StockDates.parse("2023-01-02") == date(2023, 1, 2))
        #expect(StockDates.parse("13/01/2023") == nil)
        #expect(StockDates.parse("01/02/23") == nil)
        let result = try StockCSV.parse("date,price\n01/02/2023,10\n01/03/2023,11\n", fileName: "us.csv")
        #expect(result.errors.isEmpty && result.series.first?.dates == [date(2023, 1, 2), date(2023, 1, 3)])
    }

    @Test("a binary file is refused with one line, and so is text holding escape sequences")
    func binaryRefused() throws {
        var bytes: [UInt8] = Array("date,price\n".utf8)
        bytes += (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        let binary = try StockCSV.parse(data: Data(bytes), fileName: "/d/binary.csv")
        #expect(binary.series.isEmpty)
        #expect(binary.errors.count == 1)
        let reason = binary.errors.first?.reason ?? ""
        #expect(reason.hasPrefix("binary file") || reason.hasPrefix("not CSV text"))
        #expect(!reason.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        let hostile = try StockCSV.parse("date,\u{1B}]0;PWNED\u{07}X\n2023-01-02,10\n", fileName: "evil.csv")
        #expect(hostile.series.isEmpty)
        #expect(hostile.errors.map(\.description) == ["evil.csv: not CSV text: control byte 0x1B on line 1"])
    }

    @Test("the bundled AAPL and MSFT series are told apart by period and kind")
    func bundledSeriesToldApart() throws {
        let universe = StockUniverse(try BundledStocks.load().series)
        for symbol in ["AAPL", "MSFT"] {
            let series = universe.series(symbol: symbol)
            #expect(series.count == 2)
            #expect(Set(series.map(\.period)) == ["2000–2010", "2018–2019"])
            #expect(series.first { $0.period == "2018–2019" }?.kind == .relative)
            #expect(series.first { $0.period == "2000–2010" }?.kind == .price)
        }
    }

    @Test("a price forecast band never goes below zero")
    func forecastClampedAtZero() throws {
        let falling = (0..<60).map { max(0.5, 60 - Double($0)) + Double($0 % 3) }
        let dates = (0..<60).map { StockDates.date(dayNumber: 19_000 + $0) }
        let result = try Analysis.run(PriceSeries(symbol: "FALL", dates: dates, prices: falling))
        #expect(!result.forecast.points.isEmpty)
        #expect(result.forecast.points.allSatisfy { $0.lower >= 0 && $0.value >= 0 && $0.upper >= $0.lower })
        let unbounded = try HoltForecast.forecast(falling, horizon: 20)
        #expect(unbounded.points.contains { $0.lower < 0 })  // the clamp is what keeps it at zero
    }
}
