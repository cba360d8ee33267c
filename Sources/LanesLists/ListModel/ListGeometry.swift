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
}

extension ListGeometry {
    /// The rows `span` preloads around `visible` when the list moves in `direction`: a window on each side, or, for a
    /// cost-aware span that skips rows too close to be ready, the rows after the skip (keeping `old`'s rows still
    /// ahead, see ``skippingRows(ahead:visible:direction:keeping:)``).
    func preloadRows(
        for span: PreloadSpan, visible: Range<Int>, direction: ScrollDirection, keeping old: PreloadRows
    ) -> PreloadRows {
        if span.skip > 0 { return skippingRows(ahead: span, visible: visible, direction: direction, keeping: old) }
        let extent = PreloadExtent(ahead: span.ahead, behind: span.behind, direction: direction)
        return PreloadRows(window: extent.window(around: visible, rowCount: rowCount), visible: visible)
    }

    /// The preload rows of a cost-aware span that skips the rows too close to be ready: `span.ahead` rows after the
    /// first `span.skip` past `visible` in `direction`. Rows of `old` still ahead of the screen stay (their work may
    /// have started and they are about to appear: skipping is for rows not started yet); while the new rows lie
    /// wholly beyond them, the old rows are kept as they are until the screen reaches them.
    func skippingRows(
        ahead span: PreloadSpan, visible: Range<Int>, direction: ScrollDirection, keeping old: PreloadRows
    ) -> PreloadRows {
        guard !visible.isEmpty else { return .empty }
        if direction == .forward {
            let lower = min(rowCount, visible.upperBound + span.skip)
            let upper = min(rowCount, lower + span.ahead)
            var (start, end) = (lower, upper)
            if !old.below.isEmpty, old.below.upperBound > visible.upperBound {
                start = max(visible.upperBound, min(lower, old.below.lowerBound))
                if lower > old.below.upperBound { end = old.below.upperBound }
            }
            return PreloadRows(above: 0..<0, below: start..<max(start, end))
        }
        let upper = max(0, visible.lowerBound - span.skip)
        let lower = max(0, upper - span.ahead)
        var (start, end) = (lower, upper)
        if !old.above.isEmpty, old.above.lowerBound < visible.lowerBound {
            end = min(visible.lowerBound, max(upper, old.above.upperBound))
            if upper < old.above.lowerBound { start = old.above.lowerBound }
        }
        return PreloadRows(above: start..<max(start, end), below: 0..<0)
    }
}
