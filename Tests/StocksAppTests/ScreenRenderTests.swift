import Foundation
import StocksKit
import Testing
@testable import StocksApp

@Suite(.timeLimit(.minutes(5))) struct ScreenRenderTests {
    private let rows = [
        StockSummary(id: "AAA", symbol: "AAA", last: 12.5, change: 2.5, percentChange: 25, spark: "▁▂▃▄"),
        StockSummary(id: "BBB", symbol: "BBB", last: 8, change: -2, percentChange: -20, spark: "▄▃▂▁"),
    ]

    private func content(rows: [StockSummary]? = nil, detail: DetailContent? = nil) -> ScreenContent {
        ScreenContent(
            title: "stocks", categories: [.init(name: "Technology", count: 2), .init(name: "Energy", count: 0)],
            rows: rows, rowChart: { $0 == 0 ? ChartRow(characters: Array("⣀⡠⠊"), layers: [.raw, .smoothed, .raw]) : nil },
            detailSymbol: "AAA", detail: detail, hud: "lanes · main p99 0.1 ms")
    }

    @Test func categoriesScreen() {
        let frame = ScreenRenderer.render(NavigationState(categoryCount: 2), content(), width: 60, height: 8)
        #expect(frame.line(0).hasPrefix(" stocks"))
        #expect(frame.line(2).contains("▶ Technology"))
        #expect(frame.line(2).contains("2"))
        #expect(frame.line(3).contains("Energy"))
        #expect(frame.style(row: 2, column: 5) == .selected)
        #expect(frame.style(row: 3, column: 5) == .plain)
        #expect(frame.line(7).contains("main p99 0.1 ms"))
    }

    @Test func stockListRowsWithChartsAndPlaceholders() {
        var nav = NavigationState(categoryCount: 2, pageSize: 4)
        nav.handle(.enter)
        let loading = ScreenRenderer.render(nav, content(), width: 80, height: 8)
        #expect(loading.text.contains("Loading and smoothing Technology"))
        nav.setStockCount(2)
        nav.handle(.down)
        let frame = ScreenRenderer.render(nav, content(rows: rows), width: 80, height: 8)
        #expect(frame.line(0).contains("stocks › Technology"))
        let first = frame.line(2), second = frame.line(3)
        #expect(first.contains("AAA") && first.contains("12.50") && first.contains("+25.00%") && first.contains("▁▂▃▄"))
        #expect(first.contains("⣀⡠⠊"))
        #expect(second.contains("BBB") && second.contains("-20.00%") && second.contains("·"))
        #expect(!second.contains("⣀⡠⠊"))  // row 1 has no chart yet: a placeholder, never row 0's chart
        #expect(frame.style(row: 3, column: 3) == .selected)
        #expect(frame.style(row: 2, column: 33) == .gain)
    }

    @Test func detailScreenDrawsTheChart() throws {
        var nav = NavigationState(categoryCount: 2, pageSize: 4)
        nav.handle(.enter)
        nav.setStockCount(2)
        nav.handle(.enter)
        let waiting = ScreenRenderer.render(nav, content(rows: rows), width: 80, height: 12)
        #expect(waiting.text.contains("Smoothing AAA"))
        let series = PriceSeries(symbol: "AAA", dates: (0..<60).map { StockDates.date(dayNumber: 19_000 + $0) }, prices: (0..<60).map { 10 + Double($0 % 7) })
        let detail = try StockWork.detailChart(series, width: 70, height: 6, isCancelled: { false })
        let frame = ScreenRenderer.render(nav, content(rows: rows, detail: detail), width: 80, height: 12)
        #expect(frame.line(1).contains("AAA") && frame.line(1).contains("last 13.00"))
        let chartText = (2..<8).map { frame.line($0) }.joined()
        #expect(chartText.contains { ("\u{2801}"..."\u{28FF}").contains($0) })  // braille cells
        #expect(frame.text.contains("smoothed (LOESS)"))
    }

    @Test func frameDiffAndAnsi() {
        var a = Frame(width: 10, height: 2)
        a.put("hi", row: 0, column: 0, style: .gain)
        var b = a
        #expect(!b.rowDiffers(0, from: a))
        b.put("x", row: 1, column: 9)
        #expect(b.rowDiffers(1, from: a) && !b.rowDiffers(0, from: a))
        #expect(a.ansiLine(0).hasPrefix(CellStyle.gain.sgr + "hi"))
        a.put("overflowing text", row: 1, column: 5)
        #expect(a.line(1) == "     overf")
    }
}
