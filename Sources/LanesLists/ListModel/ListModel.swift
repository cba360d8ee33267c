import Lanes

/// A headless list: the geometry, visibility and cell reuse of a table view, with no drawing, so any toolkit (a
/// terminal UI, GTK, a benchmark) can bind to it.
///
/// Give it a row count, a row height, a viewport height and scroll offsets; it keeps the visible rows, a preload range
/// of rows about to appear (see ``ListPreload``) and a pool of reusable cells, and tells its observers what changed, in
/// this order for each update:
///
/// 1. ``ListEvent/enterPreload(row:)`` for rows that were visible and now are in the preload range (so work started
///    for them can continue at preload priority instead of being cancelled and restarted),
/// 2. ``ListEvent/didEndDisplay(row:cell:)`` for rows that left the screen (their cells go back to the pool),
/// 3. ``ListEvent/willDisplay(row:cell:)`` for rows that came on screen, each with a reused (or new) cell,
/// 4. ``ListEvent/leavePreload(row:)`` for rows no longer in the preload range (including rows now visible),
/// 5. ``ListEvent/enterPreload(row:)`` for rows that entered the preload range from further away.
///
/// Within each step rows come in the direction of travel (ascending when scrolling forward); visible rows always come
/// before speculative ones, so work started in event order starts the visible rows first. By default the preload range
/// follows the user (``ListPreload/adaptive(_:)``: nothing speculative at rest, while the user jitters or turns, or
/// after a jump; leaning ahead with a steady scroll's speed); ``ListPreload/fixed(ahead:behind:)`` keeps a number of
/// screens on each side instead. Wired to a ``ContentLoader`` with ``connect(to:quick:key:binding:)``, it gives a list of
/// expensive cells what it needs with no other app code: visible rows load first, rows about to appear are prefetched,
/// rows that leave are cancelled, reused cells never receive another row's content.
///
/// The model belongs to the main actor, like the views it drives; its cell factory and observers are `@MainActor`.
///
/// ```swift
/// let list = ListModel(rowCount: 10_000, rowHeight: 44, viewportHeight: 880) { ChartCell() }
/// list.connect(to: charts, key: { symbols[$0] }, binding: { $0.content })
/// list.layoutIfNeeded()            // rows 0..<20 will display; nothing is prefetched at rest
/// list.scroll(to: 440)             // rows 0..<10 end display; 20..<30 display in reused cells
/// ```
@MainActor
public final class ListModel<Cell> {
    private var geometry: ListGeometry
    /// The scroll offset, between 0 and ``maxScrollOffset``.
    public private(set) var scrollOffset: Double = 0
    /// Which way the list last moved (forward until it first scrolls back).
    public var direction: ScrollDirection { tracker.direction }
    /// The rows on screen.
    public private(set) var visibleRows: Range<Int> = 0..<0
    /// How the preload range is chosen (``ListPreload/adaptive(_:)`` unless the model was made or set otherwise).
    public private(set) var preload: ListPreload
    /// The preload's state: the adaptive plan (fed only while the preload is adaptive), its costs, the direction
    /// and the preload rows.
    private var tracker: PreloadTracker
    private let clock: any LaneClock
    private var cells: [Int: Cell] = [:]
    private var pool: [Cell] = []
    private let makeCell: @MainActor () -> Cell
    private var observers: [@MainActor (ListEvent<Cell>) -> Void] = []
    private var isLaidOut = false
    private var isEmitting = false
    private var pending: [() -> Void] = []
    /// How many cells the model has created (the pool keeps this near the number of visible rows).
    public private(set) var cellsCreated = 0

