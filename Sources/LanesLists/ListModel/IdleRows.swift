import Lanes

/// The rows to work on while a list is at rest, nearest the screen first: one past the screen in the way the list
/// last moved, then one before it, and so on outward, each side until it runs out. A ``PreloadTracker`` answers them
/// (``PreloadTracker/idleRows(around:rowCount:at:after:)``) once the list has been still for a while.
///
/// At rest the adaptive preload loads nothing: a prefetched image nobody scrolls to is thrown away. Work whose result
/// outlives the screen — a thumbnail written to a disk cache, an index entry — is not wasted, so an app does it while
/// the user looks, at background priority, and withdraws it the moment the list moves.
///
/// ```swift
/// let idle = IdleRows(around: 40..<60, rowCount: 100, direction: .forward)
/// Array(idle.prefix(4))   // [60, 39, 61, 38]
/// ```
public struct IdleRows: Sequence, Sendable, Equatable {
    /// The rows on screen (never answered).
    public let visible: Range<Int>
    /// Rows in the list.
    public let rowCount: Int
    /// Which side comes first: past the screen when the list last moved forward, before it when backward.
    public let direction: ScrollDirection

    /// The rows outward from `visible` in `0..<rowCount`, the side `direction` points to first.
    ///
    /// ```swift
    /// Array(IdleRows(around: 0..<10, rowCount: 12, direction: .backward))   // [10, 11]: nothing above
    /// ```
    public init(around visible: Range<Int>, rowCount: Int, direction: ScrollDirection) {
        let rowCount = Swift.max(0, rowCount)
        self.visible = Swift.min(visible.lowerBound, rowCount)..<Swift.min(visible.upperBound, rowCount)
        self.rowCount = rowCount
        self.direction = direction
    }

    /// Walks outward from the screen.
    public struct Iterator: IteratorProtocol, Sendable {
        private var below: Int
        private var above: Int
        private let rowCount: Int
        private var belowTurn: Bool

        init(_ rows: IdleRows) {
            below = rows.visible.upperBound
            above = rows.visible.lowerBound - 1
            rowCount = rows.rowCount
            belowTurn = rows.direction == .forward
        }

        public mutating func next() -> Int? {
            let canBelow = below < rowCount, canAbove = above >= 0
            guard canBelow || canAbove else { return nil }
            let takeBelow = canBelow && (belowTurn || !canAbove)
            belowTurn.toggle()
            if takeBelow {
                below += 1
                return below - 1
            }
            above -= 1
            return above + 1
        }
    }

    public func makeIterator() -> Iterator { Iterator(self) }
}

extension PreloadTracker {
    /// The rows to work on at rest (``IdleRows``) once the list has not moved for `delay` seconds by `time` (the
    /// clock ``update(offset:at:rowHeight:viewportHeight:)`` is fed); nil while it moves or before that. Items
    /// started from them belong at `WorkPriority.background`, withdrawn when this turns nil again: the user moved.
    ///
    /// ```swift
    /// if let idle = tracker.idleRows(around: 40..<60, rowCount: 10_000, at: clock.now) {
    ///     charts.prefetch(idle.prefix(4).map { symbols[$0 % symbols.count] }, priority: .background)
    /// }
    /// ```
    public func idleRows(around visible: Range<Int>, rowCount: Int, at time: UInt64, after delay: Double = 0.5)
        -> IdleRows?
    {
        guard let lastMove, time >= lastMove,
              Double(time - lastMove) / 1e9 >= delay, !visible.isEmpty
        else { return nil }
        return IdleRows(around: visible, rowCount: rowCount, direction: direction)
    }
}
