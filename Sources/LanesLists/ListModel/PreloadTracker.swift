import Lanes

/// The adaptive preload for a list whose scrolling belongs to a toolkit (a `GtkListView`, a collection view): feed it
/// the viewport's offset as it moves, ask it which rows are worth preloading.
///
/// ``ListModel`` runs the same tracker inside; use this one when the toolkit owns the geometry and only tells you the
/// scroll position, once a frame or on every change. It follows ``AdaptivePreload``'s rules: nothing speculative at
/// rest, while the user jitters or right after a turn; rows ahead in proportion to the speed of a steady scroll or a
/// fling; everything dropped on a jump.
///
/// Told what a row costs (``planPreload(costs:threads:allThreads:itemsPerRow:)``), it plans the preload as
/// ``ListModel/planPreload(costs:threads:allThreads:)`` does: the rows the threads can have ready before they leave
/// the screen, skipping those too close to make it (``preloadRows(around:rowCount:)``), with the priorities to load
/// them at (``preloadPriority``, ``loadPriority(forRow:)``).
///
/// ```swift
/// var tracker = PreloadTracker()
/// // once a frame, with the toolkit's numbers (here rows of height 1, a viewport of 20 rows):
/// let extent = tracker.update(offset: scrollTop, at: clock.now, rowHeight: 1, viewportHeight: 20)
/// let window = extent.window(around: 40..<60, rowCount: 10_000)   // 40..<60 at rest; 40..<65 at 100 rows/s forward
/// ```
public struct PreloadTracker: Sendable {
    /// What the plan knows of a row's cost: the loader's estimate and the threads its work may use.
    private struct Costs: Sendable {
        var estimate: CostEstimate
        var threads: Int
        var allThreads: Int
        var itemsPerRow: Int

        var current: PreloadCost? {
            estimate.seconds.map {
                PreloadCost(seconds: $0, threads: threads, allThreads: allThreads, itemsPerRow: itemsPerRow)
            }
        }
    }

    private var planner: PreloadPlanner
    private var lastOffset: Double?
    private var rowHeight = 0.0
    /// The way the list last moved (forward until it first moves back).
    private(set) var direction = ScrollDirection.forward
    private var costs: Costs?
    private var span = PreloadSpan.none
    /// The rows the last ``preloadRows(around:rowCount:)`` answered (a plan keeps those still ahead).
    var planned = PreloadRows.empty

    /// A tracker with `preload`'s settings (the defaults unless given).
    ///
    /// ```swift
    /// var eager = AdaptivePreload()
    /// eager.lead = 0.2
    /// var tracker = PreloadTracker(eager)
    /// let extent = tracker.update(offset: 0, at: clock.now, rowHeight: 1, viewportHeight: 20)
    /// ```
    public init(_ preload: AdaptivePreload = AdaptivePreload()) {
        planner = PreloadPlanner(config: preload)
    }

    /// The settings the tracker follows.
    public var preload: AdaptivePreload { planner.config }

    /// The current speed estimate, in offset units per second (negative scrolling back; 0 at rest, while settling
    /// after a start, a turn or a jump).
    public var speed: Double { planner.speed }

    /// Plans the preload against what a row costs, as ``ListModel/planPreload(costs:threads:allThreads:)`` does:
    /// `costs`' running estimate of the time to get one item ready (a loader's ``ContentLoader/costs``), on `threads`
    /// threads (`allThreads` when the list moves faster than rows on screen could be ready), `itemsPerRow` items a
    /// row (a grid's columns, when its rows are the lines). Until the estimate has a sample the lead is the fixed one.
    ///
    /// ```swift
    /// tracker.planPreload(costs: charts.costs, threads: 2, itemsPerRow: 5)   // a grid of five charts a line
    /// ```
    public mutating func planPreload(costs: CostEstimate, threads: Int, allThreads: Int? = nil, itemsPerRow: Int = 1) {
        let threads = max(1, threads)
        self.costs = Costs(
            estimate: costs, threads: threads, allThreads: max(threads, allThreads ?? threads),
            itemsPerRow: max(1, itemsPerRow))
    }

    /// The viewport's top is at `offset` at `time` (nanoseconds of a monotonic clock, such as
    /// `DispatchTime.now().uptimeNanoseconds` or a `LaneClock`'s `now`). Returns the rows to preload now. An update
    /// that does not move keeps the last answer.
    ///
    /// Give the time the offset is drawn for when the toolkit has one (GTK's frame clock's frame time, a display
    /// link's timestamp): the speed and slow-down are estimated from these times, and a time taken whenever a
    /// callback happens to run jitters with the frame's own work, so a steady scroll looks like flicks and stops.
    ///
    /// ```swift
    /// let extent = tracker.update(offset: 120, at: clock.now, rowHeight: 44, viewportHeight: 880)
    /// ```
    @discardableResult
    public mutating func update(offset: Double, at time: UInt64, rowHeight: Double, viewportHeight: Double)
        -> PreloadExtent
    {
        move(to: offset, at: time, rowHeight: rowHeight, viewportHeight: viewportHeight)
        return PreloadExtent(ahead: span.ahead, behind: span.behind, direction: direction, skip: span.skip)
    }

