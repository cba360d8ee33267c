/// The responsiveness monitor's state machine: the outstanding ping, the latency window, hitches, and which items
/// run on the target. Every method runs under the monitor's lock and returns what to do once it is released.
struct MonitorState: Sendable {
    struct Ping: Sendable {
        let number: UInt64
        let sent: UInt64
        /// When the stall began, as far as we know: the send time, or the start of an item that was already running.
        var stallStart: UInt64
        /// The item that ran longest while the ping waited.
        var culprit: String?
        var culpritTime: UInt64 = 0
    }

    struct RunningItem: Sendable {
        let label: String
        let start: UInt64
    }

    let threshold: UInt64
    let queueName: String
    var running = false
    var lastPing: UInt64 = 0
    var outstanding: Ping?
    /// A ring of the last `window.count` latencies.
    var window: [UInt64]
    var windowNext = 0
    var windowFilled = 0
    var hitchCount = 0
    var lastHitch: Hitch?
    /// How far the hitches ran past the threshold, summed: the time frames were late.
    var hitchNanoseconds: UInt64 = 0
    /// Hitches longer than ``ResponsivenessStats/hangThreshold``.
    var hangCount = 0
    /// Time spent running before the current run, and when the current run began.
    var activeNanoseconds: UInt64 = 0
    var runningSince: UInt64?
    /// Items running on the target now (from work events), by item id.
    var items: [UInt64: RunningItem] = [:]

    init(threshold: UInt64, windowSize: Int, queueName: String) {
        self.threshold = threshold
        self.queueName = queueName
        window = [UInt64](repeating: 0, count: max(1, windowSize))
    }

    /// The ping timer ticked: returns the number of a ping to send, or nil while one is still waiting (a stall
    /// gets one ping, so it is reported once).
    mutating func tick(now: UInt64) -> UInt64? {
        guard running, outstanding == nil else { return nil }
        lastPing += 1
        var ping = Ping(number: lastPing, sent: now, stallStart: now)
        for item in items.values where item.start < ping.stallStart {
            ping.stallStart = item.start
            ping.culprit = item.label
        }
        outstanding = ping
        return ping.number
    }

    /// The ping ran on the target: records its latency and returns a hitch if the stall crossed the threshold.
    mutating func pong(_ number: UInt64, now: UInt64) -> Hitch? {
        guard running, var ping = outstanding, ping.number == number else { return nil }
        outstanding = nil
        record(now &- min(now, ping.sent))
        for item in items.values { consider(item, until: now, in: &ping) }
        let stall = now &- min(now, ping.stallStart)
        guard stall > threshold else { return nil }
        let hitch = Hitch(
            duration: .nanoseconds(Int64(clamping: stall)), start: ping.stallStart, label: ping.culprit,
            queue: queueName)
        hitchCount += 1
        hitchNanoseconds += stall - threshold
        if stall > ResponsivenessStats.hangThreshold.laneNanoseconds { hangCount += 1 }
        lastHitch = hitch
        return hitch
    }

    mutating func itemStarted(id: UInt64, label: String, now: UInt64) {
        guard running else { return }
        items[id] = RunningItem(label: label, start: now)
    }

    mutating func itemFinished(id: UInt64, now: UInt64) {
        guard let item = items.removeValue(forKey: id), var ping = outstanding else { return }
        consider(item, until: now, in: &ping)
        outstanding = ping
    }

    /// Makes `item` the culprit if it ran longer than the current one while `ping` waited (or the stall lasted).
    private func consider(_ item: RunningItem, until end: UInt64, in ping: inout Ping) {
        let from = max(item.start, ping.stallStart)
        guard end > from, end - from > ping.culpritTime else { return }
        ping.culprit = item.label
        ping.culpritTime = end - from
    }

    private mutating func record(_ latency: UInt64) {
        window[windowNext] = latency
        windowNext = (windowNext + 1) % window.count
        windowFilled = min(windowFilled + 1, window.count)
    }

    var samples: [UInt64] { Array(window.prefix(windowFilled)) }

    /// The monitor started (`now`) or stopped: the activity the hitch rate divides by is the time it ran.
    mutating func setRunning(_ running: Bool, now: UInt64) {
        if !running, let since = runningSince { activeNanoseconds += now &- min(now, since) }
        runningSince = running ? now : nil
        self.running = running
    }

    /// Time spent running, up to `now`.
    func activeTime(now: UInt64) -> UInt64 {
        activeNanoseconds + (runningSince.map { now &- min(now, $0) } ?? 0)
    }
}
