/// One stall of a monitored queue: it could not start urgent work for `duration`.
///
/// ```swift
/// monitor.onHitch { hitch in log("hitch \(hitch.duration) in \(hitch.label ?? "unknown work")") }
/// ```
public struct Hitch: Sendable, Equatable, CustomStringConvertible {
    /// How long the queue could not start new work.
    public let duration: Duration
    /// When the stall began, in the monitor's clock's nanoseconds (`DispatchTime` uptime by default).
    public let start: UInt64
    /// The label of the work item that ran longest during the stall, when the monitor could see it.
    public let label: String?
    /// The monitored queue's name.
    public let queue: String

    /// A stall of `queue` that began at `start` and lasted `duration` (monitors make these; tests and tools may too).
    public init(duration: Duration, start: UInt64, label: String?, queue: String) {
        self.duration = duration
        self.start = start
        self.label = label
        self.queue = queue
    }

    public var description: String {
        "hitch \(ResponsivenessStats.milliseconds(duration)) ms on \(queue)" + (label.map { " in '\($0)'" } ?? "")
    }
}

/// Latency percentiles of a monitored queue over a sliding window of pings, its hitches, and the figures people
/// compare apps by: the hitch rate (milliseconds of hitch per second of activity, with Apple's bands: good below 5,
/// fair 5–10, poor above 10) and hangs (stalls longer than 250 ms).
///
/// ```swift
/// let stats = monitor.snapshot()
/// hud.text = stats.hudText            // "main p99 3.1 ms · hitches 2 · 1.4 ms/s good · hangs 0"
/// benchmark.report("main p99", stats.p99)
/// if stats.hitchRateBand == .poor { log("hitch rate \(stats.hitchRate) ms/s") }
/// ```
public struct ResponsivenessStats: Sendable, Equatable {
    /// The monitored queue's name.
    public var queue: String
    /// Pings in the window.
    public var samples: Int
    /// The median latency of the window's pings: how long urgent work waited to start.
    public var p50: Duration
    /// The 90th percentile of the window's ping latencies.
    public var p90: Duration
    /// The 99th percentile of the window's ping latencies, the figure to compare (`hudText` shows it).
    public var p99: Duration
    /// The longest ping latency in the window.
    public var max: Duration
    /// Hitches reported since the monitor started.
    public var hitches: Int
    /// The most recent hitch.
    public var lastHitch: Hitch?
    /// How far the hitches ran past the monitor's threshold (one frame by default), summed: the time frames were
    /// late, which is what Apple's hitch rate counts.
    public var hitchTime: Duration = .zero
    /// How long the monitor has been running: the activity the hitch rate divides by.
    public var activeTime: Duration = .zero
    /// Hitches longer than ``hangThreshold``.
    public var hangs = 0

    /// A stall this long is a hang (Apple's threshold): 250 ms.
    public static let hangThreshold = Duration.milliseconds(250)

    /// Milliseconds of hitch per second of activity (0 before any activity).
    public var hitchRate: Double {
        let active = activeTime.laneNanoseconds
        return active == 0 ? 0 : Double(hitchTime.laneNanoseconds) / 1e6 / (Double(active) / 1e9)
    }

    /// Apple's band for ``hitchRate``.
    public var hitchRateBand: HitchRateBand { HitchRateBand(hitchRate) }

    /// Computes the percentiles of `latencies` (nearest-rank: p50 of 1...100 ms is 50 ms).
    ///
    /// ```swift
    /// let stats = ResponsivenessStats(queue: "main", latencies: [.milliseconds(2), .milliseconds(40)])
    /// ```
    public init(queue: String, latencies: [Duration], hitches: Int = 0, lastHitch: Hitch? = nil) {
        self.init(queue: queue, nanoseconds: latencies.map(\.laneNanoseconds), hitches: hitches, lastHitch: lastHitch)
    }

    init(queue: String, nanoseconds: [UInt64], hitches: Int, lastHitch: Hitch?) {
        let sorted = nanoseconds.sorted()
        self.queue = queue
        samples = sorted.count
        p50 = .nanoseconds(Self.percentile(0.50, of: sorted))
        p90 = .nanoseconds(Self.percentile(0.90, of: sorted))
        p99 = .nanoseconds(Self.percentile(0.99, of: sorted))
        max = .nanoseconds(sorted.last ?? 0)
        self.hitches = hitches
        self.lastHitch = lastHitch
    }

    /// A one-line summary for a heads-up display: "main p99 3.1 ms · hitches 2 · 1.4 ms/s good · hangs 0".
    public var hudText: String {
        "\(queue) p99 \(Self.milliseconds(p99)) ms · hitches \(hitches) · \(hitchRateText) ms/s \(hitchRateBand) · hangs \(hangs)"
    }

    /// The hitch rate with one decimal: "1.4".
    public var hitchRateText: String {
        let tenths = Int((min(hitchRate, 1e9) * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// The nearest-rank percentile of sorted values (0 when empty).
    static func percentile(_ fraction: Double, of sorted: [UInt64]) -> Int64 {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return Int64(clamping: sorted[Swift.max(0, Swift.min(sorted.count - 1, rank - 1))])
    }

    /// Milliseconds with one decimal, without Foundation formatting: "3.1".
    static func milliseconds(_ duration: Duration) -> String {
        let tenths = (duration.laneNanoseconds &+ 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}

/// Apple's bands for a hitch rate (milliseconds of hitch per second): good below 5, fair 5–10, poor above 10.
///
/// ```swift
/// let band = HitchRateBand(monitor.snapshot().hitchRate)   // .good, .fair or .poor
/// ```
public enum HitchRateBand: String, Sendable, Equatable, CustomStringConvertible {
    /// Below 5 ms of hitch per second: users do not notice.
    case good
    /// 5 to 10 ms per second: noticeable now and then.
    case fair
    /// Above 10 ms per second: the app feels stuck.
    case poor

    /// The band a hitch rate (milliseconds of hitch per second) falls in.
    public init(_ millisecondsPerSecond: Double) {
        self = millisecondsPerSecond < 5 ? .good : millisecondsPerSecond <= 10 ? .fair : .poor
    }

    public var description: String { rawValue }
}
