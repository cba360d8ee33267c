/// What a ``ListModel`` tells its observers as rows move through the viewport and the preload range.
///
/// ```swift
/// list.observe { event in
///     switch event {
///     case .willDisplay(let row, let cell): cell.configure(row)
///     case .didEndDisplay(_, let cell): cell.content.clear()
///     case .enterPreload(let row): loader.prefetch([symbols[row]])
///     case .leavePreload(let row): loader.cancelPrefetch([symbols[row]])
///     }
/// }
/// ```
public enum ListEvent<Cell> {
    /// `row` is about to be on screen, shown by `cell` (taken from the reuse pool, or new).
    case willDisplay(row: Int, cell: Cell)
    /// `row` left the screen; `cell` goes back to the reuse pool and may show another row next.
    case didEndDisplay(row: Int, cell: Cell)
    /// `row` is off screen but near it: load its content ahead of time.
    case enterPreload(row: Int)
    /// `row` is no longer in the preload range (it became visible, or moved away).
    case leavePreload(row: Int)

    /// The row the event is about.
    public var row: Int {
        switch self {
        case .willDisplay(let row, _), .didEndDisplay(let row, _), .enterPreload(let row), .leavePreload(let row): row
        }
    }
}

extension ListEvent: Equatable where Cell: Equatable {}
extension ListEvent: CustomStringConvertible {
    /// A short form for logs and tests: "display 3", "end 3", "preload 3", "unload 3".
    public var description: String {
        switch self {
        case .willDisplay(let row, _): "display \(row)"
        case .didEndDisplay(let row, _): "end \(row)"
        case .enterPreload(let row): "preload \(row)"
        case .leavePreload(let row): "unload \(row)"
        }
    }
}

/// Which way the list last scrolled.
///
/// ```swift
/// let ahead = list.direction == .forward ? list.visibleRows.upperBound : list.visibleRows.lowerBound - 1
/// ```
public enum ScrollDirection: Sendable, Equatable {
    /// Towards higher rows (content moves up).
    case forward
    /// Towards lower rows.
    case backward
}
