import CGtk
import Foundation
import Lanes
import StocksKit

/// What the Stocks page has done.
struct ChartStats {
    var started = 0
    var cancelled = 0
    var cacheHits = 0
    var delivered = 0
    var deliveredWhileLeft = 0
    var inFlight = 0
    /// Charts started while a category's stocks were shown and not yet finished.
    var categoryInFlight = 0
    /// Charts cancelled when their list was left (a category backed out of, or the categories) that still delivered.
    var deliveredToLeftView = 0
    /// Charts that had finished before their page or list was left but reached the main thread after (cached, not
    /// shown).
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
    let charts = WorkQueue("charts", maxConcurrency: 2, executor: PhotosPage.background)
    /// The rows' series: the categories' aggregates, or the open category's stocks.
    var series: [PriceSeries] = []
    var data = StockData([])
    /// The open category, or nil when the categories are shown.
    var category: Int?
    /// Bumped whenever the list shows something else: a chart of an older view is not delivered to it.
    var view = 0
    var stats = ChartStats()
    private(set) var isSuspended = false
    private var cache: [String: TextureHandle] = [:]
    private(set) var rows: [ObjectIdentifier: StockRow] = [:]
    private var detailRow: Int?
    private var detailSize = (0, 0)
    private var detailItem: WorkItem<TextureHandle?>?
    private var detailGeneration = 0

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
            let row = StockRow()
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
        }.onCompletion(on: .main) { [weak self] result in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.data = (try? result.get()) ?? StockData([])
                self.showCategories()
            }
        }
    }

    // MARK: Rows

    private func bind(_ row: StockRow, _ index: Int) {
        guard index < series.count else { return }
        let item = series[index]
        row.index = index
        row.generation += 1
        if category == nil { return bindCategory(row, index) }
        // A symbol can come twice (the bundled AAPL and MSFT: dollar prices and a relative index), so each row says
        // its period, and a relative series shows a factor rather than a price.
        setLabel(row.symbol, TerminalText.sanitized(item.symbol) + "  " + item.period)
        let first = item.prices.first(where: \.isFinite) ?? 0, last = item.lastPrice ?? 0
        setLabel(row.last, String(format: item.kind == .relative ? "×%.2f" : "%.2f", last))
        setLabel(row.change, first == 0 ? "—" : String(format: "%+.2f%%", (last - first) / first * 100))
        guard !isSuspended else { return }
        load(row, index, kind: "spark")
        load(row, index, kind: "chart")
    }

    func load(_ row: StockRow, _ index: Int, kind: String) {
        let item = series[index]
        let key = kind + "/" + item.id
        let isSpark = kind == "spark"
        let picture = isSpark ? row.spark : row.chart
        if let cached = cache[key] {
            stats.cacheHits += 1
            setTexture(cached.retained, in: picture)
            return
        }
        gtk_picture_set_paintable(gcast(picture), nil)
        stats.started += 1
        stats.inFlight += 1
        let view = self.view, inCategory = category != nil
        if inCategory { stats.categoryInFlight += 1 }
        let prices = item.prices
        let work = charts.add(label: key, priority: .visible) { ctx -> TextureHandle? in
            let cancelled = { ctx.isCancelled }
            if kind == "spark" {
                return ChartDrawing.sparkline(
                    prices, width: Self.sparkSize.width, height: Self.sparkSize.height, isCancelled: cancelled)
            }
            let analysis = try Analysis.run(
                item, options: AnalysisOptions(smoother: .savitzkyGolay(window: 21, order: 3)), isCancelled: cancelled)
            return ChartDrawing.analysis(
                analysis, width: Self.chartSize.width, height: Self.chartSize.height, isCancelled: cancelled)
        }
        row.work.append(work)
        let generation = row.generation
        work.onCompletion(on: .main) { [weak self, weak row, work] result in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.stats.inFlight -= 1
                if inCategory { self.stats.categoryInFlight -= 1 }
                guard case .success(let handle?) = result else { return }
                self.stats.delivered += 1
                let left = self.isSuspended, stale = view != self.view
                if left || stale {
                    // The page or the list it was drawn for is gone (it is cached, not shown). Cancelled and still
                    // delivered: not withdrawn in time. Not cancelled: it had finished before the page or list was
                    // left and only waited for the main thread.
                    if !work.isCancelled {
                        self.stats.finishedBeforeLeaving += 1
                    } else {
                        if left { self.stats.deliveredWhileLeft += 1 }
                        if stale { self.stats.deliveredToLeftView += 1 }
                    }
                }
                self.cache[key] = handle
                if self.cache.count > 4000 { self.cache.removeAll() }
                guard let row, row.generation == generation else { return }
                setTexture(handle.retained, in: isSpark ? row.spark : row.chart)
            }
        }
    }

    private func unbind(_ row: StockRow) {
        row.generation += 1
        row.index = nil
        cancelWork(of: row)
    }

    func cancelWork(of row: StockRow) {
        for work in row.work where !work.state.isFinished {
            work.cancel()
            stats.cancelled += 1
        }
        row.work = []
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
        detailItem?.cancel()
        gtk_stack_set_visible_child_name(gcast(stack), "list")
    }

    /// Once a frame: if the detail chart's size changed, draw it again at the new size. A redraw in flight for an
    /// older size is cancelled, so a drag-resize draws only the sizes the page settles on for a frame.
    func frameTick() {
        guard let index = detailRow, !isSuspended else { return }
        let size = (Int(gtk_widget_get_width(detailPicture)), Int(gtk_widget_get_height(detailPicture)))
        guard size.0 > 0, size.1 > 0, size != detailSize else { return }
        detailSize = size
        if let old = detailItem, !old.state.isFinished {
            old.cancel()
            stats.cancelled += 1
        }
        detailGeneration += 1
        let generation = detailGeneration
        let item = series[index]
        stats.started += 1
        stats.inFlight += 1
        let work = charts.add(label: "detail " + item.symbol, priority: .visible) { ctx -> TextureHandle? in
            let analysis = try Analysis.run(item, isCancelled: { ctx.isCancelled })
            return ChartDrawing.analysis(analysis, width: size.0, height: size.1, isCancelled: { ctx.isCancelled })
        }
        detailItem = work
        work.onCompletion(on: .main) { [weak self] result in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.stats.inFlight -= 1
                guard case .success(let handle?) = result, generation == self.detailGeneration else { return }
                self.stats.delivered += 1
                if self.isSuspended { self.stats.deliveredWhileLeft += 1 }
                setTexture(handle.retained, in: self.detailPicture)
            }
        }
    }

    // MARK: Leaving and coming back

    func suspend() {
        guard !isSuspended else { return }
        isSuspended = true
        for row in rows.values {
            row.generation += 1
            cancelWork(of: row)
        }
        if let old = detailItem, !old.state.isFinished {
            old.cancel()
            stats.cancelled += 1
        }
        detailGeneration += 1
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
    var unfinished: Int { charts.counts.unfinished }
}

/// One row of the stock list.
@MainActor
final class StockRow {
    let root: Widget
    let symbol: Widget, last: Widget, change: Widget
    let spark: Widget, chart: Widget
    var index: Int?
    var generation = 0
    var work: [WorkItem<TextureHandle?>] = []

    init() {
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
}
