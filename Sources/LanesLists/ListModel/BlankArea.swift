/// Blank area, as FlashList's `useBlankAreaTracker` and React Native's `FillRateHelper` report it: fed each frame's
/// count of visible rows and of those showing no content yet, it keeps the share of visible row-frames that were
/// blank (cumulative), the worst frame's share, and how long any row was blank and how long more than half were.
/// Each frame lasts until the next one; the last one lasts what ``figures(lastFrameLasting:)`` is told.
///
/// A row counts as blank until it shows some content: a quick rendering (``ContentBinding/isShowingQuick``) is
/// content, a placeholder is not.
///
/// ```swift
/// var blank = BlankArea()
/// blank.frame(at: 0.000, blank: 3, visible: 12)   // once a frame, the frame clock's time in seconds
/// blank.frame(at: 0.016, blank: 0, visible: 12)
/// let figures = blank.figures(lastFrameLasting: 0.016)
/// print(figures.percent, figures.maxPercent, figures.anyBlankMilliseconds)   // 12.5 25.0 16.0
/// ```
public struct BlankArea: Sendable {
    /// What the tracker has counted so far.
    public struct Figures: Sendable, Equatable {
        /// Blank row-frames over visible row-frames, in percent (FlashList's cumulative blank area).
        public var percent: Double
        /// The largest share of blank rows in one frame, in percent (FlashList's maximum blank area).
        public var maxPercent: Double
        /// Milliseconds during which at least one visible row was blank (React Native's `any_blank_ms`).
        public var anyBlankMilliseconds: Double
        /// Milliseconds during which more than half of the visible rows were blank (`mostly_blank_ms`).
        public var mostlyBlankMilliseconds: Double
        /// Frames counted.
        public var frames: Int
    }

    private var blankRowFrames = 0
    private var visibleRowFrames = 0
    private var worst = 0.0
    private var anyBlank = 0.0
    private var mostlyBlank = 0.0
    private var frames = 0
    /// The last frame, whose duration is known when the next one comes.
    private var last: (time: Double, blank: Int, visible: Int)?

    /// An empty tracker.
    ///
    /// ```swift
    /// let tracker = BlankArea()
    /// ```
    public init() {}

    /// Counts a frame drawn at `time` (seconds, any monotonic origin) showing `visible` rows, `blank` of them without
    /// content.
    ///
    /// ```swift
    /// var blank = BlankArea()
    /// blank.frame(at: 1.25, blank: 2, visible: 10)
    /// ```
    public mutating func frame(at time: Double, blank: Int, visible: Int) {
        if let last { account(last, lasting: max(0, time - last.time)) }
        last = (time, max(0, min(blank, visible)), max(0, visible))
        frames += 1
    }

    /// The figures so far, the last frame lasting `interval` seconds (a frame's length).
    ///
    /// ```swift
    /// let blank = BlankArea()
    /// let percent = blank.figures(lastFrameLasting: 1.0 / 60).percent   // 0: nothing counted yet
    /// ```
    public func figures(lastFrameLasting interval: Double) -> Figures {
        var copy = self
        if let last = copy.last {
            copy.account(last, lasting: max(0, interval))
            copy.last = nil
        }
        return Figures(
            percent: copy.visibleRowFrames > 0 ? Double(copy.blankRowFrames) / Double(copy.visibleRowFrames) * 100 : 0,
            maxPercent: copy.worst * 100, anyBlankMilliseconds: copy.anyBlank * 1000,
            mostlyBlankMilliseconds: copy.mostlyBlank * 1000, frames: copy.frames)
    }

    private mutating func account(_ frame: (time: Double, blank: Int, visible: Int), lasting duration: Double) {
        blankRowFrames += frame.blank
        visibleRowFrames += frame.visible
        guard frame.visible > 0 else { return }
        let share = Double(frame.blank) / Double(frame.visible)
        worst = max(worst, share)
        if frame.blank > 0 { anyBlank += duration }
        if share > 0.5 { mostlyBlank += duration }
    }
}
