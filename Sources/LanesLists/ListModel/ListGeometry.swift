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

    /// How many rows `screens` screens hold, rounded up (0 for a negative or NaN count; at most every row).
    func rows(screens: Double) -> Int {
        guard screens > 0, rowHeight > 0, viewportHeight > 0 else { return 0 }
        return Int(max(0, min(Double(rowCount), (screens * (viewportHeight / rowHeight)).rounded(.up))))
    }
}
