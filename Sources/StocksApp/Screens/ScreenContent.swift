import StocksKit

/// Everything the screens draw, gathered by the controller on the main queue.
///
/// ```swift
/// var content = ScreenContent(title: "stocks", categories: [.init(name: "Technology", count: 12)])
/// let frame = ScreenRenderer.render(NavigationState(categoryCount: 1), content, width: 80, height: 24)
/// ```
struct ScreenContent {
    /// A category line on the first screen.
    struct CategoryLine: Sendable, Equatable {
        var name: String
        var count: Int
        init(name: String, count: Int) {
            self.name = name
            self.count = count
        }
    }

    var title: String
    var categories: [CategoryLine]
    /// The open category's rows; nil while it loads.
    var rows: [StockSummary]?
    /// The braille chart of a list row if it is ready (nil: still rendering).
    var rowChart: (Int) -> ChartRow?
    /// The open stock's symbol, and its chart once analysed.
    var detailSymbol: String?
    var detail: DetailContent?
    /// A line of notices (data errors).
    var notice: String?
    /// The status line.
    var hud: String

    init(
        title: String, categories: [CategoryLine], rows: [StockSummary]? = nil,
        rowChart: @escaping (Int) -> ChartRow? = { _ in nil }, detailSymbol: String? = nil,
        detail: DetailContent? = nil, notice: String? = nil, hud: String = ""
    ) {
        self.title = title
        self.categories = categories
        self.rows = rows
        self.rowChart = rowChart
        self.detailSymbol = detailSymbol
        self.detail = detail
        self.notice = notice
        self.hud = hud
    }
}

/// The screen layout shared by the renderer and the controller (which sizes charts to it).
enum ScreenLayout {
    /// Rows above the list (title, header).
    static let top = 2
    /// Rows below the list (keys, status line).
    static let bottom = 2
    /// Columns of a list row before its chart: symbol, period, last, change, sparkline.
    static let rowChartColumn = 2 + symbolWidth + 1 + periodWidth + 11 + 9 + 2 + sparkWidth + 2
    /// Width of a row's symbol (display columns: a wide character counts 2).
    static let symbolWidth = 8
    /// Width of a row's period (`2000–10`).
    static let periodWidth = 7
    /// Width of a row's sparkline.
    static let sparkWidth = 16

    /// How many list rows fit in `height`.
    static func listHeight(_ height: Int) -> Int { max(1, height - top - bottom) }
    /// Width of a row's braille chart.
    static func rowChartWidth(_ width: Int) -> Int { max(4, width - rowChartColumn - 1) }
    /// Size of the detail chart.
    static func detailChartSize(width: Int, height: Int) -> (width: Int, height: Int) {
        (max(10, width - 2), max(3, height - top - bottom - 2))
    }
}
