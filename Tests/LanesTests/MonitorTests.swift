import Dispatch
import Lanes
import LanesTesting
import Testing

@Suite("Responsiveness monitor", .timeLimit(.minutes(5)))
struct MonitorTests {
    @Test("a queue blocked for 50 ms is reported as one hitch of 50 ms, naming the blocking item")
    func blockedFiftyMilliseconds() {
        let clock = VirtualClock()
        let manual = ManualExecutor()
        let ui = WorkQueue("monitor-ui-virtual", maxConcurrency: 1, executor: manual)
        let monitor = ResponsivenessMonitor(
            target: ui, interval: .milliseconds(10), threshold: .milliseconds(16), clock: clock)
        let hitches = Recorder<Hitch>()
        monitor.onHitch { hitches.append($0) }
        monitor.start()
        defer { monitor.stop() }

        clock.advance(by: .milliseconds(10))  // first ping
        #expect(manual.runAll() == 1)
        #expect(monitor.snapshot().samples == 1)
        #expect(monitor.snapshot().max == .zero)

        // An item that takes 50 ms of (virtual) time; the pinger keeps ticking meanwhile.
        ui.add(label: "decode thumbnails") { _ in clock.advance(by: .milliseconds(50)) }
        #expect(manual.runNext())
        #expect(ui.counts.unfinished == 1)  // one ping waits behind it, however many ticks passed
        manual.runAll()

        #expect(hitches.elements.count == 1)
        let hitch = hitches.elements.first
        #expect(hitch?.duration == .milliseconds(50))
        #expect(hitch?.label == "decode thumbnails")
        #expect(hitch?.start == 10_000_000)
        #expect(hitch?.queue == "monitor-ui-virtual")
        let stats = monitor.snapshot()
        #expect(stats.hitches == 1)
        #expect(stats.samples == 2)
        #expect(stats.max == .milliseconds(40))  // the ping itself waited from its send at 20 ms

        // The queue is responsive again: more pings, no more hitches.
        for _ in 0..<5 {
            clock.advance(by: .milliseconds(10))
            manual.runAll()
        }
        #expect(monitor.snapshot().hitches == 1)
        #expect(monitor.snapshot().samples == 7)
    }

    @Test("two queues of one name: a slow item on one is no hitch on the other's monitor")
    func sameNamedQueuesStayApart() {
        let clock = VirtualClock()
        let busyExecutor = ManualExecutor()
        let quietExecutor = ManualExecutor()
        let busy = WorkQueue("monitor-same-name", maxConcurrency: 1, executor: busyExecutor)
        let quiet = WorkQueue("monitor-same-name", maxConcurrency: 1, executor: quietExecutor)
        let monitor = ResponsivenessMonitor(
            target: quiet, interval: .milliseconds(10), threshold: .milliseconds(16), clock: clock)
        monitor.start()
        defer { monitor.stop() }

        // 50 ms of (virtual) time on the busy queue; the quiet queue answers every ping at once.
        busy.add(label: "slow elsewhere") { _ in
            for _ in 0..<5 {
                clock.advance(by: .milliseconds(10))
                quietExecutor.runAll()
            }
        }
        #expect(busyExecutor.runNext())
        quietExecutor.runAll()

        let stats = monitor.snapshot()
        #expect(stats.samples == 5)
        #expect(stats.hitches == 0)
        #expect(stats.lastHitch == nil)
        #expect(stats.max == .zero)
    }

    @Test("percentiles are nearest-rank over the window")
    func percentiles() {
        let stats = ResponsivenessStats(queue: "main", latencies: (1...100).map { .milliseconds($0) })
        #expect(stats.samples == 100)
        #expect(stats.p50 == .milliseconds(50))
        #expect(stats.p90 == .milliseconds(90))
        #expect(stats.p99 == .milliseconds(99))
        #expect(stats.max == .milliseconds(100))
        let empty = ResponsivenessStats(queue: "main", latencies: [])
        #expect(empty.samples == 0 && empty.p99 == .zero)
        var hud = ResponsivenessStats(queue: "main", latencies: [.microseconds(3140)], hitches: 2)
        hud.hitchTime = .milliseconds(14)
        hud.activeTime = .seconds(10)
        #expect(hud.hudText == "main p99 3.1 ms · hitches 2 · 1.4 ms/s good · hangs 0")
    }

