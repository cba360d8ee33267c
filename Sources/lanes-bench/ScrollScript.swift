import Foundation
import LanesLists
import ScrollOracle

/// The scripted scroll the benchmark plays, in rows (a row is one unit high), as a function of wall time, so a
/// blocked main queue skips rows the way a real finger keeps moving.
enum ScrollMotion {
    /// Hold still until every visible cell shows its own row (at least `min`, at most `max` seconds). The time
    /// until then is the stop's fill time.
    case settle(name: String, min: Double, max: Double)
    /// Scroll at a constant speed.
    case steady(rowsPerSecond: Double, seconds: Double)
    /// A fling: starts at `rowsPerSecond` (negative scrolls back) and decelerates exponentially with time constant
    /// `tau`, until slower than `stopBelow` rows per second.
    case fling(rowsPerSecond: Double, tau: Double, stopBelow: Double)
    /// A fling that a touch catches `after` seconds in: it starts like ``fling(rowsPerSecond:tau:stopBelow:)``, and
    /// the list stops where the finger lands (the path predicted at lift-off went further).
    case caught(rowsPerSecond: Double, tau: Double, after: Double)
    /// Tiny alternating scrolls: one row forward, one row back, once per frame, for `seconds`.
    case jitter(seconds: Double)
    /// Jump straight to `row` (nil: the end of the list).
    case jump(toRow: Int?)
    /// A scroll to a known target, as a toolkit animates a wheel click or a Page Down (``Glide``): the scroller
    /// knows its distance and duration when it starts, and tells the list (a lift-off with a distance-duration
    /// prediction); the next press cuts it short and aims again.
    case glide(Glide)

    /// How long the motion lasts (settles end on a condition instead).
    var seconds: Double {
        switch self {
        case .settle(_, _, let max): max
        case .steady(_, let seconds), .jitter(let seconds): seconds
        case .fling(let velocity, let tau, let stopBelow): tau * log(abs(velocity) / stopBelow)
        case .caught(_, _, let after): after
        case .glide(let glide): glide.lasting
        case .jump: 0
        }
    }

    /// Whether the motion is a stop (the list holds still while it lasts).
    var isSettle: Bool {
        if case .settle = self { return true }
        return false
    }

    /// Rows travelled `t` seconds into the motion (a jitter's offset depends on the frame, not the time).
    func distance(at t: Double) -> Double {
        let t = min(max(0, t), seconds)
        switch self {
        case .settle, .jump, .jitter: return 0
        case .steady(let velocity, _): return velocity * t
        case .fling(let velocity, let tau, _), .caught(let velocity, let tau, _):
            return velocity * tau * (1 - exp(-t / tau))
        case .glide(let glide): return glide.distance(at: t)
        }
    }

    /// For a motion the finger has let go of (a fling), the rows it will travel as predicted when the finger lifts
    /// (the scroller's deceleration model carried to rest: a caught fling's prediction goes past where it stops);
    /// nil for motion driven frame by frame.
    var predictedTravel: Double? {
        switch self {
        case .fling(let velocity, let tau, let stopBelow):
            return velocity * tau * (1 - stopBelow / abs(velocity))
        case .caught(let velocity, let tau, _):
            return velocity * tau
        case .glide(let glide):
            return glide.rows
        case .settle, .steady, .jitter, .jump:
            return nil
        }
    }

    /// What the scroller tells the list when the finger lets go of this motion (nil for motion driven frame by frame).
    var prediction: ScrollPrediction? {
        switch self {
        case .fling(let velocity, let tau, _), .caught(let velocity, let tau, _):
            return ScrollPrediction(velocity: velocity, timeConstant: tau)
        case .glide(let glide):
            return ScrollPrediction(distance: glide.rows, duration: glide.duration)
        case .settle, .steady, .jitter, .jump:
            return nil
        }
    }

}

/// Which scroll the benchmark plays.
enum ScrollScript: String, CaseIterable, Sendable {
    /// Settle, scroll steadily, fling and decelerate, settle, fling back (the reversal), settle, jump to the end,
    /// settle.
    case fling
    /// Tiny alternating scrolls (±1 row every frame) with a short steady scroll between two bursts.
    case jitter
    /// Jumping back and forth between two far rows, every few frames, then once with a settle after each jump.
    case jump
    /// Flings caught by a touch: a fling stopped a quarter of the way in, a slow drag, a second caught fling, then
    /// one left to run to rest.
    case caught
    /// Wheel bursts: discrete clicks of 3 rows, each a 0.2 s glide to its target (re-aimed by the next click, as an
    /// animated scroll is): ten clicks 60 ms apart, a spin of twenty-four 25 ms apart, and twelve back; the list is
    /// told each click's glide when it starts (a prediction per click, so never past the click: the burst's later
    /// clicks are not foreseen).
    case wheel
    /// Keyboard Page Down runs: a page (18 rows, nine tenths of the screen, as GTK's page increment) every 250 ms,
    /// then held down (a page every 80 ms, each re-aiming the 0.2 s glide), then Page Up back; each press a known
    /// target (a distance-duration prediction).
    case pages

