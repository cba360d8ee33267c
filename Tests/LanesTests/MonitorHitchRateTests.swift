import Lanes
import LanesTesting
import Testing

// Every test's queue has the same name: the monitors match their queue's events by identity, so tests run side by side.
@Suite("Responsiveness monitor: hitch rate and hangs", .timeLimit(.minutes(5)))
struct MonitorHitchRateTests {
    /// A monitor on a manually run queue and a virtual clock, pinging every 10 ms with a 16 ms threshold.
    private func makeMonitor() -> (ResponsivenessMonitor, WorkQueue, ManualExecutor, VirtualClock) {
        let clock = VirtualClock()
        let manual = ManualExecutor()
        let ui = WorkQueue("monitor-rate-ui", maxConcurrency: 1, executor: manual)
        let monitor = ResponsivenessMonitor(
            target: ui, interval: .milliseconds(10), threshold: .milliseconds(16), clock: clock)
        return (monitor, ui, manual, clock)
    }

    /// Lets the queue answer every ping for `milliseconds` of virtual time.
    private func responsive(_ milliseconds: Int, _ manual: ManualExecutor, _ clock: VirtualClock) {
        for _ in 0..<(milliseconds / 10) {
            clock.advance(by: .milliseconds(10))
            manual.runAll()
        }
    }

    /// Runs an item that takes `milliseconds` of virtual time; the ping sent meanwhile waits behind it.
    private func stall(_ milliseconds: Int, _ ui: WorkQueue, _ manual: ManualExecutor, _ clock: VirtualClock) {
        ui.add(label: "stall") { _ in clock.advance(by: .milliseconds(milliseconds)) }
        #expect(manual.runNext())
        manual.runAll()
    }

    @Test("hitch time is what stalls ran past the threshold, per second monitored; a stall over 250 ms is a hang")
    func rateAndHangs() {
        let (monitor, ui, manual, clock) = makeMonitor()
        monitor.start()
        defer { monitor.stop() }
        responsive(400, manual, clock)
        stall(50, ui, manual, clock)     // a 50 ms stall: 34 ms past the threshold
        responsive(300, manual, clock)
        stall(300, ui, manual, clock)    // 300 ms: 284 ms late, and a hang
        responsive(300, manual, clock)

        let stats = monitor.snapshot()
        #expect(stats.hitches == 2)
        #expect(stats.hangs == 1)
        #expect(stats.hitchTime == .milliseconds(318))
        // 400 + 50 + 300 + 300 + 300 ms of virtual time since the start.
        #expect(stats.activeTime == .milliseconds(1350))
        #expect(abs(stats.hitchRate - 318 / 1.35) < 0.01)
        #expect(stats.hitchRateBand == .poor)
        #expect(stats.hudText.hasSuffix("· 235.6 ms/s poor · hangs 1"))
    }

    @Test("a stall just under 250 ms is a hitch, not a hang; a responsive queue stays at 0 ms/s, good")
    func thresholds() {
        let (monitor, ui, manual, clock) = makeMonitor()
        monitor.start()
        defer { monitor.stop() }
        responsive(1000, manual, clock)
        #expect(monitor.snapshot().hitchRate == 0)
        #expect(monitor.snapshot().hitchRateBand == .good)
        stall(250, ui, manual, clock)
        #expect(monitor.snapshot().hitches == 1)
        #expect(monitor.snapshot().hangs == 0)
    }

    @Test("activity counts only while the monitor runs")
    func activityPausesWhileStopped() {
        let (monitor, _, manual, clock) = makeMonitor()
        monitor.start()
        responsive(500, manual, clock)
        monitor.stop()
        clock.advance(by: .seconds(10))
        #expect(monitor.snapshot().activeTime == .milliseconds(500))
        monitor.start()
        defer { monitor.stop() }
        responsive(200, manual, clock)
        #expect(monitor.snapshot().activeTime == .milliseconds(700))
    }

    @Test("Apple's bands: good below 5 ms/s, fair from 5 to 10, poor above 10")
    func bands() {
        #expect(HitchRateBand(0) == .good)
        #expect(HitchRateBand(4.99) == .good)
        #expect(HitchRateBand(5) == .fair)
        #expect(HitchRateBand(10) == .fair)
        #expect(HitchRateBand(10.01) == .poor)
        var stats = ResponsivenessStats(queue: "main", latencies: [])
        #expect(stats.hitchRate == 0)   // no activity yet
        stats.hitchTime = .milliseconds(60)
        stats.activeTime = .seconds(8)
        #expect(stats.hitchRate == 7.5)
        #expect(stats.hitchRateBand == .fair)
    }
}