    @Test("synthetic latencies of 1...100 ms give p50 50, p90 90, p99 99, max 100, and 84 separate hitches")
    func syntheticLatencies() {
        let clock = VirtualClock()
        let manual = ManualExecutor()
        let ui = WorkQueue("monitor-synthetic", maxConcurrency: 1, executor: manual)
        let monitor = ResponsivenessMonitor(target: ui, interval: .milliseconds(10), window: 500, clock: clock)
        monitor.start()
        defer { monitor.stop() }
        for latency in (1...100).shuffled() {
            clock.advanceToNext()  // the next tick sends a ping
            #expect(ui.counts.unfinished == 1)
            clock.advance(by: .milliseconds(Int64(latency)))  // the queue does not run meanwhile
            manual.runAll()
        }
        let stats = monitor.snapshot()
        #expect(stats.samples == 100)
        #expect(stats.p50 == .milliseconds(50))
        #expect(stats.p90 == .milliseconds(90))
        #expect(stats.p99 == .milliseconds(99))
        #expect(stats.max == .milliseconds(100))
        #expect(stats.hitches == 84)  // 17...100 ms are above 16 ms
    }

    @Test("the window slides: only the latest pings count")
    func slidingWindow() {
        let clock = VirtualClock()
        let manual = ManualExecutor()
        let ui = WorkQueue("monitor-window", maxConcurrency: 1, executor: manual)
        let monitor = ResponsivenessMonitor(
            target: ui, interval: .milliseconds(10), window: 10, tracksLabels: false, clock: clock)
        monitor.start()
        defer { monitor.stop() }
        for latency in [90, 80] + Array(repeating: 1, count: 10) {
            clock.advanceToNext()
            clock.advance(by: .milliseconds(Int64(latency)))
            manual.runAll()
        }
        let stats = monitor.snapshot()
        #expect(stats.samples == 10)
        #expect(stats.max == .milliseconds(1))
        #expect(stats.hitches == 2)
    }

    @Test("a ping cancelled by cancelAll does not wedge the monitor; stop ends pinging")
    func cancelledPing() async {
        let clock = VirtualClock()
        let manual = ManualExecutor()
        let ui = WorkQueue("monitor-cancel", maxConcurrency: 1, executor: manual)
        let monitor = ResponsivenessMonitor(target: ui, interval: .milliseconds(10), clock: clock)
        // cancelAll() finishes pending items on a background sweep; the cancelled event comes after the item's
        // completion handlers (the monitor's among them) have run.
        let swept = Gate()
        let token = WorkEvents.observe { event in
            if event.queue == "monitor-cancel", event.kind == .cancelled { swept.open() }
        }
        defer { token.cancel() }
        monitor.start()
        clock.advance(by: .milliseconds(10))
        ui.cancelAll()
        await swept.wait()
        manual.runAll()
        clock.advance(by: .milliseconds(10))
        #expect(ui.counts.unfinished == 1)
        manual.runAll()
        #expect(monitor.snapshot().samples == 1)
        monitor.stop()
        #expect(!monitor.isRunning)
        clock.advance(by: .seconds(1))
        #expect(ui.counts.unfinished == 0)
        #expect(clock.scheduledCount == 0)
    }

    @Test("a dispatch queue can be monitored directly")
    func dispatchTarget() async {
        let clock = VirtualClock()
        let target = DispatchQueue(label: "monitor-dispatch")
        let monitor = ResponsivenessMonitor(dispatchQueue: target, name: "render", interval: .milliseconds(10), clock: clock)
        let reported = Gate()
        let hitches = Recorder<Hitch>()
        monitor.onHitch { hitch in
            hitches.append(hitch)
            reported.open()
        }
        monitor.start()
        defer { monitor.stop() }
        target.suspend()  // the queue is stuck...
        clock.advance(by: .milliseconds(40))  // ...while a ping waits from 10 ms to 40 ms
        target.resume()
        await reported.wait()
        #expect(hitches.elements == [Hitch(duration: .milliseconds(30), start: 10_000_000, label: nil, queue: "render")])
    }

    @Test("the real main queue, blocked for 50 ms by a main-queue item, reports one hitch of at least 40 ms")
    func realMainQueue() async {
        let label = "block main 50 ms"
        let monitor = ResponsivenessMonitor(target: .main, interval: .milliseconds(5))
        let mine = Recorder<Hitch>()
        let reported = Gate()
        monitor.onHitch { hitch in
            guard hitch.label == label else { return }  // other suites may be using the main queue too
            mine.append(hitch)
            reported.open()
        }
        monitor.start()
        defer { monitor.stop() }
        let clock = SystemLaneClock()
        WorkQueue.main.add(label: label) { _ in
            // Busy work on the main queue: the thing being measured. It lasts 50 ms, and longer if the machine is so
            // loaded that no ping has been waiting behind it yet (so the test cannot miss the stall).
            let start = clock.now
            while clock.now - start < 50_000_000 || !monitor.isAwaitingPing {}
        }
        await reported.wait()
        // Any ping that waited behind the block has run before this item.
        _ = await WorkQueue.main.add { _ in () }.result
        #expect(mine.elements.count == 1)
        #expect((mine.elements.first?.duration ?? .zero) >= .milliseconds(40))
    }
}
