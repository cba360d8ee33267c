/// The adaptive preload for a list whose scrolling belongs to a toolkit (a `GtkListView`, a collection view): feed it
/// the viewport's offset as it moves, ask it which rows are worth preloading.
///
/// ``ListModel`` runs the same tracker inside; use this one when the toolkit owns the geometry and only tells you the
/// scroll position, once a frame or on every change. It follows ``AdaptivePreload``'s rules: nothing speculative at
/// rest, while the user jitters or right after a turn; rows ahead in proportion to the speed of a steady scroll or a
/// fling; everything dropped on a jump.
///
/// ```swift
/// var tracker = PreloadTracker()
/// // once a frame, with the toolkit's numbers (here rows of height 1, a viewport of 20 rows):
/// let extent = tracker.update(offset: scrollTop, at: clock.now, rowHeight: 1, viewportHeight: 20)
/// let window = extent.window(around: 40..<60, rowCount: 10_000)   // 40..<60 at rest; 40..<65 at 100 rows/s forward
/// ```
public struct PreloadTracker: Sendable {
    private var planner: PreloadPlanner
    private var lastOffset: Double?
    private var direction = ScrollDirection.forward

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

    /// The viewport's top is at `offset` at `time` (nanoseconds of a monotonic clock, such as
    /// `DispatchTime.now().uptimeNanoseconds` or a `LaneClock`'s `now`). Returns the rows to preload now. An update
    /// that does not move keeps the last answer.
    ///
    /// ```swift
    /// let extent = tracker.update(offset: 120, at: clock.now, rowHeight: 44, viewportHeight: 880)
    /// ```
    public mutating func update(offset: Double, at time: UInt64, rowHeight: Double, viewportHeight: Double)
        -> PreloadExtent
    {
        if let lastOffset {
            if offset > lastOffset { direction = .forward } else if offset < lastOffset { direction = .backward }
        }
        lastOffset = offset
        let span = planner.moved(to: offset, at: time, rowHeight: rowHeight, viewportHeight: viewportHeight)
        return PreloadExtent(ahead: span.ahead, behind: span.behind, direction: direction)
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

    /// An extent of `ahead` rows in `direction` and `behind` rows the other way.
    ///
    /// ```swift
    /// let none = PreloadExtent(ahead: 0, behind: 0, direction: .forward)
    /// ```
    public init(ahead: Int, behind: Int, direction: ScrollDirection) {
        self.ahead = max(0, ahead)
        self.behind = max(0, behind)
        self.direction = direction
    }

    /// Whether nothing beyond the visible rows is worth loading.
    public var isEmpty: Bool { ahead == 0 && behind == 0 }

    /// The visible rows widened by the extent, within `0..<rowCount`.
    ///
    /// ```swift
    /// PreloadExtent(ahead: 5, behind: 1, direction: .forward).window(around: 10..<20, rowCount: 22)   // 9..<22
    /// ```
    public func window(around visible: Range<Int>, rowCount: Int) -> Range<Int> {
        let (before, after) = direction == .forward ? (behind, ahead) : (ahead, behind)
        let lower = max(0, visible.lowerBound - before)
        let upper = min(max(0, rowCount), visible.upperBound + after)
        return lower..<max(lower, upper)
    }
}