    /// Creates a model. Nothing is displayed until ``layoutIfNeeded()`` or the first scroll.
    /// - Parameters:
    ///   - rowCount: how many rows the list has.
    ///   - rowHeight: the height of every row (any unit; points, terminal lines).
    ///   - viewportHeight: the height of the visible area, in the same unit.
    ///   - preload: which rows past the screen are preloaded; by default the range follows the user (nothing at rest,
    ///     rows ahead while the list scrolls steadily). See ``ListPreload``.
    ///   - clock: times the scroll updates for an adaptive preload (tests pass a virtual clock).
    ///   - makeCell: makes a cell when the reuse pool is empty.
    ///
    /// ```swift
    /// let list = ListModel(rowCount: 10_000, rowHeight: 44, viewportHeight: 880) { ChartCell() }
    /// let paged = ListModel(rowCount: 500, rowHeight: 1, viewportHeight: 24, preload: .fixed(ahead: 1, behind: 0)) {
    ///     TerminalRow()
    /// }
    /// ```
    public init(
        rowCount: Int, rowHeight: Double, viewportHeight: Double, preload: ListPreload = .adaptive(AdaptivePreload()),
        clock: any LaneClock = SystemLaneClock(), makeCell: @escaping @MainActor () -> Cell
    ) {
        geometry = ListGeometry(rowCount: max(0, rowCount), rowHeight: rowHeight, viewportHeight: viewportHeight)
        self.preload = preload
        tracker = PreloadTracker(preload.adaptiveSettings ?? AdaptivePreload())
        self.clock = clock
        self.makeCell = makeCell
    }

    // MARK: Reading

    /// How many rows the list has.
    public var rowCount: Int { geometry.rowCount }
    /// The height of a row.
    public var rowHeight: Double { geometry.rowHeight }
    /// The height of the viewport.
    public var viewportHeight: Double { geometry.viewportHeight }
    /// The largest scroll offset.
    public var maxScrollOffset: Double { geometry.maxOffset }
    /// The adaptive preload's current speed estimate in rows per second (negative scrolling back; 0 when fixed, still,
    /// or settling after a turn or a jump).
    public var preloadSpeed: Double { geometry.rowHeight > 0 ? tracker.speed / geometry.rowHeight : 0 }
    /// The rows in the preload range that are not visible, in ascending order.
    public var preloadRows: [Int] { tracker.planned.rows(.forward) }
    /// The cell showing `row`, if it is visible.
    ///
    /// ```swift
    /// list.cell(forRow: 12)?.highlight()
    /// ```
    public func cell(forRow row: Int) -> Cell? { cells[row] }
    /// Cells waiting in the reuse pool.
    public var reusableCellCount: Int { pool.count }

    // MARK: Observing

    /// Calls `handler` for every event from now on, for the model's lifetime.
    ///
    /// ```swift
    /// list.observe { event in print(event) }
    /// ```
    public func observe(_ handler: @escaping @MainActor (ListEvent<Cell>) -> Void) {
        observers.append(handler)
    }

    // MARK: Changing

    /// Displays the rows at the current offset if nothing is displayed yet.
    ///
    /// ```swift
    /// list.layoutIfNeeded()   // the window appeared: rows on screen will display
    /// ```
    public func layoutIfNeeded() {
        perform { if !self.isLaidOut { self.update(offset: self.scrollOffset) } }
    }

    /// Scrolls to `offset` (clamped to 0...``maxScrollOffset``) and reports what changed.
    ///
    /// ```swift
    /// list.scroll(to: list.maxScrollOffset)   // jump to the end
    /// ```
    public func scroll(to offset: Double) {
        perform { self.update(offset: offset) }
    }

    /// Scrolls by `delta` (positive is forward).
    ///
    /// ```swift
    /// list.scroll(by: list.viewportHeight)   // page down
    /// ```
    public func scroll(by delta: Double) {
        perform { self.update(offset: self.scrollOffset + delta) }
    }

    /// The finger lifted and the toolkit predicts the fling (GTK's `decelerate`, UIKit's `scrollViewWillEndDragging`,
    /// Android's `OverScroller`): an adaptive preload plans over the whole path now and follows it until
    /// ``touchDown()`` or rest. Keep calling ``scroll(to:)`` as the list moves.
    ///
    /// ```swift
    /// list.liftOff(.gtk(velocity: 2_400))
    /// ```
    public func liftOff(_ prediction: ScrollPrediction) {
        perform {
            guard self.preload.adaptiveSettings != nil else { return }
            self.tracker.liftOff(prediction, offset: self.scrollOffset, at: self.clock.now)
            self.update(offset: self.scrollOffset)
        }
    }

    /// A finger touched the list: the fling's prediction is dropped.
    ///
    /// ```swift
    /// list.touchDown()
    /// ```
    public func touchDown() {
        perform { self.tracker.touchDown(at: self.clock.now) }
    }

