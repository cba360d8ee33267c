import Foundation
import Lanes
import LanesAppSupport
import StocksKit

/// Draws the three screens and the status line into an off-screen ``Frame``. Pure: the same state and content
/// always give the same frame, so tests assert on its text.
///
/// ```swift
/// let frame = ScreenRenderer.render(nav, content, width: 100, height: 30)
/// print(frame.text)
/// ```
enum ScreenRenderer {
    /// Renders the screen `nav` is on.
    static func render(_ nav: NavigationState, _ content: ScreenContent, width: Int, height: Int) -> Frame {
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
        let header = "  " + pad("Symbol", ScreenLayout.symbolWidth) + " " + pad("Period", ScreenLayout.periodWidth)
            + leftPad("Last", 11) + leftPad("Change", 9) + "  " + pad("Trend", ScreenLayout.sparkWidth)
            + "  Smoothed + forecast"
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
        var x = frame.put("  " + pad(summary.symbol, ScreenLayout.symbolWidth), row: row, column: 0, style: .bold)
        x = frame.put(" " + pad(shortPeriod(summary.period), ScreenLayout.periodWidth), row: row, column: x, style: .dim)
        // Numbers fit in one column less than theirs, so a space always separates the columns.
        x = frame.put(leftPad(price(summary.last, relative: summary.isRelative, maxWidth: 10), 11), row: row, column: x)
        let style: CellStyle = summary.change >= 0 ? .gain : .loss
        x = frame.put(leftPad(percent(summary.percentChange, maxWidth: 8), 9), row: row, column: x, style: style)
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
        drawDetailHeader(detail, into: &frame)
        for (offset, chartRow) in detail.chart.rows.enumerated() {
            frame.put(chartRow, row: ScreenLayout.top + offset, column: 1)
        }
        let legendRow = ScreenLayout.top + detail.chart.rows.count
        var lx = frame.put("  ⣿ raw", row: legendRow, column: 0, style: .raw)
        lx = frame.put("  ⣿ smoothed (LOESS)", row: legendRow, column: lx, style: .smoothed)
        lx = frame.put("  ⣿ forecast (Holt)", row: legendRow, column: lx, style: .forecast)
        frame.put("  ⡪ 95% band", row: legendRow, column: lx, style: .band)
    }

    /// The detail screen's header line: pieces that do not fit whole are left out (least important first), so a
    /// narrow screen never shows half a number.
    private static func drawDetailHeader(_ detail: DetailContent, into frame: inout Frame) {
        let relative = detail.isRelative
        var pieces: [(text: String, style: CellStyle, priority: Int)] = [
            ("  " + TerminalText.truncated(detail.symbol, toWidth: 16) + "  " + detail.sector, .bold, 0),
        ]
        if !detail.period.isEmpty { pieces.append(("  " + detail.period, .dim, 3)) }
        if let stats = detail.summary {
            pieces.append(("   last " + price(stats.last, relative: relative), .plain, 1))
            pieces.append(("  " + percent(stats.percentChange), stats.change >= 0 ? .gain : .loss, 2))
            pieces.append(("  range " + price(stats.minimum, relative: relative) + "–"
                           + price(stats.maximum, relative: relative), .dim, 5))
        }
        if let end = detail.forecastEnd {
            pieces.append(("  forecast " + price(end.value, relative: relative) + " [" + price(end.lower) + ", "
                           + price(end.upper) + "]", .forecast, 4))
        }
        var room = frame.width
        var shown = Set<Int>()
        for (index, piece) in pieces.enumerated().sorted(by: { $0.element.priority < $1.element.priority }) {
            let width = TerminalText.displayWidth(piece.text)
            if width <= room || index == 0 {
                shown.insert(index)
                room -= width
            }
        }
        var x = 0
        for (index, piece) in pieces.enumerated() where shown.contains(index) {
            x = frame.put(piece.text, row: 1, column: x, style: piece.style)
        }
    }

    // MARK: Formatting

    /// A price in at most `maxWidth` columns whatever its magnitude: two decimals, fewer, then scientific
    /// (`1.000e+300`); a relative series' value starts with `×`.
    static func price(_ value: Double, relative: Bool = false, maxWidth: Int = 12) -> String {
        guard value.isFinite else { return "—" }
        return relative ? "×" + fitted(value, maxWidth: maxWidth - 1) : fitted(value, maxWidth: maxWidth)
    }

    /// A signed percentage in at most `maxWidth` columns (`+12.34%`, `+29900%`, `+3.0e+07%`).
    static func percent(_ value: Double?, maxWidth: Int = 10) -> String {
        guard let value, value.isFinite else { return "—" }
        return fitted(value, maxWidth: maxWidth - 1, sign: true) + "%"
    }

    static func fitted(_ value: Double, maxWidth: Int, decimals: Int = 2, sign: Bool = false) -> String {
        let plus = sign ? "+" : ""
        for places in stride(from: decimals, through: 0, by: -1) {
            let text = String(format: "%\(plus).\(places)f", value)
            if text.count <= maxWidth { return text }
        }
        for places in stride(from: 3, through: 0, by: -1) {
            let text = String(format: "%\(plus).\(places)e", value)
            if text.count <= maxWidth { return text }
        }
        return String(repeating: "#", count: max(1, maxWidth))
    }

    /// `2000–2010` → `2000–10` when both years share a century.
    static func shortPeriod(_ period: String) -> String {
        let years = period.split(separator: "–")
        guard years.count == 2, years[0].count == 4, years[1].count == 4, years[0].prefix(2) == years[1].prefix(2)
        else { return period }
        return years[0] + "–" + years[1].suffix(2)
    }

    /// `text` in `width` display columns, left-aligned (cut with an ellipsis when longer).
    static func pad(_ text: String, _ width: Int) -> String {
        TerminalText.padded(text, toWidth: width)
    }

    /// `text` in `width` display columns, right-aligned (cut with an ellipsis when longer).
    static func leftPad(_ text: String, _ width: Int) -> String {
        TerminalText.padded(text, toWidth: width, alignment: .right)
    }
}
