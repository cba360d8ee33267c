/// The rows worth preloading beyond the visible ones: up to two ranges, one on each side of the screen (a
/// ``PreloadTracker``'s answer for a list whose toolkit owns the geometry).
///
/// ```swift
/// let rows = PreloadRows(above: 0..<0, below: 60..<66)
/// rows.contains(62)      // true
/// rows.contains(59)      // false: on screen, or too close to be ready before it leaves
/// ```
public struct PreloadRows: Sendable, Equatable {
    /// Rows before the visible ones.
    public var above: Range<Int>
    /// Rows after the visible ones.
    public var below: Range<Int>

    /// No rows.
    ///
    /// ```swift
    /// let nothing = PreloadRows.empty
    /// ```
    public static let empty = PreloadRows(above: 0..<0, below: 0..<0)

    /// The rows `above` and `below` the screen.
    ///
    /// ```swift
    /// let rows = PreloadRows(above: 35..<40, below: 0..<0)   // scrolling back: five rows above the screen
    /// ```
    public init(above: Range<Int>, below: Range<Int>) {
        self.above = above
        self.below = below
    }

    /// The rows of `window` outside `visible` (a window that contains the visible rows).
    init(window: Range<Int>, visible: Range<Int>) {
        if visible.isEmpty {
            self = .empty
        } else {
            above = window.lowerBound..<max(window.lowerBound, visible.lowerBound)
            below = min(window.upperBound, visible.upperBound)..<window.upperBound
        }
    }

    /// Whether `row` is one of the rows.
    ///
    /// ```swift
    /// let preload = tracker.preloadRows(around: 40..<60, rowCount: 10_000)
    /// if preload.contains(61) { charts.prefetch([symbol], priority: tracker.preloadPriority) }
    /// ```
    public func contains(_ row: Int) -> Bool { above.contains(row) || below.contains(row) }

    /// Whether there are no rows.
    ///
    /// ```swift
    /// if tracker.preloadRows(around: 40..<60, rowCount: 10_000).isEmpty { print("nothing to preload") }
    /// ```
    public var isEmpty: Bool { above.isEmpty && below.isEmpty }

    /// Every row, in the order of travel for `direction` (ascending when forward).
    func rows(_ direction: ScrollDirection) -> [Int] {
        let ascending = Array(above) + Array(below)
        return direction == .forward ? ascending : ascending.reversed()
    }
}
