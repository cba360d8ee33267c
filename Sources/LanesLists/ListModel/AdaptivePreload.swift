import Foundation
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
/// **Knowing the cost.** Given what a row costs (a ``CostEstimate``, which ``ListModel/connect(to:quick:key:binding:)``
/// takes from the loader, and the threads prefetch may use), the lead is planned instead of fixed: the model predicts
/// the path from the speed and its deceleration (a fling slows exponentially), gives each row ahead its deadline (the
/// moment it will appear, and the moment it will have left), and preloads, in deadline order, the rows the threads
/// can finish before they leave the screen: up to ``reach`` seconds ahead for a fling that slows down, and for a
/// steady scroll only the rows the threads need to start now (two renders and a frame of travel: ``lead`` is for the
/// list that does not know its cost).
/// Rows too close to be ready in time are skipped rather than started, so a fast fling's threads work on the rows
/// where it will slow down; ``maxSpeed`` and ``maxAhead`` then do not apply.
///
/// ```swift
/// var preload = AdaptivePreload()
/// preload.lead = 0.2            // seconds of travel preloaded ahead
/// list.setPreload(.adaptive(preload))
/// ```
public struct AdaptivePreload: Sendable, Equatable {
    /// Seconds of travel, at the current speed, preloaded ahead of the viewport when the list does not know what a
    /// row costs (with a known cost the lead is planned from it instead).
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
    /// With a known cost: the furthest ahead, in seconds of predicted travel, that rows are preloaded while a fling
    /// slows down.
    public var reach: Double = 0.5

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

/// What a row costs the preload: `seconds` of work to get one of its `itemsPerRow` items ready (a loader's running
/// estimate) on each of `threads` threads.
struct PreloadCost: Equatable {
    var seconds: Double
    var threads: Int
    /// All the threads of the loader's queue: the plan takes them when rows on screen cannot be ready anyway (the
    /// list moves faster than they render), since nothing visible is left for the threads kept from prefetch.
    var allThreads: Int
    /// Loads per row: 1 for a list, the columns of a grid whose rows are its lines.
    var itemsPerRow = 1

    /// Seconds until the first `rows` rows' items are ready, started together on `threads` threads.
    func ready(rows: Int, threads: Int) -> Double {
        seconds * (Double(max(1, itemsPerRow) * rows) / Double(max(1, threads))).rounded(.up)
    }
}

/// Where a scroll is heading: its speed now and the time constant of its exponential slow-down (a fling's), estimated
/// from the run's offsets over the window (the speed over its first half against its second half).
struct ScrollPath {
    /// Rows per second now, in the direction of travel.
    private(set) var speed = 0.0
    /// Seconds for the speed to fall by e (infinity while the scroll does not slow down).
    private(set) var decay = Double.infinity
    /// Whether the scroll is speeding up (a flick starting): where it will go is not known yet.
    private(set) var accelerating = false

    init(samples: [(time: UInt64, offset: Double)], now: UInt64, rowHeight: Double) {
        guard samples.count >= 2, rowHeight > 0 else { return }
        /// Rows per second between two samples, and the time between them (seconds).
        func rate(_ a: Int, _ b: Int) -> (speed: Double, middle: Double)? {
            let (from, to) = (samples[a], samples[b])
            guard to.time > from.time else { return nil }
            let speed = abs(to.offset - from.offset) / rowHeight / (Double(to.time - from.time) / 1e9)
            return (speed, (Double(from.time) + Double(to.time)) / 2e9)
        }
        let last = samples.count - 1
        // The speed now: over the last two intervals (one if that is all there is), so a flick is seen at once.
        guard let recent = rate(max(0, last - 2), last) else { return }
        speed = recent.speed
        var middle = recent.middle
        // A slow-down: the two intervals before against the last two.
        // Under 5% slower is noise in the offsets' timing, and a decay over two seconds is a steady scroll.
        if last >= 4, let earlier = rate(last - 4, last - 2), earlier.speed > 1.05 * recent.speed, recent.speed > 0,
            recent.middle > earlier.middle,
            case let fitted = (recent.middle - earlier.middle) / log(earlier.speed / recent.speed), fitted < 2
        {
            decay = fitted
        } else {
            middle = Double(samples[last].time) / 1e9
            if let earlier = rate(max(0, last - 4), max(0, last - 2)), recent.speed > 1.25 * earlier.speed {
                accelerating = true
            }
        }
        if decay.isFinite { speed *= exp(-max(0, Double(now) / 1e9 - middle) / decay) }
    }

    /// A path the toolkit predicted: `speed` rows per second now, slowing down with time constant `decay`.
    init(speed: Double, decay: Double) {
        self.speed = speed
        self.decay = decay
    }

    /// Rows the scroll travels in the next `seconds` (the inverse of ``seconds(toTravel:)``).
    func rows(within seconds: Double) -> Double {
        guard seconds > 0, speed > 0 else { return 0 }
        guard decay.isFinite else { return speed * seconds }
        return speed * decay * (1 - exp(-seconds / decay))
    }

    /// Seconds until the scroll has travelled `rows` more rows (infinity if it stops before).
    func seconds(toTravel rows: Double) -> Double {
        guard rows > 0 else { return 0 }
        guard speed > 0 else { return .infinity }
        guard decay.isFinite else { return rows / speed }
        let reach = speed * decay
        return rows >= reach ? .infinity : -decay * log(1 - rows / reach)
    }
}
