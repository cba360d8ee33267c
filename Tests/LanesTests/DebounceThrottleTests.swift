import Lanes
import LanesTesting
import Testing

@Suite("Debounce and throttle", .timeLimit(.minutes(5)))
struct DebounceThrottleTests {
    /// A UI lane driven by hand.
    struct Lane {
        let manual = ManualExecutor()
        let queue: WorkQueue
        init(_ name: String) { queue = WorkQueue(name, maxConcurrency: 1, executor: manual) }
    }

    @Test("a debouncer delivers only the last value, once the input has been quiet for the interval")
    func debounce() {
        let clock = VirtualClock()
        let ui = Lane("debounce-ui")
        let got = Recorder<String>()
        let debouncer = Debouncer<String>(interval: .milliseconds(300), on: ui.queue, clock: clock) { got.append($0) }
        debouncer.send("s")
        clock.advance(by: .milliseconds(100))
        debouncer.send("sw")
        clock.advance(by: .milliseconds(100))
        debouncer.send("swift")
        clock.advance(by: .milliseconds(299))
        ui.manual.runAll()
        #expect(got.elements.isEmpty)
        #expect(debouncer.hasPendingValue)
        clock.advance(by: .milliseconds(1))
        ui.manual.runAll()
        #expect(got.elements == ["swift"])
        #expect(!debouncer.hasPendingValue)
        clock.advance(by: .seconds(5))
        ui.manual.runAll()
        #expect(got.elements == ["swift"])
        #expect(clock.scheduledCount == 0)
    }

    @Test("cancel drops the waiting value, even one already handed to the queue; flush delivers at once")
    func debounceCancelAndFlush() {
        let clock = VirtualClock()
        let ui = Lane("debounce-cancel")
        let got = Recorder<String>()
        let debouncer = Debouncer<String>(interval: .milliseconds(50), on: ui.queue, clock: clock) { got.append($0) }
        debouncer.send("a")
        debouncer.cancel()
        clock.advance(by: .milliseconds(100))
        ui.manual.runAll()
        #expect(got.elements.isEmpty)

        debouncer.send("b")
        clock.advance(by: .milliseconds(50))  // delivery is queued...
        debouncer.cancel()                     // ...and the screen went away before it ran
        ui.manual.runAll()
        #expect(got.elements.isEmpty)

        debouncer.send("c")
        debouncer.flush()
        ui.manual.runAll()
        #expect(got.elements == ["c"])
        clock.advance(by: .seconds(1))
        ui.manual.runAll()
        #expect(got.elements == ["c"])

        debouncer.send("d")  // still works after cancel and flush
        clock.advance(by: .milliseconds(50))
        ui.manual.runAll()
        #expect(got.elements == ["c", "d"])
    }

    @Test("a throttler with both edges delivers the first value at once and the latest at the end of the interval")
    func throttleBoth() {
        let clock = VirtualClock()
        let ui = Lane("throttle-both")
        let got = Recorder<String>()
        let throttler = Throttler<Int>(interval: .milliseconds(100), on: ui.queue, clock: clock) {
            got.append("\($0)@\(clock.now / 1_000_000)")
        }
        throttler.send(0)
        ui.manual.runAll()
        #expect(got.elements == ["0@0"])
        clock.advance(by: .milliseconds(10)); throttler.send(10)
        clock.advance(by: .milliseconds(40)); throttler.send(50)
        clock.advance(by: .milliseconds(49)); ui.manual.runAll()
        #expect(got.elements == ["0@0"])
        clock.advance(by: .milliseconds(1)); ui.manual.runAll()
        #expect(got.elements == ["0@0", "50@100"])
        // The trailing delivery opened a new interval: a value sent inside it waits for its end.
        clock.advance(by: .milliseconds(50)); throttler.send(150); ui.manual.runAll()
        #expect(got.elements.count == 2)
        clock.advance(by: .milliseconds(50)); ui.manual.runAll()
        #expect(got.elements.last == "150@200")
        // A quiet interval ends the burst; the next value leads again.
        clock.advance(by: .milliseconds(150)); throttler.send(350); ui.manual.runAll()
        #expect(got.elements.last == "350@350")
    }

    @Test("leading-only drops values inside the interval; trailing-only delivers the latest at its end")
    func throttleEdges() {
        let clock = VirtualClock()
        let ui = Lane("throttle-edges")
        let leading = Recorder<Int>()
        let trailing = Recorder<Int>()
        let lead = Throttler<Int>(interval: .milliseconds(100), edges: .leading, on: ui.queue, clock: clock) {
            leading.append($0)
        }
        let trail = Throttler<Int>(interval: .milliseconds(100), edges: .trailing, on: ui.queue, clock: clock) {
            trailing.append($0)
        }
        for step in 0..<25 {  // a value every 10 ms for 250 ms
            lead.send(step)
            trail.send(step)
            clock.advance(by: .milliseconds(10))
            ui.manual.runAll()
        }
        #expect(leading.elements == [0, 10, 20])
        #expect(trailing.elements == [9, 19])
        clock.advance(by: .milliseconds(100))
        ui.manual.runAll()
        #expect(trailing.elements == [9, 19, 24])
        trail.send(99)
        trail.cancel()
        clock.advance(by: .seconds(1))
        ui.manual.runAll()
        #expect(trailing.elements == [9, 19, 24])
    }

    @Test("with no queue, a debouncer delivers on the thread that advances the clock")
    func inlineDelivery() {
        let clock = VirtualClock()
        let got = Recorder<Int>()
        let debouncer = Debouncer<Int>(interval: .milliseconds(5), clock: clock) { got.append($0) }
        debouncer.send(1)
        debouncer.send(2)
        clock.advance(by: .milliseconds(5))
        #expect(got.elements == [2])
    }
}
