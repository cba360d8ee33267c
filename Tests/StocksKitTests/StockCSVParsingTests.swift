import Foundation
import StocksKit
import Testing

@Suite("StockCSV parsing", .timeLimit(.minutes(5)))
struct StockCSVParsingTests {
    private func day(_ y: Int, _ m: Int, _ d: Int) -> Date { StockDates.date(year: y, month: m, day: d)! }

    @Test func detectsTheThreeFormatsFromTheHeader() {
        #expect(StockCSV.detectFormat(header: ["symbol", "date", "price"]) == .long)
        #expect(StockCSV.detectFormat(header: ["date", "GOOG", "AAPL"]) == .wide)
        #expect(StockCSV.detectFormat(header: ["Date", "Open", "High", "Low", "Close", "Adj Close", "Volume"]) == .ohlc)
        #expect(StockCSV.detectFormat(header: ["Date", "Close"]) == .ohlc)
        #expect(StockCSV.detectFormat(header: ["foo", "bar"]) == nil)
        #expect(StockCSV.detectFormat(header: ["date"]) == nil)
    }

    @Test func parsesTheLongFormatIntoOneSeriesPerSymbol() throws {
        let csv = """
            symbol,date,price
            MSFT,Jan 1 2000,39.81
            AAPL,Jan 1 2000,25.94
            MSFT,Feb 1 2000,36.35
            """
        let result = try StockCSV.parse(csv, fileName: "long.csv")
        #expect(result.errors.isEmpty)
        #expect(result.series.map(\.symbol) == ["MSFT", "AAPL"])
        #expect(result.series[0].prices == [39.81, 36.35])
        #expect(result.series[0].dates == [day(2000, 1, 1), day(2000, 2, 1)])
        #expect(result.series[0].source == "long")
        #expect(result.series[1].prices == [25.94])
    }

    @Test func parsesTheWideFormatWithOneSeriesPerColumn() throws {
        let csv = "date,GOOG,AAPL\n2018-01-01,1.0,1.0\n2018-01-08,1.02,\n2018-01-15,1.03,0.98\n"
        let result = try StockCSV.parse(csv, fileName: "wide.csv")
        #expect(result.errors.isEmpty)  // the empty AAPL cell is a missing value, not an error
        #expect(result.series.map(\.symbol) == ["GOOG", "AAPL"])
        #expect(result.series[0].prices == [1.0, 1.02, 1.03])
        #expect(result.series[1].prices == [1.0, 0.98])
        #expect(result.series[1].dates == [day(2018, 1, 1), day(2018, 1, 15)])
    }

    @Test func parsesOHLCUsingAdjCloseAndTheFileNameAsSymbol() throws {
        let csv = """
            Date,Open,High,Low,Close,Adj Close,Volume
            2024-01-02,187.15,188.44,183.89,185.64,184.94,82488700
            2024-01-03,184.22,185.88,183.43,184.25,183.55,58414500
            """
        let result = try StockCSV.parse(csv, fileName: "aapl.csv")
        #expect(result.errors.isEmpty)
        #expect(result.series.count == 1)
        #expect(result.series[0].symbol == "AAPL")
        #expect(result.series[0].prices == [184.94, 183.55])
        #expect(result.series[0].sector == .technology)
    }

    @Test func parsesOHLCWithoutAdjCloseUsingClose() throws {
        let csv = "Date,Open,High,Low,Close,Volume\n2024-01-02,10,11,9,10.5,100\n"
        let result = try StockCSV.parse(csv, fileName: "XYZ.csv")
        #expect(result.series.first?.prices == [10.5])
        #expect(result.series.first?.symbol == "XYZ")
    }

    @Test func handlesQuotesCRLFBlankLinesTrailingWhitespaceAndBOM() throws {
        let csv = "\u{FEFF}\"symbol\",\"date\",\"price\"\r\n"
            + "\"BRK-B\", \"Jan 1, 2000\" ,\"1,234.50\"  \r\n"
            + "\r\n"
            + "   \r\n"
            + "BRK-B,Feb 1 2000,$1200.25\t\r\n"
        let result = try StockCSV.parse(csv, fileName: "quoted.csv")
        #expect(result.errors.isEmpty, "\(result.errors)")
        #expect(result.series.count == 1)
        #expect(result.series[0].symbol == "BRK-B")
        #expect(result.series[0].prices == [1234.5, 1200.25])
        #expect(result.series[0].dates == [day(2000, 1, 1), day(2000, 2, 1)])
    }

    @Test func doubledQuotesAndQuotedLineBreaksKeepLineNumbersRight() throws {
        let csv = "symbol,date,price\n\"A\"\"B\",Jan 1 2000,1\n\"multi\nline\",Jan 1 2000,2\nX,bad,3\n"
        let result = try StockCSV.parse(csv, fileName: "q.csv")
        #expect(result.series.map(\.symbol) == ["A\"B", "multi\nline"])
        // The record starting on line 3 spans lines 3–4, so the bad row is line 5.
        #expect(result.errors.map(\.description) == ["q.csv:5: invalid date \"bad\""])
    }

