import Foundation
import Lanes
import LanesAppSupport
import StocksKit
import Testing
@testable import StocksApp

/// Untrusted text and extreme numbers on the stocks screens: nothing reaches the terminal raw, and the columns hold.
@Suite("Screens with hostile text and extreme numbers", .timeLimit(.minutes(5)))
struct ScreenSafetyTests {
    private func listFrame(_ rows: [StockSummary], width: Int = 80) -> Frame {
        var nav = NavigationState(categoryCount: 1, pageSize: 10)
        nav.handle(.enter)
        nav.setStockCount(rows.count)
        let content = ScreenContent(title: "stocks \u{1B}]0;TITLE\u{07}", categories: [.init(name: "Other", count: rows.count)],
                                    rows: rows, notice: "bad \u{9B}2J", hud: "hud")
        return ScreenRenderer.render(nav, content, width: width, height: 14)
    }

    /// The display column where `needle` starts in `line`.
    private func column(of needle: String, in line: String) -> Int? {
        guard let range = line.range(of: needle) else { return nil }
        return TerminalText.displayWidth(line[..<range.lowerBound])
    }

    @Test("control characters in titles, symbols and notices are drawn escaped, never raw")
    func escapesShownEscaped() {
        let rows = [StockSummary(id: "x", symbol: "\u{1B}]0;PWN\u{07}", last: 1, change: 0, percentChange: 0, spark: "")]
        let frame = listFrame(rows)
        #expect(frame.line(0).contains(#"stocks \e]0;TITLE\x07"#))
        #expect(frame.line(2).contains(#"  \e]0;PW…"#))
        #expect(frame.text.contains(#"bad \u{9B}2J"#))
        for row in 0..<frame.height {
            // The only escapes in the terminal output are the frame's own SGR colour codes.
            let ansi = frame.ansiLine(row).replacingOccurrences(of: "\u{1B}[", with: "")
            #expect(!ansi.unicodeScalars.contains { TerminalText.isUnsafe($0) })
        }
    }