    /// Changes the row count, keeping the offset where possible (rows past the end end display).
    ///
    /// ```swift
    /// list.setRowCount(results.count)
    /// ```
    public func setRowCount(_ count: Int) {
        perform {
            self.geometry.rowCount = max(0, count)
            self.update(offset: self.scrollOffset)
        }
    }

    /// Changes the viewport height (a window resize).
    ///
    /// ```swift
    /// list.setViewportHeight(Double(terminal.rows - 2))
    /// ```
    public func setViewportHeight(_ height: Double) {
        perform {
            self.geometry.viewportHeight = height
            self.update(offset: self.scrollOffset)
        }
    }

    /// Changes how the preload range is chosen. Rows that leave the range are reported at once; an adaptive preload
    /// starts afresh (nothing speculative until the list next moves steadily one way).
    ///
    /// ```swift
    /// list.setPreload(.fixed(ahead: 0.25, behind: 0.25))   // keep only the close neighbours
    /// list.setPreload(.adaptive(AdaptivePreload()))       // follow the user again
    /// ```
    public func setPreload(_ preload: ListPreload) {
        perform {
            self.preload = preload
            self.tracker.restart(
                preload.adaptiveSettings ?? AdaptivePreload(), offset: self.scrollOffset, at: self.clock.now)
            self.update(offset: self.scrollOffset)
        }
    }

    /// Ends display of every row and leaves the preload range (rows show other data now), then displays the rows
    /// at the current offset again, with `rowCount` rows if given.
    ///
    /// ```swift
    /// loader.invalidate(clearingCache: true)
    /// list.reloadData(rowCount: newSymbols.count)
    /// ```
    public func reloadData(rowCount: Int? = nil) {
        perform {
            var events = self.visibleRows.map(self.endDisplay)
            for row in self.tracker.planned.rows(.forward) { events.append(.leavePreload(row: row)) }
            self.visibleRows = 0..<0
            self.tracker.planned = .empty
            self.isLaidOut = false
            if let rowCount { self.geometry.rowCount = max(0, rowCount) }
            self.emit(events)
            self.update(offset: self.scrollOffset)
        }
    }

    /// Plans the adaptive preload against what a row costs: `costs`' running estimate of the time to get a row
    /// ready, on `threads` threads (see ``AdaptivePreload``). ``connect(to:quick:key:binding:)`` calls it with the loader's
    /// ``ContentLoader/costs`` and its queue's prefetch threads; call it for a list driven another way. Until the
    /// estimate has a sample the lead is the fixed one.
    ///
    /// ```swift
    /// let renderTimes = CostEstimate()
    /// list.planPreload(costs: renderTimes, threads: 2)
    /// ```
    /// When the list moves faster than rows on screen could be ready, prefetch may use `allThreads` (the rows kept
    /// for visible work have nothing visible left to do), and ``preloadPriority`` is `WorkPriority.normal`.
    public func planPreload(costs: CostEstimate, threads: Int, allThreads: Int? = nil) {
        tracker.planPreload(costs: costs, threads: threads, allThreads: allThreads)
    }

    /// Tells the plan that the rows have a quick tier whose renderings cost `costs`' running estimate (see
    /// ``PreloadTracker/planQuickTier(costs:)``): while the list outpaces full content, the rows coming next are
    /// preloaded for their quick renderings from the screen on, none skipped. ``connect(to:quick:key:binding:)`` calls
    /// it with the quick loader's ``ContentLoader/costs``.
    ///
    /// ```swift
    /// let quickTimes = CostEstimate()
    /// list.planQuickTier(costs: quickTimes)
    /// ```
    public func planQuickTier(costs: CostEstimate) {
        tracker.planQuickTier(costs: costs)
    }

    /// The priority to prefetch rows entering the preload range at: `WorkPriority.prefetch`, or
    /// `WorkPriority.normal` while the list moves faster than rows on screen could be ready (the plan's rows are
    /// the only ones that can be shown, so they may take the threads kept for visible rows).
    ///
    /// ```swift
    /// list.observe { event in
    ///     if case .enterPreload(let row) = event { charts.prefetch([symbols[row]], priority: list.preloadPriority) }
    /// }
    /// ```
    public var preloadPriority: WorkPriority { tracker.preloadPriority }

