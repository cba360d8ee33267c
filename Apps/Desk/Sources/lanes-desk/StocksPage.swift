import CGtk4
import Foundation
import Lanes
import LanesAppSupport
import LanesLists
import StocksKit

/// What the Stocks page has done (from its chart loaders' statistics and its own deliveries).
struct ChartStats {
    var started = 0
    var cancelled = 0
    var cacheHits = 0
    var delivered = 0
    var deliveredWhileLeft = 0
    var inFlight = 0
    /// Charts of a category's stocks in flight.
    var categoryInFlight = 0
    /// Charts handed to a row of a list that was left (a category backed out of, or the categories): never, since
    /// leaving a list clears its rows' bindings; counted to prove it.
    var deliveredToLeftView = 0
    /// Charts that finished for a row after it had moved on (dropped by its binding, cached for next time).
    var finishedBeforeLeaving = 0
}

/// The Stocks page: the categories (sectors, StocksCategories.swift), a category's stocks (symbol, last, change, a
/// sparkline and a smoothed + forecast chart, both drawn with Cairo off the main thread per row, cancelled when the
/// row is unbound or the category is left, cached) and a detail chart at the page's size, redrawn off-main when it is
/// resized (coalesced: only the latest size is drawn). One list view shows either the categories or a category.
@MainActor
final class StocksPage {
    nonisolated static let sparkSize = (width: 120, height: 28)
    nonisolated static let chartSize = (width: 260, height: 40)

    let root: Widget
    let list: Widget
    let strings: OpaquePointer
    let back: Widget
    let listTitle: Widget
    private let stack: Widget
    private let detailPicture: Widget
    private let detailTitle: Widget
    /// The chart loaders (categories, a category's stocks, the detail chart), their queue and cache.
    let charts = StockCharts()
    /// The rows' series: the categories' aggregates, or the open category's stocks.
    var series: [PriceSeries] = []
    var data = StockData([])
    /// The open category, or nil when the categories are shown.
    var category: Int?
    private var counts = ChartStats()
    private(set) var isSuspended = false
    private(set) var rows: [ObjectIdentifier: StockRow] = [:]
    private var detailRow: Int?
    private var detailSize = (0, 0)
    private lazy var detailChart = charts.detail.binding(
        placeholder: { [unowned self] _ in gtk_picture_set_paintable(gcast(detailPicture), nil) },
        handler: { [unowned self] _, result in
            guard case .success(let handle) = result else { return }
            counts.delivered += 1
            if isSuspended { counts.deliveredWhileLeft += 1 }
            setTexture(handle.retained, in: detailPicture)
        })

    /// What the page has done: the loaders' counts and the deliveries it took.
    var stats: ChartStats {
        var stats = counts
        let loaders = charts.all.map(\.stats)
        stats.started = loaders.map(\.scheduled).reduce(0, +)
        stats.cancelled = loaders.map(\.cancelled).reduce(0, +)
        stats.cacheHits = loaders.map(\.cacheHits).reduce(0, +)
        stats.finishedBeforeLeaving = loaders.map(\.staleDropped).reduce(0, +)
        stats.inFlight = charts.all.map(\.inFlightCount).reduce(0, +)
        stats.categoryInFlight = charts.stocks.inFlightCount
        return stats
    }

    init(synthetic: Int?) {
        stack = gtk_stack_new()
        root = stack
        strings = gtk_string_list_new(nil)
        let factory = gtk_signal_list_item_factory_new()
        let scroller = gtk_scrolled_window_new()!
        list = gtk_list_view_new(gcast(raw(gtk_no_selection_new(gcast(raw(strings))))), factory)
        gtk_list_view_set_single_click_activate(gcast(list), 1)
        gtk_scrolled_window_set_child(gcast(scroller), list)
        gtk_widget_set_vexpand(scroller, 1)
        let listPage = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4)!
        let listBar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
        back = gtk_button_new_with_label("← Categories")
        listTitle = gtk_label_new("Loading…")
        gtk_widget_set_margin_start(listBar, 8)
        gtk_box_append(gcast(listBar), back)
        gtk_box_append(gcast(listBar), listTitle)
        gtk_box_append(gcast(listPage), listBar)
        gtk_box_append(gcast(listPage), scroller)
        gtk_stack_add_named(gcast(stack), listPage, "list")
        let detail = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
        let bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
        let detailBack = gtk_button_new_with_label("← Back")!
        detailTitle = gtk_label_new("")
        detailPicture = gtk_picture_new()
        gtk_widget_set_vexpand(detailPicture, 1)
        gtk_widget_set_hexpand(detailPicture, 1)
        gtk_picture_set_can_shrink(gcast(detailPicture), 1)
        gtk_box_append(gcast(bar), detailBack)
        gtk_box_append(gcast(bar), detailTitle)
        gtk_box_append(gcast(detail), bar)
        gtk_box_append(gcast(detail), detailPicture)
        gtk_stack_add_named(gcast(stack), detail, "detail")

