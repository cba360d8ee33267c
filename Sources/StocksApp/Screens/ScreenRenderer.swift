import Foundation
import StocksKit

/// Draws the three screens and the status line into an off-screen ``Frame``. Pure: the same state and content
/// always give the same frame, so tests assert on its text.
///
/// ```swift
/// let frame = ScreenRenderer.render(nav, content, width: 100, height: 30)
/// print(frame.text)
/// ```
public enum ScreenRenderer {
    /// Renders the screen `nav` is on.
    public static func render(_ nav: NavigationState, _ content: ScreenContent, width: Int, height: Int) -> Frame {
        var frame = Frame(width: width, height: height)
        guard width > 0, height > 0 else { return frame }
        switch nav.screen {
        case .categories: drawCategories(nav, content, into: &frame)
        case .stocks(let category): drawStocks(nav, content, category: category, into: &frame)
        case .detail(let category, _): drawDetail(content, category: category, into: &frame)
        }
        if height >= 2 {
            frame.put(" " + content.hud, row: height - 1, column: 0, style: .hud)
            frame.paint(row: height - 1, style: .hud)
        }
        return frame
    }

    private static func drawTitle(_ text: String, keys: String, _ content: ScreenContent, into frame: inout Frame) {
        frame.put(" " + text, row: 0, column: 0, style: .title)
        if frame.height >= 3 {
            let help = content.notice.map { $0 + "  ·  " + keys } ?? keys
            frame.put(" " + help, row: frame.height - 2, column: 0, style: .dim)
        }
    }

    private static func drawCategories(_ nav: NavigationState, _ content: ScreenContent, into frame: inout Frame) {
        drawTitle(content.title, keys: "↑↓ move  Enter open  q quit", content, into: &frame)
        frame.put("   Category                        Stocks", row: 1, column: 0, style: .bold)
        let pageSize = ScreenLayout.listHeight(frame.height)
        let first = max(0, nav.categorySelection - pageSize + 1)
        for (offset, index) in (first..<min(content.categories.count, first + pageSize)).enumerated() {
            let line = content.categories[index]
            let row = ScreenLayout.top + offset
            let text = "   " + pad(line.name, 30) + "  " + leftPad(String(line.count), 6)
            frame.put(text, row: row, column: 0)
            if index == nav.categorySelection {
                frame.put(" ▶", row: row, column: 0)
                frame.paint(row: row, style: .selected)
            }
        }
    }

    private static func drawStocks(
        _ nav: NavigationState, _ content: ScreenContent, category: Int, into frame: inout Frame
    ) {
        let name = category < content.categories.count ? content.categories[category].name : "?"
        drawTitle(content.title + " › " + name, keys: "↑↓ PgUp PgDn scroll  Enter chart  Esc back  q quit",
                  content, into: &frame)
        let header = "  " + pad("Symbol", 8) + leftPad("Last", 11) + leftPad("Change", 9) + "  "
            + pad("Trend", ScreenLayout.sparkWidth) + "  Smoothed + forecast"
        frame.put(header, row: 1, column: 0, style: .bold)
        guard let rows = content.rows else {
            frame.put("  Loading and smoothing \(name)…", row: ScreenLayout.top, column: 0, style: .dim)
            return
        }
        let pageSize = ScreenLayout.listHeight(frame.height)
        for index in nav.stockScroll..<min(rows.count, nav.stockScroll + pageSize) {
            let row = ScreenLayout.top + index - nav.stockScroll
            drawStockRow(rows[index], chart: content.rowChart(index), row: row, into: &frame)
            if index == nav.stockSelection { frame.paint(row: row, style: .selected) }
        }
        if rows.isEmpty { frame.put("  (no stocks)", row: ScreenLayout.top, column: 0, style: .dim) }
    }

    private static func drawStockRow(_ summary: StockSummary, chart: ChartRow?, row: Int, into frame: inout Frame) {
        var x = frame.put("  " + pad(summary.symbol, 8), row: row, column: 0, style: .bold)
        x = frame.put(leftPad(price(summary.last), 11), row: row, column: x)
        let style: CellStyle = summary.change >= 0 ? .gain : .loss
        x = frame.put(leftPad(percent(summary.percentChange), 9), row: row, column: x, style: style)
        x = frame.put("  " + pad(summary.spark, ScreenLayout.sparkWidth) + "  ", row: row, column: x, style: style)
        if let chart {
            frame.put(chart, row: row, column: x)
        } else {
            frame.put("·", row: row, column: x, style: .dim)
        }
    }

    private static func drawDetail(_ content: ScreenContent, category: Int, into frame: inout Frame) {
        let symbol = content.detailSymbol ?? "?"
        drawTitle(content.title + " › " + symbol, keys: "Esc back  q quit", content, into: &frame)
        guard let detail = content.detail else {
            frame.put("  Smoothing \(symbol) and fitting its forecast…", row: ScreenLayout.top, column: 0, style: .dim)
            return
        }
        var x = frame.put("  \(detail.symbol)  \(detail.sector)", row: 1, column: 0, style: .bold)
        if let stats = detail.summary {
            x = frame.put("   last \(price(stats.last))", row: 1, column: x)
            x = frame.put("  \(percent(stats.percentChange))", row: 1, column: x, style: stats.change >= 0 ? .gain : .loss)
            x = frame.put("  range \(price(stats.minimum))–\(price(stats.maximum))", row: 1, column: x, style: .dim)
        }
        if let end = detail.forecastEnd {
            frame.put("  forecast \(price(end.value)) [\(price(end.lower)), \(price(end.upper))]", row: 1, column: x,
                      style: .forecast)
        }
        for (offset, chartRow) in detail.chart.rows.enumerated() {
            frame.put(chartRow, row: ScreenLayout.top + offset, column: 1)
        }
        let legendRow = ScreenLayout.top + detail.chart.rows.count
        var lx = frame.put("  ⣿ raw", row: legendRow, column: 0, style: .raw)
        lx = frame.put("  ⣿ smoothed (LOESS)", row: legendRow, column: lx, style: .smoothed)
        lx = frame.put("  ⣿ forecast (Holt)", row: legendRow, column: lx, style: .forecast)
        frame.put("  ⡪ 95% band", row: legendRow, column: lx, style: .band)
    }

    // MARK: Formatting

    static func price(_ value: Double) -> String {
        value.isFinite ? String(format: "%.2f", value) : "—"
    }

    static func percent(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "—" }
        return String(format: "%+.2f%%", value)
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? String(text.prefix(width)) : text + String(repeating: " ", count: width - text.count)
    }

    static func leftPad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
