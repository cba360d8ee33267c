import Foundation
import Lanes
import LanesTesting
import Testing

/// Measures what the responsiveness monitor costs, in CPU time, while the main queue is idle. It takes seconds of
/// real time, so it runs only when asked: `LANES_MEASURE_MONITOR=1 swift test --filter MonitorCostTests`.
@Suite("Responsiveness monitor cost", .timeLimit(.minutes(5)))
struct MonitorCostTests {
    static let enabled = ProcessInfo.processInfo.environment["LANES_MEASURE_MONITOR"] != nil

    /// Waits `duration` of real time (the measurement window, not a wait for an event).
    static func measure(for duration: Duration) async -> Double {
        let elapsed = Gate()
        let before = ResourceUsage.now().cpuSeconds
        LaneTimer.after(duration) { elapsed.open() }
        await elapsed.wait()
        return ResourceUsage.now().cpuSeconds - before
    }

    @Test("the monitor costs under 1% of a core", .enabled(if: enabled))
    func cost() async {
        let window = Duration.seconds(5)
        let idle = await Self.measure(for: window)
        let monitor = ResponsivenessMonitor()
        monitor.start()
        let monitored = await Self.measure(for: window)
        monitor.stop()
        let stats = monitor.snapshot()
        let share = (monitored - idle) / 5
        let percent = (share * 100_000).rounded() / 1000
        print("monitor: \(percent)% of a core (CPU \(idle) s idle, \(monitored) s monitored, over 5 s;",
              "\(stats.samples) pings; \(stats.hudText))")
        #expect(stats.samples > 200)
        #expect(share < 0.01)
    }
}
