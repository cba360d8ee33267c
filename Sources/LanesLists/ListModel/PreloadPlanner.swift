import Lanes

/// How a ``ListModel`` sizes its preload range when it follows the user (``ListPreload/adaptive(_:)``, the default).
///
/// The model estimates the scroll speed from its own offset updates over the last ``window`` seconds and preloads
/// rows ahead only while the motion is steady in one direction:
///
/// - **jitter, a start or a change of direction**: nothing speculative until the list has moved one way for ``settle``
///   seconds (rows preloaded for the old direction are withdrawn at once);
/// - **a scroll or a fling**: ``lead`` seconds of travel ahead in the scroll direction (so a faster fling leans
///   further ahead, up to ``maxAhead`` screens), nothing behind;
/// - **a jump** (one update moving more than ``jumpScreens`` screens): everything speculative is dropped at once, and
///   the estimate starts again.
///
/// ```swift
/// var preload = AdaptivePreload()
/// preload.lead = 0.2            // seconds of travel preloaded ahead
/// list.setPreload(.adaptive(preload))
/// ```
public struct AdaptivePreload: Sendable, Equatable {
    /// Seconds of travel, at the current speed, preloaded ahead of the viewport.
    public var lead: Double = 0.05
    /// The most screens preloaded ahead, however fast the list moves.
    public var maxAhead: Double = 1
    /// Seconds of motion in one direction (after the list starts moving, turns, jumps or pauses for longer than
    /// ``window``) before anything is preloaded.
    public var settle: Double = 0.1
    /// Seconds of offset updates the speed is averaged over.
    public var window: Double = 0.1
    /// An update moving further than this many screens is a jump, not a scroll.
    public var jumpScreens: Double = 3
    /// Above this many screens per second rows fly past faster than any cell could show them: nothing is preloaded
    /// until the list slows down. `.infinity` preloads at any speed.
    public var maxSpeed: Double = 20

    /// The defaults: three frames (0.05 s) of travel ahead (at most one screen), after a tenth of a second of steady
    /// motion, and nothing while the list moves faster than 20 screens a second. Rows preloaded ahead when the user
    /// stops are wasted, so the lead is short: enough for work that takes a few frames.
    ///
    /// ```swift
    /// let list = ListModel(rowCount: 500, rowHeight: 1, viewportHeight: 24, preload: .adaptive(AdaptivePreload())) {
    ///     TerminalRow()
    /// }
    /// ```
    public init() {}
}

/// Rows to preload on each side of the visible rows, ahead being the scroll direction.
struct PreloadSpan: Equatable {
    var ahead: Int
    var behind: Int

    static let none = PreloadSpan(ahead: 0, behind: 0)
}

/// The adaptive preload's state: the offsets of the current run (motion one way, since the list started moving, turned
/// or jumped) over the last `window` seconds, and when the run started. A pure value fed with times, so tests drive it
/// with a virtual clock.
struct PreloadPlanner {
    var config: AdaptivePreload
    private var samples: [(time: UInt64, offset: Double)] = []
    /// +1 forward, -1 backward, 0 before any motion or after a jump.
    private var sign = 0
    /// When the current run's first move happened.
    private var runStart: UInt64 = 0
    private(set) var span = PreloadSpan.none
    /// The last speed estimate, in offset units per second (signed; 0 while settling).
    private(set) var speed = 0.0

    init(config: AdaptivePreload) { self.config = config }

    /// The list moved to `offset` at `time` (ns): returns the rows to preload. An update that does not move keeps the
    /// current span.
    mutating func moved(to offset: Double, at time: UInt64, rowHeight: Double, viewportHeight: Double) -> PreloadSpan {
        guard let last = samples.last else {
            samples = [(time, offset)]
            return span
        }
        let delta = offset - last.offset
        guard delta != 0, rowHeight > 0, viewportHeight > 0 else { return span }
        let now = max(time, last.time)
        let direction = delta > 0 ? 1 : -1
        if abs(delta) > config.jumpScreens * viewportHeight {
            return restart(at: now, offset: offset, sign: 0)
        }
        if direction != sign || now - last.time > nanoseconds(config.window) {
            // The list started moving, turned, or moved again after a pause: a new run.
            return restart(at: now, offset: offset, sign: direction)
        }
        samples.append((now, offset))
        let horizon = now - min(now, nanoseconds(config.window))
        while samples.count > 2, samples[1].time <= horizon { samples.removeFirst() }
        let first = samples[0]
        guard now - runStart >= nanoseconds(config.settle), now > first.time else {
            speed = 0
            span = .none
            return span
        }
        speed = (offset - first.offset) / (Double(now - first.time) / 1e9)
        guard abs(speed) / viewportHeight <= config.maxSpeed else {
            span = .none
            return span
        }
        // A hair under the exact product, so 40 rows/s for a quarter second is 10 rows, not 11.
        let maxRows = (config.maxAhead * viewportHeight / rowHeight - 1e-9).rounded(.up)
        let rows = min(maxRows, (abs(speed) * config.lead / rowHeight - 1e-9).rounded(.up))
        span = PreloadSpan(ahead: Int(max(0, rows)), behind: 0)
        return span
    }

    /// Starts a new run at `offset` (a jump starts none: sign 0): nothing speculative for `settle` seconds.
    private mutating func restart(at time: UInt64, offset: Double, sign: Int) -> PreloadSpan {
        samples = [(time, offset)]
        self.sign = sign
        runStart = time
        speed = 0
        span = .none
        return span
    }

    private func nanoseconds(_ seconds: Double) -> UInt64 {
        seconds.isFinite && seconds > 0 ? UInt64(seconds * 1e9) : 0
    }
}
