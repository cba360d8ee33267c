/// Which rows past the screen a ``ListModel`` preloads (reports as ``ListEvent/enterPreload(row:)``, which
/// ``ListModel/connect(to:quick:key:binding:)`` turns into prefetch work).
///
/// The default, ``adaptive(_:)``, follows the user: nothing speculative at rest, while the user jitters or turns, or
/// after a jump, and a lead ahead that grows with a steady scroll's speed. A ``fixed(ahead:behind:)`` preload keeps
/// the same number of screens on each side whatever the list does; it suits lists that move a page at a time (a
/// terminal list paged with the keyboard), where the next page is the likely next step.
///
/// ```swift
/// let list = ListModel(rowCount: 10_000, rowHeight: 44, viewportHeight: 880) { ChartCell() }   // adaptive
/// let paged = ListModel(rowCount: 500, rowHeight: 1, viewportHeight: 24, preload: .fixed(ahead: 1, behind: 0.25)) {
///     TerminalRow()
/// }
/// let plain = ListModel(rowCount: 500, rowHeight: 1, viewportHeight: 24, preload: .off) { TerminalRow() }
/// ```
public enum ListPreload: Sendable, Equatable {
    /// Rows ahead in proportion to a steady scroll's speed, nothing otherwise (see ``AdaptivePreload``). The default.
    ///
    /// ```swift
    /// var settings = AdaptivePreload()
    /// settings.lead = 0.1                       // a tenth of a second of travel ahead
    /// list.setPreload(.adaptive(settings))
    /// ```
    case adaptive(AdaptivePreload = AdaptivePreload())

    /// `ahead` screens past the viewport in the scroll direction and `behind` screens the other way, always
    /// (a negative or NaN count is 0; `.infinity` reaches the end of the list).
    ///
    /// ```swift
    /// list.setPreload(.fixed(ahead: 1, behind: 0.25))   // the next screen, and a quarter of the last one
    /// ```
    case fixed(ahead: Double, behind: Double)

    /// No preload: only the visible rows are reported.
    ///
    /// ```swift
    /// list.setPreload(.off)
    /// ```
    public static let off = ListPreload.fixed(ahead: 0, behind: 0)
}

extension ListPreload {
    /// The adaptive preload's settings, or nil for a fixed preload.
    var adaptiveSettings: AdaptivePreload? {
        if case .adaptive(let settings) = self { settings } else { nil }
    }
}