        onSignal(raw(factory), "setup") { [unowned self] item in
            let row = StockRow(page: self)
            attach(row, to: item, key: "lanes-row")
            gtk_list_item_set_child(gcast(item), row.root)
            rows[ObjectIdentifier(row)] = row
        }
        onSignal(raw(factory), "bind") { [unowned self] item in
            guard let row = attached(item, key: "lanes-row", as: StockRow.self) else { return }
            bind(row, Int(gtk_list_item_get_position(gcast(item))))
        }
        onSignal(raw(factory), "unbind") { [unowned self] item in
            guard let row = attached(item, key: "lanes-row", as: StockRow.self) else { return }
            unbind(row)
        }
        onSignal(raw(factory), "teardown") { [unowned self] item in
            if let row = attached(item, key: "lanes-row", as: StockRow.self) { rows[ObjectIdentifier(row)] = nil }
        }
        onSignal(raw(list), "activate") { [unowned self] (position: UInt32) in
            if category == nil { openCategory(Int(position)) } else { openDetail(Int(position)) }
        }
        onSignal(raw(detailBack), "clicked") { [unowned self] in closeDetail() }
        onSignal(raw(back), "clicked") { [unowned self] in backToCategories() }
        onKeyPress(stack) { [unowned self] key in
            guard key == UInt32(GDK_KEY_Escape) else { return false }
            escape()
            return true
        }

        // Load the data off the main thread, then fill the list.
        let load = WorkQueue("stock data", maxConcurrency: 1)
        load.add(label: "load stocks") { ctx -> StockData in
            if let synthetic {
                return StockData(
                    try SyntheticStocks.generate(count: synthetic, days: 260, seed: 7, isCancelled: { ctx.isCancelled }))
            }
            return StockData(try BundledStocks.load(isCancelled: { ctx.isCancelled }).series)
        }.onMainCompletion { [weak self] result in
            guard let self else { return }
            data = (try? result.get()) ?? StockData([])
            showCategories()
        }
    }

    // MARK: Rows

    private func bind(_ row: StockRow, _ index: Int) {
        guard index < series.count else { return }
        let item = series[index]
        row.index = index
        row.category = category
        if category == nil { return bindCategory(row, index) }
        // A symbol can come twice (the bundled AAPL and MSFT: dollar prices and a relative index), so each row says
        // its period, and a relative series shows a factor rather than a price.
        setLabel(row.symbol, TerminalText.sanitized(item.symbol) + "  " + item.period)
        let first = item.prices.first(where: \.isFinite) ?? 0, last = item.lastPrice ?? 0
        setLabel(row.last, String(format: item.kind == .relative ? "×%.2f" : "%.2f", last))
        setLabel(row.change, first == 0 ? "—" : String(format: "%+.2f%%", (last - first) / first * 100))
        guard !isSuspended else { return }
        row.show(spark: ChartKey(kind: .sparkline, series: item, width: Self.sparkSize.width, height: Self.sparkSize.height),
                 chart: ChartKey(kind: .analysis, series: item, width: Self.chartSize.width, height: Self.chartSize.height))
    }

    /// A row's binding handed it a chart (only ever the chart of the row it shows now).
    func delivered(_ result: Result<TextureHandle, any Error>, to row: StockRow, in picture: Widget) {
        guard case .success(let handle) = result else { return }
        counts.delivered += 1
        if isSuspended { counts.deliveredWhileLeft += 1 }
        if row.category != category { counts.deliveredToLeftView += 1 }
        setTexture(handle.retained, in: picture)
    }

    private func unbind(_ row: StockRow) {
        row.index = nil
        row.clear()
    }

    // MARK: Detail

    private func openDetail(_ index: Int) {
        guard index < series.count else { return }
        detailRow = index
        detailSize = (0, 0)
        setLabel(detailTitle, TerminalText.sanitized(series[index].symbol) + " · smoothed (LOESS) and Holt forecast")
        gtk_picture_set_paintable(gcast(detailPicture), nil)
        gtk_stack_set_visible_child_name(gcast(stack), "detail")
    }

    private func closeDetail() {
        detailRow = nil
        detailChart.clear()
        gtk_stack_set_visible_child_name(gcast(stack), "list")
    }

    /// Once a frame: if the detail chart's size changed, show the chart at the new size; its binding withdraws the
    /// chart of the older size (cancelled if still drawing), so a drag-resize draws only the sizes the page settles on
    /// for a frame.
    func frameTick() {
        guard let index = detailRow, !isSuspended else { return }
        let size = (Int(gtk_widget_get_width(detailPicture)), Int(gtk_widget_get_height(detailPicture)))
        guard size.0 > 0, size.1 > 0, size != detailSize else { return }
        detailSize = size
        detailChart.show(ChartKey(kind: .detail, series: series[index], width: size.0, height: size.1))
    }

    // MARK: Leaving and coming back

    /// The page was left: every row's charts and the detail chart are withdrawn (cancelled unless drawn).
    func suspend() {
        guard !isSuspended else { return }
        isSuspended = true
        for row in rows.values { row.clear() }
        detailChart.clear()
        detailSize = (0, 0)
    }

    func resume() {
        guard isSuspended else { return }
        isSuspended = false
        for row in rows.values {
            if let index = row.index { bind(row, index) }
        }
    }

    var isShowingDetail: Bool { detailRow != nil }
    func openDetailForScript(_ index: Int) { openDetail(index) }
    func closeDetailForScript() { closeDetail() }
    func scrollForScript(by pixels: Double) {
        gtk_adjustment_set_value(adjustment, gtk_adjustment_get_value(adjustment) + pixels)
    }

    /// The list's vertical scroll position.
    var adjustment: UnsafeMutablePointer<GtkAdjustment> {
        gtk_scrolled_window_get_vadjustment(gcast(gtk_widget_get_parent(list)))!
    }

    /// Chart items not yet finished (queued or drawing).
    var unfinished: Int { charts.queue.counts.unfinished }
}

