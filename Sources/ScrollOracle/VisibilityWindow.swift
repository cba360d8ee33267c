/// One stretch of time a row was on screen, in seconds on any clock.
public struct VisibilityWindow: Sendable, Equatable {
    public var row: Int
    public var start: Double
    /// When it left the screen; `.infinity` when it was still on screen at the end.
    public var end: Double
    /// Whether the window is counted (rows of the first layout are not: both Lanes and the oracle start cold).
    public var counted: Bool

    public init(row: Int, start: Double, end: Double, counted: Bool) {
        self.row = row
        self.start = start
        self.end = end
        self.counted = counted
    }

    /// The windows a scroll produced, from the rows on screen at each frame (in time order). A row on screen in
    /// consecutive frames is one window; it ends at the first frame without it.
    ///
    /// ```swift
    /// let windows = VisibilityWindow.windows(frames: [(0, 0..<20, false), (0.016, 1..<21, true)])
    /// ```
    public static func windows(frames: [(time: Double, rows: Range<Int>, counted: Bool)]) -> [VisibilityWindow] {
        var open: [Int: (start: Double, counted: Bool)] = [:]
        var closed: [VisibilityWindow] = []
        var previous: Range<Int> = 0..<0
        for frame in frames {
            for row in previous where !frame.rows.contains(row) {
                if let window = open.removeValue(forKey: row) {
                    closed.append(VisibilityWindow(row: row, start: window.start, end: frame.time, counted: window.counted))
                }
            }
            for row in frame.rows where open[row] == nil { open[row] = (frame.time, frame.counted) }
            previous = frame.rows
        }
        for (row, window) in open {
            closed.append(VisibilityWindow(row: row, start: window.start, end: .infinity, counted: window.counted))
        }
        return closed.sorted { ($0.start, $0.row) < ($1.start, $1.row) }
    }
}