    @Test("wide CJK symbols and combining marks keep every column in place at 80 columns")
    func wideSymbolsKeepColumns() {
        let rows = [
            StockSummary(id: "a", symbol: "AAPL", last: 12.5, change: 1, percentChange: 5, spark: "▁▂"),
            StockSummary(id: "b", symbol: "株式会社", last: 12.5, change: 1, percentChange: 5, spark: "▁▂"),
            StockSummary(id: "c", symbol: "株式会社ソニー", last: 12.5, change: 1, percentChange: 5, spark: "▁▂"),
            StockSummary(id: "d", symbol: "Cafe\u{301}", last: 12.5, change: 1, percentChange: 5, spark: "▁▂"),
        ]
        let frame = listFrame(rows)
        let columns = (2...5).map { column(of: "12.50", in: frame.line($0)) }
        #expect(columns.allSatisfy { $0 != nil && $0 == columns[0] })
        #expect(frame.line(4).contains("株式会…"))
        for row in 0..<frame.height { #expect(TerminalText.displayWidth(frame.line(row)) == 80) }
    }

    @Test("prices of any magnitude and changes past +1000% never run into the next column")
    func anyMagnitude() {
        let rows = [
            StockSummary(id: "a", symbol: "HUGE", last: 1e300, change: 1, percentChange: 29_900, spark: ""),
            StockSummary(id: "b", symbol: "BIG", last: 123_456_789.25, change: 1, percentChange: 1_234_567_890, spark: ""),
            StockSummary(id: "c", symbol: "SMALL", last: 0.004, change: -1, percentChange: -99.99, spark: ""),
        ]
        let frame = listFrame(rows)
        let huge = frame.line(2), big = frame.line(3)
        #expect(huge.contains(" 1.000e+300 ") && huge.contains(" +29900%"))
        #expect(big.contains(" 123456789 ") && big.contains(" +1e+09%"))
        #expect(frame.line(4).contains(" 0.00 ") && frame.line(4).contains(" -99.99%"))
        // The change column starts where the header says, on every row.
        let changeEnd = (column(of: "Change", in: frame.line(1)) ?? 0) + 6
        for row in 2...4 {
            let line = frame.line(row)
            let percent = line.firstIndex(of: "%").map { TerminalText.displayWidth(line[...$0]) }
            #expect(percent == changeEnd)
        }
    }

    @Test("the detail header at 80 columns leaves out whole pieces, never half a number")
    func detailHeaderFits() throws {
        var nav = NavigationState(categoryCount: 1, pageSize: 4)
        nav.handle(.enter)
        nav.setStockCount(1)
        nav.handle(.enter)
        let series = PriceSeries(symbol: "株式会社", dates: (0..<30).map { StockDates.date(dayNumber: 19_000 + $0) },
                                 prices: (0..<30).map { 10 + Double($0 % 4) })
        var detail = try StockWork.detailChart(series, width: 60, height: 4, isCancelled: { false })
        detail.summary = SummaryStats([1e300, 2e300, 1.5e300])
        detail.forecastEnd = ForecastPoint(step: 20, value: 1.6e300, lower: 0, upper: 3.1e300)
        detail.period = "2018–2019 · relative to 2018-01-01"
        detail.isRelative = true
        let rows = [StockSummary(id: "x", symbol: "株式会社", last: 1, change: 0, percentChange: 0, spark: "")]
        let content = ScreenContent(title: "stocks", categories: [.init(name: "Other", count: 1)], rows: rows,
                                    detailSymbol: "株式会社", detail: detail)
        for width in [60, 80, 100, 140] {
            let header = ScreenRenderer.render(nav, content, width: width, height: 12).line(1)
            #expect(TerminalText.displayWidth(header) == width)
            #expect(header.contains("株式会社  Other") && header.contains("last ×1.500e+300"))
            // Every piece shown is whole.
            if header.contains("forecast") { #expect(header.contains("forecast ×1.600e+300 [0.00, 3.100e+300]")) }
            if header.contains("range") { #expect(header.contains("range ×1.000e+300–×2.000e+300")) }
        }
        let wide = ScreenRenderer.render(nav, content, width: 160, height: 12).line(1)
        #expect(wide.contains("relative to 2018-01-01") && wide.contains("forecast") && wide.contains("range"))
    }

    @Test("two series of one symbol show their periods, and a relative one its factor")
    func periodsAndKinds() {
        let rows = [
            StockSummary(id: "v/AAPL", symbol: "AAPL", last: 135.81, change: 1, percentChange: 5, spark: "",
                         period: "2000–2010"),
            StockSummary(id: "p/AAPL", symbol: "AAPL", last: 1.68, change: 1, percentChange: 68, spark: "",
                         period: "2018–2019", isRelative: true),
        ]
        let frame = listFrame(rows)
        #expect(frame.line(1).contains("Period"))
        #expect(frame.line(2).contains("AAPL") && frame.line(2).contains("2000–10") && frame.line(2).contains(" 135.81"))
        #expect(frame.line(3).contains("2018–19") && frame.line(3).contains("×1.68"))
    }

    @Test("wide characters overwritten in part leave no half character behind")
    func frameWideCells() {
        var frame = Frame(width: 6, height: 1)
        frame.put("株式会", row: 0, column: 0)
        #expect(frame.line(0) == "株式会")
        frame.put("x", row: 0, column: 1)  // the right half of 株
        #expect(frame.line(0) == " x式会")
        frame.put("y", row: 0, column: 2)  // the left half of 式
        #expect(frame.line(0) == " xy 会")
        frame.put("ab株", row: 0, column: 3)  // 株 would straddle the edge
        #expect(frame.line(0) == " xyab ")
        #expect(TerminalText.displayWidth(frame.line(0)) == 6)
    }

    @Test("--trace to an unwritable path fails at start with one line and a non-zero status")
    @MainActor func traceCheckedAtStart() {
        let status = StocksMain.run(["stocks", "--demo", "--trace", "/nonexistent-\(UUID().uuidString)/t.json"])
        #expect(status == 1)
    }
}