    /// The viewport's top moved to `offset`: the direction follows, and the span is the plan's, or `fixed` (a
    /// ``ListPreload/fixed(ahead:behind:)`` preload's, which leaves the planner unfed: at rest, with no path).
    mutating func move(
        to offset: Double, at time: UInt64, rowHeight: Double, viewportHeight: Double, fixed: PreloadSpan? = nil
    ) {
        if let lastOffset {
            if offset > lastOffset { direction = .forward } else if offset < lastOffset { direction = .backward }
        }
        lastOffset = offset
        self.rowHeight = rowHeight
        span = fixed ?? planner.moved(
            to: offset, at: time, rowHeight: rowHeight, viewportHeight: viewportHeight, cost: costs?.current)
    }

    /// Starts the plan afresh with `preload`'s settings, from `offset` (nothing speculative until the list next
    /// moves steadily one way); the costs, the direction and the planned rows stay.
    mutating func restart(
        _ preload: AdaptivePreload, offset: Double, at time: UInt64, rowHeight: Double, viewportHeight: Double
    ) {
        planner = PreloadPlanner(config: preload)
        _ = planner.moved(to: offset, at: time, rowHeight: rowHeight, viewportHeight: viewportHeight)
    }

    /// The rows to preload beyond `visible` after the last ``update(offset:at:rowHeight:viewportHeight:)``, within
    /// `0..<rowCount`: the extent's window, or with a cost-aware plan the rows it can have ready, skipping the rows too
    /// close to make it; rows it planned before and the screen has not reached yet stay (their work may have started).
    ///
    /// ```swift
    /// let preload = tracker.preloadRows(around: 40..<60, rowCount: 10_000)
    /// let wanted = preload.contains(66) ? tracker.preloadPriority : nil
    /// ```
    public mutating func preloadRows(around visible: Range<Int>, rowCount: Int) -> PreloadRows {
        let geometry = ListGeometry(rowCount: max(0, rowCount), rowHeight: 1, viewportHeight: Double(visible.count))
        planned = geometry.preloadRows(for: span, visible: visible, direction: direction, keeping: planned)
        return planned
    }

    /// The priority to preload rows at: `WorkPriority.prefetch`, or `WorkPriority.normal` while the list moves faster
    /// than rows on screen could be ready (the plan's rows are the only ones that can be shown).
    ///
    /// ```swift
    /// charts.prefetch([symbol], priority: tracker.preloadPriority)
    /// ```
    public var preloadPriority: WorkPriority { span.outruns ? .normal : .prefetch }

    /// The priority to load visible `row` at: `WorkPriority.visible`, or `WorkPriority.utility` when the plan says
    /// the row leaves the screen before its work could be ready (it runs only when nothing that can still make it
    /// waits).
    ///
    /// ```swift
    /// cell.content.show(symbol, priority: tracker.loadPriority(forRow: 42))
    /// ```
    public func loadPriority(forRow row: Int) -> WorkPriority {
        guard let lastOffset, let seconds = costs?.current?.seconds else { return .visible }
        return planner.canBeReady(row: row, offset: lastOffset, rowHeight: rowHeight, seconds: seconds)
            ? .visible : .utility
    }
}

/// How many rows beyond the visible ones to preload, and which way is ahead: a ``PreloadTracker``'s answer.
///
/// ```swift
/// let extent = PreloadExtent(ahead: 6, behind: 0, direction: .backward)
/// extent.window(around: 40..<60, rowCount: 100)    // 34..<60
/// ```
public struct PreloadExtent: Sendable, Equatable {
    /// Rows to preload past the visible ones in ``direction``.
    public var ahead: Int
    /// Rows to preload on the other side.
    public var behind: Int
    /// The way the list last moved.
    public var direction: ScrollDirection
    /// Rows past the screen in ``direction`` that a cost-aware plan skips before its ``ahead`` rows (they would leave
    /// the screen before their work could be ready); 0 without a plan.
    public var skip: Int

    /// An extent of `ahead` rows in `direction` after the first `skip` past the screen, and `behind` rows the other
    /// way.
    ///
    /// ```swift
    /// let none = PreloadExtent(ahead: 0, behind: 0, direction: .forward)
    /// ```
    public init(ahead: Int, behind: Int, direction: ScrollDirection, skip: Int = 0) {
        self.ahead = max(0, ahead)
        self.behind = max(0, behind)
        self.direction = direction
        self.skip = max(0, skip)
    }

    /// Whether nothing beyond the visible rows is worth loading.
    public var isEmpty: Bool { ahead == 0 && behind == 0 }

    /// The visible rows widened by the extent, within `0..<rowCount` (with the rows ``skip`` leaves out: a plan's rows
    /// are ``PreloadTracker/preloadRows(around:rowCount:)``).
    ///
    /// ```swift
    /// PreloadExtent(ahead: 5, behind: 1, direction: .forward).window(around: 10..<20, rowCount: 22)   // 9..<22
    /// ```
    public func window(around visible: Range<Int>, rowCount: Int) -> Range<Int> {
        let (before, after) = direction == .forward ? (behind, ahead) : (ahead, behind)
        let lower = max(0, visible.lowerBound - before - (direction == .backward ? skip : 0))
        let upper = min(max(0, rowCount), visible.upperBound + after + (direction == .forward ? skip : 0))
        return lower..<max(lower, upper)
    }
}
