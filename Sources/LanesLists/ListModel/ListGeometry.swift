/// The arithmetic of a list's viewport: which rows are visible and which are in the preload range, for a scroll
/// offset. Pure values, so the model's diffing is easy to test.
struct ListGeometry: Equatable {
    var rowCount: Int
    var rowHeight: Double
    var viewportHeight: Double

    /// The largest scroll offset (the last row at the bottom of the viewport).
    var maxOffset: Double { max(0, Double(rowCount) * rowHeight - viewportHeight) }

    func clamp(_ offset: Double) -> Double {
        offset.isFinite ? min(max(0, offset), maxOffset) : 0
    }

    /// Rows that intersect the viewport at `offset`.
    func visibleRows(at offset: Double) -> Range<Int> {
        guard rowCount > 0, rowHeight > 0, viewportHeight > 0 else { return 0..<0 }
        let first = Int((offset / rowHeight).rounded(.down))
        let end = Int(((offset + viewportHeight) / rowHeight).rounded(.up))
        let lower = min(max(0, first), rowCount)
        return lower..<min(max(lower, end), rowCount)
    }

    /// How many rows a screen holds.
    var screenRows: Double { rowHeight > 0 ? viewportHeight / rowHeight : 0 }

    /// How many rows `screens` screens hold, rounded up (0 for a negative or NaN count; at most every row).
    func rows(screens: Double) -> Int {
        guard screens > 0, screenRows > 0 else { return 0 }
        return Int(max(0, min(Double(rowCount), (screens * screenRows).rounded(.up))))
    }

    /// The preload window around `visible` (visible rows included): `ahead` rows in the scroll direction, `behind`
    /// rows the other way.
    func preloadWindow(around visible: Range<Int>, direction: ScrollDirection, ahead: Int, behind: Int) -> Range<Int> {
        guard !visible.isEmpty else { return visible }
        let (before, after) = direction == .forward ? (behind, ahead) : (ahead, behind)
        return max(0, visible.lowerBound - before)..<min(rowCount, visible.upperBound + after)
    }
}

/// The rows of a preload window that are not visible: up to two ranges, one on each side.
struct PreloadRows: Equatable {
    var above: Range<Int>
    var below: Range<Int>

    static let empty = PreloadRows(above: 0..<0, below: 0..<0)

    init(above: Range<Int>, below: Range<Int>) {
        self.above = above
        self.below = below
    }

    init(window: Range<Int>, visible: Range<Int>) {
        if visible.isEmpty {
            self = .empty
        } else {
            above = window.lowerBound..<max(window.lowerBound, visible.lowerBound)
            below = min(window.upperBound, visible.upperBound)..<window.upperBound
        }
    }

    func contains(_ row: Int) -> Bool { above.contains(row) || below.contains(row) }

    /// Every row, in the order of travel for `direction` (ascending when forward).
    func rows(_ direction: ScrollDirection) -> [Int] {
        let ascending = Array(above) + Array(below)
        return direction == .forward ? ascending : ascending.reversed()
    }
}
