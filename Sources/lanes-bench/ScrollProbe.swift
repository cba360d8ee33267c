import Dispatch
import Lanes

/// Measures the main queue during the scroll benchmark: how late each 60 Hz frame tick fires (the latency a user
/// feels), how long each of our main-queue turns takes (frame handlers and deliveries), and frames over budget.
struct FrameProbe {
    static let interval: UInt64 = 16_666_667

    /// When tick 0 was due.
    var origin: UInt64 = 0
    /// The index of the next tick due.
    private var expected = 0
    /// Lateness of each tick serviced, in ms.
    private(set) var lateness: [Double] = []
    /// Duration of each main-queue turn we ran, in ms.
    private(set) var turns: [Double] = []
    /// Ticks that were serviced, plus ticks that never fired because the main queue was busy.
    var frames: Int { lateness.count + missed }
    /// Ticks the timer coalesced because the main queue was busy past them.
    private(set) var missed = 0
    /// Ticks whose lateness plus handler time exceeded one frame.
    private(set) var late = 0

    /// A tick fired at `time`; returns how late the oldest tick due was, in ns.
    mutating func tickFired(at time: UInt64) -> UInt64 {
        let due = origin + UInt64(expected) * Self.interval
        let lateBy = time > due ? time - due : 0
        let latest = time >= origin ? Int((time - origin) / Self.interval) : 0
        let index = max(expected, latest)
        missed += index - expected
        expected = index + 1
        lateness.append(Double(lateBy) / 1e6)
        return lateBy
    }

    /// The frame handler that started `lateBy` late took `duration` ns.
    mutating func tickHandled(lateBy: UInt64, duration: UInt64) {
        turns.append(Double(duration) / 1e6)
        if lateBy + duration > Self.interval { late += 1 }
    }

    /// A delivery turn took `duration` ns.
    mutating func delivered(duration: UInt64) {
        turns.append(Double(duration) / 1e6)
    }

    /// Frames over budget: late frames plus frames that never happened.
    var overBudget: Int { late + missed }
}

/// The `q` quantile (nearest rank) of `samples`; 0 when empty.
func quantile(_ samples: [Double], _ q: Double) -> Double {
    guard !samples.isEmpty else { return 0 }
    let sorted = samples.sorted()
    let rank = Int((q * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}
