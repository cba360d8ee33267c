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

    /// The rows `extent` preloads around `visible`, within `0..<rowCount`: a window on each side, or, for a cost-aware
    /// extent that skips rows too close to be ready, `extent.ahead` rows after the first `extent.skip` past `visible`.
    /// Then rows of `old` still ahead of the screen stay (their work may have started and they are about to appear:
    /// skipping is for rows not started yet); while the new rows lie wholly beyond them, the old rows are kept as they
    /// are until the screen reaches them.
    init(_ extent: PreloadExtent, around visible: Range<Int>, rowCount: Int, keeping old: PreloadRows) {
        guard !visible.isEmpty else {
            self = .empty
            return
        }
        guard extent.skip > 0 else {
            let window = extent.window(around: visible, rowCount: rowCount)
            self.init(
                above: window.lowerBound..<max(window.lowerBound, visible.lowerBound),
                below: min(window.upperBound, visible.upperBound)..<window.upperBound)
            return
        }
        if extent.direction == .forward {
            let lower = min(rowCount, visible.upperBound + extent.skip)
            let upper = min(rowCount, lower + extent.ahead)
            var (start, end) = (lower, upper)
            if !old.below.isEmpty, old.below.upperBound > visible.upperBound {
                start = max(visible.upperBound, min(lower, old.below.lowerBound))
                if lower > old.below.upperBound { end = old.below.upperBound }
            }
            self.init(above: 0..<0, below: start..<max(start, end))
            return
        }
        let upper = max(0, visible.lowerBound - extent.skip)
        let lower = max(0, upper - extent.ahead)
        var (start, end) = (lower, upper)
        if !old.above.isEmpty, old.above.lowerBound < visible.lowerBound {
            end = min(visible.lowerBound, max(upper, old.above.upperBound))
            if upper < old.above.lowerBound { start = old.above.lowerBound }
        }
        self.init(above: start..<max(start, end), below: 0..<0)
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
