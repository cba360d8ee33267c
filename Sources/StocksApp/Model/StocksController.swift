import Dispatch
import Foundation
import Lanes
import LanesLists
import StocksKit

/// The app: navigation state, the open category's rows, row charts and the detail chart, drawn into frames.
///
/// Share nothing: the controller and everything it holds are owned by the main lane. Other lanes get immutable
/// values (a category's `[PriceSeries]`, a series) and send back immutable results (`[StockSummary]`, `ChartRow`,
/// `DetailContent`) on the main queue. With ``AppMode/naive`` the same work runs synchronously on the main queue.
///
/// `@MainActor`: every entry point runs on the main actor (key handlers, completions shipped with
/// `onMainCompletion`, timers on `DispatchQueue.main`); closures that other lanes run capture only immutable values.
///
/// ```swift
/// let app = StocksController(universe: universe, mode: .lanes, width: 100, height: 30) { frame in show(frame) }
/// app.handle(.enter)   // opens the first category
/// ```
@MainActor
final class StocksController {
    let mode: AppMode
    let universe: StockUniverse
    private(set) var nav: NavigationState
    private(set) var width: Int
    private(set) var height: Int
    /// Called when the app wants to quit (q, Ctrl-C).
    var onQuit: () -> Void = {}
    /// A notice shown above the status line (e.g. data errors).
    var notice: String?
    let title: String

    let monitor: ResponsivenessMonitor
    private let output: (Frame) -> Void
    private let processing = WorkQueue("processing", maxConcurrency: 2)
    let loader: ContentLoader<RowChartKey, ChartRow>
    private var list: ListModel<RowCell>!
    private var rows: [StockSummary]?
    private var categoryItem: WorkItem<[StockSummary]>?
    private var detailItem: WorkItem<DetailContent>?
    private var detail: DetailContent?
    private var generation = 0
    private var naiveCharts: [RowChartKey: ChartRow] = [:]
    private var redrawPending = false
    /// Set by ``stop()``: the terminal may already be restored, so nothing is drawn after it (a redraw still due, or a
    /// result arriving, would write the list over the shell's screen).
    private(set) var isStopped = false
    private var lastDraw: UInt64 = 0
    private var hudTimer: LaneTimer?
    /// Work the controller withdrew: category loads and detail analyses left before they finished.
    private(set) var screenCancels = 0
    /// Frames drawn.
    private(set) var framesDrawn = 0
    /// The last frame drawn.
    private(set) var lastFrame: Frame?

    /// Creates the app at the categories screen; `output` receives each frame drawn.
    init(
        universe: StockUniverse, mode: AppMode, width: Int, height: Int, title: String = "stocks",
        output: @escaping (Frame) -> Void
    ) {
        self.universe = universe
        self.mode = mode
        self.width = width
        self.height = height
        self.title = title
        self.output = output
        nav = NavigationState(categoryCount: universe.categories.count, pageSize: ScreenLayout.listHeight(height))
        monitor = ResponsivenessMonitor(target: .main)
        let charts = WorkQueue("row charts", maxConcurrency: 2)
        loader = ContentLoader(name: "row chart", queue: charts, costLimit: 20_000) { key, context in
            guard let series = universe.series(id: key.id) else { throw CancellationError() }
            return try StockWork.rowChart(series, width: key.width, isCancelled: { context.isCancelled })
        }
        // Keys move the list a row or a page at a time, not in a continuous scroll the adaptive preload could follow:
        // the next page is the likely next step, so it is preloaded whatever the list did last.
        list = ListModel(rowCount: 0, rowHeight: 1, viewportHeight: Double(nav.pageSize),
                         preload: .fixed(ahead: 1, behind: 0.25)) { [unowned self] in
            RowCell(loader: loader) { [unowned self] in scheduleRedraw() }
        }
        if mode == .lanes {
            list.connect(to: loader, key: { [unowned self] row in rowKey(row) }, binding: { $0.binding })
        }
    }

    /// Starts the monitor and the status-line refresh, and draws the first frame.
    func start() {
        monitor.start()
        hudTimer = LaneTimer.everyOnMain(.milliseconds(250), label: "status line") { [weak self] in
            self?.scheduleRedraw()
        }
        draw()
    }

    /// Stops everything: timers, the monitor, all pending work.
    func stop() {
        isStopped = true
        hudTimer?.cancel()
        hudTimer = nil
        monitor.stop()
        categoryItem?.cancel()
        detailItem?.cancel()
        loader.invalidate()
    }

    // MARK: Input

    /// Applies a key.
    func handle(_ key: Key) {
        for effect in nav.handle(key) {
            switch effect {
            case .quit:
                onQuit()
                return
            case .openCategory(let index): openCategory(index)
            case .closeCategory: closeCategory()
            case .openStock(let category, let row): openStock(category: category, row: row)
            case .closeStock: closeStock()
            case .moved: break
            }
        }
        syncList()
        scheduleRedraw()
    }

    /// The terminal changed size.
    func resize(width: Int, height: Int) {
        guard width != self.width || height != self.height else { return }
        self.width = width
        self.height = height
        nav.setPageSize(ScreenLayout.listHeight(height))
        list.setViewportHeight(Double(nav.pageSize))
        if mode == .lanes { list.reloadData(rowCount: rows?.count ?? 0) }
        syncList()
        if case .detail(let category, let row) = nav.screen { openStock(category: category, row: row) }
        lastFrame = nil
        scheduleRedraw()
    }