    @Test func reportsEachMalformedLineWithFileAndLineAndKeepsGoodRows() throws {
        let csv = """
            symbol,date,price
            MSFT,Jan 1 2000,39.81
            MSFT,Feb 1 2000
            MSFT,Feb 30 2000,36.35
            MSFT,Mar 1 2000,n/a
            ,Apr 1 2000,10

            MSFT,May 1 2000,-4
            MSFT,Jun 1 2000,nan
            MSFT,Jul 1 2000,30.5
            """
        let result = try StockCSV.parse(csv, fileName: "bad.csv")
        #expect(result.series.count == 1)
        #expect(result.series[0].prices == [39.81, 30.5])
        #expect(result.errors.map(\.line) == [3, 4, 5, 6, 8, 9])
        #expect(result.errors.allSatisfy { $0.file == "bad.csv" })
        #expect(result.errors.map(\.description) == [
            "bad.csv:3: expected 3 fields, found 2",
            "bad.csv:4: invalid date \"Feb 30 2000\"",
            "bad.csv:5: invalid price \"n/a\"",
            "bad.csv:6: missing symbol",
            "bad.csv:8: negative price \"-4\"",
            "bad.csv:9: invalid price \"nan\"",
        ])
    }

    @Test func wideFormatReportsABadCellButKeepsTheRowsOtherCells() throws {
        let csv = "date,GOOG,AAPL\n2018-01-01,1.0,x\n2018-13-01,1,1\n"
        let result = try StockCSV.parse(csv, fileName: "w.csv")
        #expect(result.errors.map(\.description) == [
            "w.csv:2: invalid price \"x\" for AAPL",
            "w.csv:3: invalid date \"2018-13-01\"",
            "w.csv: no valid prices for AAPL",
        ])
        #expect(result.series.map(\.symbol) == ["GOOG"])
        #expect(result.series[0].prices == [1.0])
    }

    @Test func trailingEmptyFieldsAreTolerated() throws {
        let result = try StockCSV.parse("symbol,date,price\nA,Jan 1 2000,1,,\nA,Feb 1 2000,2,x\n", fileName: "t.csv")
        #expect(result.series.first?.prices == [1])
        #expect(result.errors.map(\.description) == ["t.csv:3: expected 3 fields, found 4"])
    }

    @Test func wholeFileFailuresHaveNoSeries() throws {
        let unknown = try StockCSV.parse("a,b,c\n1,2,3\n", fileName: "u.csv")
        #expect(unknown.series.isEmpty)
        #expect(unknown.errors.count == 1)
        #expect(unknown.errors[0].line == 1)
        #expect(unknown.errors[0].reason.hasPrefix("unrecognised header"))

        let empty = try StockCSV.parse("\n  \n", fileName: "e.csv")
        #expect(empty.errors.map(\.description) == ["e.csv: empty file"])

        let headerOnly = try StockCSV.parse("symbol,date,price\n", fileName: "h.csv")
        #expect(headerOnly.errors.map(\.description) == ["h.csv: no data rows"])

        let unterminated = try StockCSV.parse("symbol,date,price\nA,Jan 1 2000,1\n\"B,Jan 2 2000,2\n", fileName: "q.csv")
        #expect(unterminated.series.first?.prices == [1])
        #expect(unterminated.errors.map(\.description) == ["q.csv:3: unterminated quoted field"])
    }

    @Test func unsortedRowsAreSortedByDate() throws {
        let csv = "date,X\n2018-01-15,3\n2018-01-01,1\n2018-01-08,2\n"
        let result = try StockCSV.parse(csv, fileName: "s.csv")
        #expect(result.series[0].prices == [1, 2, 3])
        #expect(result.series[0].dates == [day(2018, 1, 1), day(2018, 1, 8), day(2018, 1, 15)])
    }

    @Test func symbolFromFileName() {
        #expect(StockCSV.symbol(fromFileName: "AAPL.csv") == "AAPL")
        #expect(StockCSV.symbol(fromFileName: "brk-b_daily.csv") == "BRK-B")
        #expect(StockCSV.symbol(fromFileName: "^GSPC (1).csv") == "^GSPC")
        #expect(StockCSV.symbol(fromFileName: "dir/msft.us.csv") == "MSFT.US")
    }

    @Test func errorDescriptionNamesFileAndLine() {
        #expect(StockDataError(file: "a.csv", line: 7, reason: "oops").description == "a.csv:7: oops")
        #expect(StockDataError(file: "a.csv", line: nil, reason: "oops").description == "a.csv: oops")
    }
}