    /// The priority to load visible `row` at: `WorkPriority.visible`, unless the adaptive preload's plan says the
    /// list moves so fast that the row leaves the screen before its work could be ready, then
    /// `WorkPriority.utility` (it runs only when nothing that can still make it waits, and is cancelled unstarted
    /// when the row leaves). ``connect(to:quick:key:binding:)`` loads visible rows at this priority.
    ///
    /// ```swift
    /// list.observe { event in
    ///     if case .willDisplay(let row, let cell) = event {
    ///         cell.content.show(symbols[row], priority: list.loadPriority(forRow: row))
    ///     }
    /// }
    /// ```
    public func loadPriority(forRow row: Int) -> WorkPriority {
        tracker.loadPriority(forRow: row)
    }

    /// Whether visible `row` should show a quick rendering first (see ``PreloadTracker/wantsQuick(forRow:)``):
    /// ``connect(to:quick:key:binding:)`` asks a binding's quick tier for it then.
    ///
    /// ```swift
    /// let quick = list.wantsQuick(forRow: 42)
    /// ```
    public func wantsQuick(forRow row: Int) -> Bool {
        tracker.wantsQuick(forRow: row)
    }

    // MARK: Internals

    /// Runs a change now, or after the events being delivered if an observer made it.
    private func perform(_ change: @escaping () -> Void) {
        if isEmitting {
            pending.append(change)
            return
        }
        change()
        while !pending.isEmpty {
            let next = pending.removeFirst()
            next()
        }
    }

    private func update(offset requested: Double) {
        let offset = geometry.clamp(requested)
        scrollOffset = offset
        let oldVisible = visibleRows, oldPreload = tracker.planned
        let newVisible = geometry.visibleRows(at: offset)
        var fixed: (ahead: Int, behind: Int)?
        if case .fixed(let ahead, let behind) = preload {
            fixed = (geometry.rows(screens: ahead), geometry.rows(screens: behind))
        }
        tracker.move(
            to: offset, at: clock.now, rowHeight: geometry.rowHeight, viewportHeight: geometry.viewportHeight,
            fixed: fixed)
        let newPreload = tracker.preloadRows(around: newVisible, rowCount: geometry.rowCount)
        visibleRows = newVisible
        isLaidOut = true

        let forward = direction == .forward
        func ordered(_ rows: [Int]) -> [Int] { forward ? rows : rows.reversed() }
        var events: [ListEvent<Cell>] = []
        // 1. Rows leaving the screen into the preload range: preload them before their cells go.
        for row in ordered(Array(oldVisible)) where newPreload.contains(row) { events.append(.enterPreload(row: row)) }
        // 2. Rows leaving the screen: their cells return to the pool.
        for row in ordered(Array(oldVisible)) where !newVisible.contains(row) { events.append(endDisplay(row)) }
        // 3. Rows coming on screen, in reused cells.
        for row in ordered(Array(newVisible)) where !oldVisible.contains(row) {
            let cell: Cell
            if let reused = pool.popLast() {
                cell = reused
            } else {
                cell = makeCell()
                cellsCreated += 1
            }
            cells[row] = cell
            events.append(.willDisplay(row: row, cell: cell))
        }
        // 4. Rows leaving the preload range (some of them are on screen now).
        for row in oldPreload.rows(direction) where !newPreload.contains(row) { events.append(.leavePreload(row: row)) }
        // 5. Rows entering the preload range from further away.
        for row in newPreload.rows(direction) where !oldPreload.contains(row) && !oldVisible.contains(row) {
            events.append(.enterPreload(row: row))
        }
        emit(events)
    }

    /// Ends display of `row`: its cell returns to the pool.
    private func endDisplay(_ row: Int) -> ListEvent<Cell> {
        let cell = cells.removeValue(forKey: row)!
        pool.append(cell)
        return .didEndDisplay(row: row, cell: cell)
    }

    private func emit(_ events: [ListEvent<Cell>]) {
        guard !events.isEmpty, !observers.isEmpty else { return }
        isEmitting = true
        defer { isEmitting = false }
        let observers = self.observers
        for event in events {
            for observer in observers { observer(event) }
        }
    }
}