    // MARK: Screens' work

    private func openCategory(_ index: Int) {
        generation += 1
        let series = universe.categories[index].series
        let width = ScreenLayout.sparkWidth
        if mode == .naive {
            loaded(try? StockWork.summaries(series, sparkWidth: width, isCancelled: { false }))
            return
        }
        let token = generation
        let item = processing.add(label: "load " + universe.categories[index].name, priority: .visible) { context in
            try StockWork.summaries(series, sparkWidth: width, isCancelled: { context.isCancelled })
        }
        categoryItem = item
        item.onMainCompletion { [self] result in
            guard token == generation, let rows = try? result.get() else { return }
            categoryItem = nil
            loaded(rows)
        }
    }

    private func loaded(_ summaries: [StockSummary]?) {
        rows = summaries ?? []
        nav.setStockCount(rows?.count ?? 0)
        if mode == .lanes {
            list.reloadData(rowCount: rows?.count ?? 0)
            list.layoutIfNeeded()
        }
        syncList()
        scheduleRedraw()
    }

    private func closeCategory() {
        generation += 1
        if let item = categoryItem, !item.state.isFinished {
            item.cancel()
            screenCancels += 1
        }
        categoryItem = nil
        rows = nil
        if mode == .lanes {
            list.reloadData(rowCount: 0)
            loader.invalidate()
        }
    }

    private func openStock(category: Int, row: Int) {
        generation += 1
        detail = nil
        detailItem?.cancel()
        guard let id = rows?[row].id, let series = universe.series(id: id) else { return }
        let size = ScreenLayout.detailChartSize(width: width, height: height)
        if mode == .naive {
            detail = try? StockWork.detailChart(series, width: size.width, height: size.height, isCancelled: { false })
            return
        }
        let token = generation
        let item = processing.add(label: "analyse " + series.symbol, priority: .visible) { context in
            try StockWork.detailChart(series, width: size.width, height: size.height,
                                      isCancelled: { context.isCancelled })
        }
        detailItem = item
        item.onMainCompletion { [self] result in
            guard token == generation, let content = try? result.get() else { return }
            detailItem = nil
            detail = content
            scheduleRedraw()
        }
    }

    private func closeStock() {
        generation += 1
        if let item = detailItem, !item.state.isFinished {
            item.cancel()
            screenCancels += 1
        }
        detailItem = nil
        detail = nil
    }

    // MARK: Rows

    private func rowKey(_ row: Int) -> RowChartKey {
        RowChartKey(id: rows?[row].id ?? "", width: ScreenLayout.rowChartWidth(width))
    }

    private func syncList() {
        guard mode == .lanes, case .stocks = nav.screen, rows != nil else { return }
        list.scroll(to: Double(nav.stockScroll))
    }

    private func rowChart(_ row: Int) -> ChartRow? {
        let key = rowKey(row)
        if mode == .lanes { return list.cell(forRow: row)?.chart(for: key) }
        if let chart = naiveCharts[key] { return chart }
        guard let series = universe.series(id: key.id),
              let chart = try? StockWork.rowChart(series, width: key.width, isCancelled: { false }) else { return nil }
        naiveCharts[key] = chart
        return chart
    }

    // MARK: Drawing

    /// Asks for a redraw; redraws are coalesced to at most one per 16 ms frame.
    func scheduleRedraw() {
        guard !redrawPending, !isStopped else { return }
        redrawPending = true
        let now = DispatchTime.now().uptimeNanoseconds
        let wait = lastDraw + 16_000_000 > now ? lastDraw + 16_000_000 - now : 0
        DispatchQueue.main.asyncAfter(deadline: .now() + .nanoseconds(Int(wait))) { [weak self] in
            guard let self, redrawPending else { return }
            draw()
        }
    }

    /// Draws now.
    func draw() {
        redrawPending = false
        guard !isStopped else { return }
        lastDraw = DispatchTime.now().uptimeNanoseconds
        let content = ScreenContent(
            title: title, categories: universe.categories.map { .init(name: $0.name, count: $0.series.count) },
            rows: rows, rowChart: { [unowned self] in rowChart($0) }, detailSymbol: detailSymbol,
            detail: detail, notice: notice, hud: hudText)
        let frame = ScreenRenderer.render(nav, content, width: width, height: height)
        framesDrawn += 1
        lastFrame = frame
        output(frame)
    }

    private var detailSymbol: String? {
        guard case .detail(_, let row) = nav.screen, let rows, row < rows.count else { return nil }
        return rows[row].symbol
    }

    // MARK: Figures

    /// The figures the status line and the scripted runs report.
    var figures: RunFigures {
        let stats = loader.stats
        return RunFigures(
            mode: mode, responsiveness: monitor.snapshot(), rendersStarted: stats.started,
            rendersCompleted: mode == .lanes ? stats.completed : naiveCharts.count,
            rendersCancelled: stats.cancelled, cacheHits: stats.cacheHits,
            cached: mode == .lanes ? loader.cache.count : naiveCharts.count,
            inFlight: loader.inFlightCount + processing.counts.unfinished,
            screenCancels: screenCancels, wrongCellDeliveries: stats.wrongCellDeliveries, frames: framesDrawn)
    }

    var hudText: String {
        let figures = figures
        return "\(mode.rawValue) · \(figures.responsiveness.hudText) · in flight \(figures.inFlight)"
            + " · cancelled \(figures.rendersCancelled + figures.screenCancels) · cached \(figures.cached)"
    }
}

