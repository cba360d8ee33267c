import Foundation
import Lanes
import LanesTesting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Measures what the responsiveness monitor costs, in CPU time, while the main queue is idle. It takes seconds of
/// real time, so it runs only when asked: `LANES_MEASURE_MONITOR=1 swift test --filter MonitorCostTests`.
@Suite("Responsiveness monitor cost", .timeLimit(.minutes(5)))
struct MonitorCostTests {
    static let enabled = ProcessInfo.processInfo.environment["LANES_MEASURE_MONITOR"] != nil

    /// CPU seconds the process has used (user + system).
    static func cpuSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Waits `duration` of real time (the measurement window, not a wait for an event).
    static func measure(for duration: Duration) async -> Double {
        let elapsed = Gate()
        let before = cpuSeconds()
        LaneTimer.after(duration) { elapsed.open() }
        await elapsed.wait()
        return cpuSeconds() - before
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
