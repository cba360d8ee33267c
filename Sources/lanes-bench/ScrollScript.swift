import Foundation

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
    /// Jump straight to the end of the list.
    case jumpToEnd

    /// How long the motion lasts (settles end on a condition instead).
    var seconds: Double {
        switch self {
        case .settle(_, _, let max): max
        case .steady(_, let seconds): seconds
        case .fling(let velocity, let tau, let stopBelow): tau * log(abs(velocity) / stopBelow)
        case .jumpToEnd: 0
        }
    }

    /// Rows travelled `t` seconds into the motion.
    func distance(at t: Double) -> Double {
        let t = min(max(0, t), seconds)
        switch self {
        case .settle, .jumpToEnd: return 0
        case .steady(let velocity, _): return velocity * t
        case .fling(let velocity, let tau, _): return velocity * tau * (1 - exp(-t / tau))
        }
    }

    /// The script: settle on the first screen, scroll steadily, fling and decelerate, settle, fling back (the
    /// reversal), settle, jump to the end, settle.
    static func script(quick: Bool) -> [ScrollMotion] {
        if quick {
            return [
                .settle(name: "start", min: 0.1, max: 1.5),
                .steady(rowsPerSecond: 60, seconds: 0.4),
                .fling(rowsPerSecond: 2_000, tau: 0.15, stopBelow: 15),
                .settle(name: "after-fling", min: 0.1, max: 1.5),
                .fling(rowsPerSecond: -1_500, tau: 0.12, stopBelow: 15),
                .settle(name: "after-reversal", min: 0.1, max: 1.5),
                .jumpToEnd,
                .settle(name: "after-jump", min: 0.15, max: 1.5),
            ]
        }
        return [
            .settle(name: "start", min: 0.25, max: 2.5),
            .steady(rowsPerSecond: 60, seconds: 1.2),
            .fling(rowsPerSecond: 2_000, tau: 0.3, stopBelow: 8),
            .settle(name: "after-fling", min: 0.25, max: 2.5),
            .fling(rowsPerSecond: -1_500, tau: 0.22, stopBelow: 8),
            .settle(name: "after-reversal", min: 0.25, max: 2.5),
            .jumpToEnd,
            .settle(name: "after-jump", min: 0.35, max: 2.5),
        ]
    }
}
