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