    /// The scenario name of the script's rows ("scroll" for the original fling script).
    var scenario: String { self == .fling ? "scroll" : "scroll-\(rawValue)" }

    func motions(quick: Bool) -> [ScrollMotion] {
        let scale = quick ? 0.5 : 1
        switch self {
        case .fling where quick:
            return [
                .settle(name: "start", min: 0.1, max: 1.5),
                .steady(rowsPerSecond: 60, seconds: 0.4),
                .fling(rowsPerSecond: 2_000, tau: 0.15, stopBelow: 15),
                .settle(name: "after-fling", min: 0.1, max: 1.5),
                .fling(rowsPerSecond: -1_500, tau: 0.12, stopBelow: 15),
                .settle(name: "after-reversal", min: 0.1, max: 1.5),
                .jump(toRow: nil),
                .settle(name: "after-jump", min: 0.15, max: 1.5),
            ]
        case .fling:
            return [
                .settle(name: "start", min: 0.25, max: 2.5),
                .steady(rowsPerSecond: 60, seconds: 1.2),
                .fling(rowsPerSecond: 2_000, tau: 0.3, stopBelow: 8),
                .settle(name: "after-fling", min: 0.25, max: 2.5),
                .fling(rowsPerSecond: -1_500, tau: 0.22, stopBelow: 8),
                .settle(name: "after-reversal", min: 0.25, max: 2.5),
                .jump(toRow: nil),
                .settle(name: "after-jump", min: 0.35, max: 2.5),
            ]
        case .jitter:
            return [
                .settle(name: "start", min: 0.25 * scale, max: 2.5),
                .jitter(seconds: 2 * scale),
                .settle(name: "after-jitter", min: 0.25 * scale, max: 2.5),
                .steady(rowsPerSecond: 60, seconds: 0.5 * scale),
                .jitter(seconds: 1 * scale),
                .settle(name: "after-steady-jitter", min: 0.25 * scale, max: 2.5),
            ]
        case .caught:
            return [
                .settle(name: "start", min: 0.25 * scale, max: 2.5),
                .steady(rowsPerSecond: 60, seconds: 0.5 * scale),
                .caught(rowsPerSecond: 1_800, tau: 0.3, after: 0.08),
                .steady(rowsPerSecond: 20, seconds: 0.3 * scale),
                .caught(rowsPerSecond: -1_500, tau: 0.25, after: 0.12),
                .settle(name: "after-catches", min: 0.25 * scale, max: 2.5),
                .fling(rowsPerSecond: 1_200, tau: 0.25, stopBelow: 8),
                .settle(name: "after-fling", min: 0.25 * scale, max: 2.5),
            ]
        case .wheel:
            let rest: (String) -> ScrollMotion = { .settle(name: $0, min: 0.25 * scale, max: 2.5) }
            let burst = { (clicks: Int, interval: Double, rows: Double) -> [ScrollMotion] in
                Glide.run(steps: Array(repeating: rows, count: clicks), interval: interval, duration: 0.2).map { .glide($0) }
            }
            return [rest("start")] + burst(quick ? 5 : 10, 0.06, 3) + [rest("after-clicks")]
                + burst(quick ? 12 : 24, 0.025, 3) + [rest("after-spin")] + burst(quick ? 6 : 12, 0.03, -3)
                + [rest("after-back")]
        case .pages:
            let rest: (String) -> ScrollMotion = { .settle(name: $0, min: 0.25 * scale, max: 2.5) }
            let run = { (pages: Int, interval: Double, rows: Double) -> [ScrollMotion] in
                Glide.run(steps: Array(repeating: rows, count: pages), interval: interval, duration: 0.2).map { .glide($0) }
            }
            return [rest("start")] + run(quick ? 4 : 8, 0.25, 18) + [rest("after-presses")]
                + run(quick ? 8 : 16, 0.08, 18) + [rest("after-held")] + run(quick ? 6 : 12, 0.08, -18)
                + [rest("after-back")]
        case .jump:
            var motions: [ScrollMotion] = [.settle(name: "start", min: 0.25 * scale, max: 2.5)]
            for index in 0..<(quick ? 6 : 12) {
                motions.append(.jump(toRow: index.isMultiple(of: 2) ? 5_000 : 200))
                motions.append(.steady(rowsPerSecond: 0, seconds: 0.1))   // about 6 frames at each end
            }
            motions.append(.settle(name: "after-jumps", min: 0.25 * scale, max: 2.5))
            motions.append(.jump(toRow: 5_000))
            motions.append(.settle(name: "after-jump-there", min: 0.25 * scale, max: 2.5))
            motions.append(.jump(toRow: 200))
            motions.append(.settle(name: "after-jump-back", min: 0.25 * scale, max: 2.5))
            return motions
        }
    }
}