/// One row of the stock list: labels, and a sparkline and a chart bound to the page's chart loaders.
@MainActor
final class StockRow {
    let root: Widget
    let symbol: Widget, last: Widget, change: Widget
    let spark: Widget, chart: Widget
    /// The row shown (kept while the page is left, to show it again on return), and the list it belongs to.
    var index: Int?
    var category: Int?
    private unowned let page: StocksPage
    private lazy var sparkBinding = binding(page.charts.stocks, into: spark)
    private lazy var chartBinding = binding(page.charts.stocks, into: chart)
    private lazy var categorySparkBinding = binding(page.charts.categories, into: spark)

    init(page: StocksPage) {
        self.page = page
        root = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12)
        symbol = gtk_label_new("")
        last = gtk_label_new("")
        change = gtk_label_new("")
        spark = gtk_picture_new()
        chart = gtk_picture_new()
        for (label, width) in [(symbol, 180), (last, 80), (change, 80)] {
            gtk_widget_set_size_request(label, Int32(width), -1)
            gtk_label_set_xalign(gcast(label), label == symbol ? 0 : 1)
            gtk_box_append(gcast(root), label)
        }
        gtk_widget_set_size_request(spark, Int32(StocksPage.sparkSize.width), Int32(StocksPage.sparkSize.height))
        gtk_widget_set_size_request(chart, Int32(StocksPage.chartSize.width), Int32(StocksPage.chartSize.height))
        gtk_box_append(gcast(root), spark)
        gtk_box_append(gcast(root), chart)
        gtk_widget_set_margin_start(root, 8)
    }

    private func binding(_ loader: ContentLoader<ChartKey, TextureHandle>, into picture: Widget)
        -> ContentBinding<ChartKey, TextureHandle>
    {
        loader.binding(
            placeholder: { _ in gtk_picture_set_paintable(gcast(picture), nil) },
            handler: { [unowned self] _, result in page.delivered(result, to: self, in: picture) })
    }

    /// Shows a stock's sparkline and chart.
    func show(spark: ChartKey, chart: ChartKey) {
        categorySparkBinding.clear()
        sparkBinding.show(spark)
        chartBinding.show(chart)
    }

    /// Shows a category's aggregate sparkline (no chart).
    func showCategory(spark: ChartKey) {
        sparkBinding.clear()
        chartBinding.clear()
        gtk_picture_set_paintable(gcast(chart), nil)
        categorySparkBinding.show(spark)
    }

    /// Withdraws the row's charts (unbound, the page or its list left).
    func clear() {
        sparkBinding.clear()
        chartBinding.clear()
        categorySparkBinding.clear()
    }
}
