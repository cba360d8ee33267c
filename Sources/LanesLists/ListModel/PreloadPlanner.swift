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
/// **Knowing the cost.** Given what a row costs (a ``CostEstimate``, which ``ListModel/connect(to:key:binding:)``
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

/// Rows to preload on each side of the visible rows, ahead being the scroll direction: `ahead` rows after the first
/// `skip` rows past the screen (rows too close to be ready before they leave it).
struct PreloadSpan: Equatable {
    var ahead: Int
    var behind: Int
    var skip = 0
    /// Whether the list moves faster than rows on screen can be ready: the preload may take every thread.
    var outruns = false

    static let none = PreloadSpan(ahead: 0, behind: 0)
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
    /// The path predicted at the last update that planned against a cost (nil otherwise).
    private var path: ScrollPath?

    init(config: AdaptivePreload) { self.config = config }

    /// The list moved to `offset` at `time` (ns): returns the rows to preload (planned against `cost` when it is
    /// known). An update that does not move keeps the current span.
    mutating func moved(
        to offset: Double, at time: UInt64, rowHeight: Double, viewportHeight: Double, cost: PreloadCost? = nil
    ) -> PreloadSpan {
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
        if let cost, cost.seconds > 0, cost.threads > 0 {
            path = ScrollPath(samples: samples, now: now, rowHeight: rowHeight)
            span = planned(offset: offset, at: now, rowHeight: rowHeight, viewportHeight: viewportHeight, cost: cost)
            return span
        }
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

    /// The cost-aware span: the path predicted from the speed and its decay, each row ahead timed (when it appears,
    /// when it has left), and rows taken in that order while the threads can have them ready before they leave.
    private func planned(
        offset: Double, at now: UInt64, rowHeight: Double, viewportHeight: Double, cost: PreloadCost
    ) -> PreloadSpan {
        guard let path, path.speed > 0, !path.accelerating else { return .none }
        let screen = viewportHeight / rowHeight
        // Rows measured from the top of the viewport, in the direction of travel.
        let top = sign >= 0 ? offset / rowHeight : -(offset + viewportHeight) / rowHeight
        let firstAhead = (top + screen - 1e-9).rounded(.up)   // the first row past the screen
        // A fling that slows down: as far as it will go, up to `reach`. A steady scroll: only what the threads need
        // to have the next rows ready (two rounds of work and a frame), since rows further ahead are wasted if the
        // user stops or turns: a fixed `lead` on top (three frames by default) wasted a row or two at every stop.
        let reach = config.reach.isFinite ? max(0, config.reach) : 10
        let horizon = path.decay.isFinite ? reach : min(reach, 2 * cost.seconds + Self.frame)
        // When each row ahead would leave the screen, for the rows that appear within the horizon.
        var leaves: [Double] = []
        while leaves.count < 10_000 {
            let row = firstAhead + Double(leaves.count)
            guard path.seconds(toTravel: row - (top + screen)) <= horizon else { break }
            leaves.append(Self.shownUntil(path.seconds(toTravel: row + 1 - top)))
        }
        // The k-th row started is ready after k / threads rounds of work, and lands a frame later at worst. When the
        // first row past the screen cannot make it, neither can the rows on it: the plan takes every thread.
        let allThreads = max(cost.threads, cost.allThreads)
        let outruns = leaves.first.map { cost.ready(rows: 1, threads: allThreads) + Self.deliveryMargin > $0 } ?? false
        let threads = outruns ? allThreads : cost.threads
        func ready(_ k: Int) -> Double { cost.ready(rows: k + 1, threads: threads) + Self.deliveryMargin }
        func feasible(from first: Int) -> Int {
            var k = 0
            while first + k < leaves.count, ready(k) <= leaves[first + k] { k += 1 }
            return k
        }
        // The run of rows, in deadline order, that the threads can have ready before each leaves: starting at the
        // screen when they keep up; further out (skipping rows too close to make it) when the list moves faster
        // than they render.
        var best = (skip: 0, rows: feasible(from: 0))
        if best.rows < leaves.count {
            let step = max(1, leaves.count / 64)
            for first in stride(from: step, to: leaves.count, by: step) {
                let rows = feasible(from: first)
                if rows > best.rows { best = (first, rows) }
            }
        }
        return PreloadSpan(ahead: best.rows, behind: 0, skip: best.rows == 0 ? 0 : best.skip, outruns: outruns)
    }

    /// A result needs about a millisecond to land on the main queue after its work ends.
    static let deliveryMargin = 0.001
    /// Updates come once a frame: a row that leaves the screen at time t is still shown until the next frame.
    static let frame = 1.0 / 60

    /// The frame at which a row that leaves the screen `seconds` from now stops being shown.
    static func shownUntil(_ seconds: Double) -> Double {
        seconds.isFinite ? max(1, (seconds / frame - 1e-9).rounded(.up)) * frame : seconds
    }

    /// Whether work for visible `row`, started now and taking `seconds`, can be ready before the row leaves the
    /// screen on the path predicted at the last update (true when there is no prediction: at rest, settling, or
    /// without a cost).
    func canBeReady(row: Int, offset: Double, rowHeight: Double, seconds: Double) -> Bool {
        guard let path, path.speed > 0, sign != 0, rowHeight > 0 else { return true }
        let top = sign > 0 ? offset / rowHeight : -offset / rowHeight
        // The row's trailing edge in the direction of travel, measured like `top`.
        let edge = sign > 0 ? Double(row + 1) : -Double(row)
        return seconds + Self.deliveryMargin <= Self.shownUntil(path.seconds(toTravel: edge - top))
    }

    /// Starts a new run at `offset` (a jump starts none: sign 0): nothing speculative for `settle` seconds.
    private mutating func restart(at time: UInt64, offset: Double, sign: Int) -> PreloadSpan {
        samples = [(time, offset)]
        self.sign = sign
        runStart = time
        speed = 0
        path = nil
        span = .none
        return span
    }

    private func nanoseconds(_ seconds: Double) -> UInt64 {
        seconds.isFinite && seconds > 0 ? UInt64(seconds * 1e9) : 0
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

    /// Seconds until the scroll has travelled `rows` more rows (infinity if it stops before).
    func seconds(toTravel rows: Double) -> Double {
        guard rows > 0 else { return 0 }
        guard speed > 0 else { return .infinity }
        guard decay.isFinite else { return rows / speed }
        let reach = speed * decay
        return rows >= reach ? .infinity : -decay * log(1 - rows / reach)
    }
}
