import Dispatch
import Lanes
import LanesTesting
import Testing

@Suite("Clocks and timers", .timeLimit(.minutes(5)))
struct TimingTests {
    @Test("the virtual clock fires in deadline order, then in scheduling order, including actions scheduled meanwhile")
    func virtualClockOrder() {
        let clock = VirtualClock()
        let log = Recorder<String>()
        _ = clock.schedule(at: 30, leeway: 0) { log.append("c30") }
        _ = clock.schedule(at: 10, leeway: 0) {
            log.append("a10")
            _ = clock.schedule(at: 15, leeway: 0) { log.append("nested15 at \(clock.now)") }
        }
        _ = clock.schedule(at: 10, leeway: 0) { log.append("b10") }
        let cancelled = clock.schedule(at: 20, leeway: 0) { log.append("cancelled") }
        cancelled.cancel()
        cancelled.cancel()
        #expect(cancelled.isCancelled)
        clock.advance(to: 29)
        #expect(log.elements == ["a10", "b10", "nested15 at 15"])
        #expect(clock.now == 29)
        #expect(clock.nextDeadline == 30)
        clock.advance(by: .nanoseconds(1))
        #expect(log.elements.last == "c30")
        #expect(clock.scheduledCount == 0)
        #expect(!clock.advanceToNext())
    }

    @Test("a one-shot timer fires once, at its deadline, and not at all once cancelled")
    func oneShot() {
        let clock = VirtualClock()
        let fired = Recorder<UInt64>()
        let timer = LaneTimer.after(.milliseconds(100), clock: clock) { fired.append(clock.now) }
        clock.advance(by: .milliseconds(99))
        #expect(fired.elements.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(fired.elements == [100_000_000])
        clock.advance(by: .seconds(10))
        #expect(fired.elements.count == 1)
        #expect(timer.fireCount == 1)

        let never = LaneTimer.after(.milliseconds(5), clock: clock) { fired.append(0) }
        never.cancel()
        never.cancel()
        clock.advance(by: .seconds(1))
        #expect(fired.elements.count == 1)
        #expect(never.isCancelled)
        #expect(clock.scheduledCount == 0)
    }

    @Test("a repeating timer delivers on its queue every interval until cancelled")
    func repeating() {
        let clock = VirtualClock()
        let manual = ManualExecutor()
        let ui = WorkQueue("timer-ui", maxConcurrency: 1, executor: manual)
        let ticks = Recorder<UInt64>()
        let timer = LaneTimer.every(.milliseconds(10), on: ui, clock: clock) { ticks.append(clock.now / 1_000_000) }
        for _ in 0..<3 {
            clock.advance(by: .milliseconds(10))
            #expect(manual.runAll() == 1)
        }
        #expect(ticks.elements == [10, 20, 30])
        timer.cancel()
        clock.advance(by: .milliseconds(100))
        manual.runAll()
        #expect(ticks.elements == [10, 20, 30])
        #expect(clock.scheduledCount == 0)
    }

    @Test("a busy queue gets one pending delivery, not a pile, and a cancelled timer's pending delivery is dropped")
    func coalescesAndDropsPending() {
        let clock = VirtualClock()
        let manual = ManualExecutor()
        let ui = WorkQueue("timer-busy", maxConcurrency: 1, executor: manual)
        let count = Recorder<Int>()
        let timer = LaneTimer.every(.milliseconds(10), on: ui, clock: clock) { count.append(1) }
        clock.advance(by: .milliseconds(50))  // five ticks while the queue does not run
        #expect(ui.counts.unfinished == 1)
        manual.runAll()
        #expect(count.elements.count == 1)
        clock.advance(by: .milliseconds(10))
        #expect(ui.counts.unfinished == 1)
        timer.cancel()
        manual.runAll()
        #expect(count.elements.count == 1)
        #expect(timer.fireCount == 1)
    }

    @Test("the system clock fires on real time and a cancelled callback never runs")
    func systemClock() async {
        let clock = SystemLaneClock()
        let log = Recorder<String>()
        let done = Gate()
        let start = clock.now
        // Hold the (serial) timer queue so the test, not the machine's load, decides that the cancel comes first.
        let holding = Gate(), release = Gate()
        _ = clock.schedule(at: clock.now, leeway: 0) {
            holding.open()
            release.wait()
        }
        await holding.wait()
        let early = clock.schedule(at: clock.deadline(after: .milliseconds(1)), leeway: 0) { log.append("cancelled") }
        _ = clock.schedule(at: clock.deadline(after: .milliseconds(5)), leeway: 0) {
            log.append("late")
            done.open()
        }
        early.cancel()
        release.open()
        await done.wait()
        #expect(log.elements == ["late"])
        #expect(clock.now - start >= 5_000_000)
    }

    @Test("real timers deliver on a work queue; a repeating one stops when cancelled")
    func systemTimers() async {
        let queue = WorkQueue("timer-real", maxConcurrency: 1)
        let once = Gate()
        LaneTimer.after(.milliseconds(2), on: queue) { once.open() }
        await once.wait()

        let thrice = Gate()
        let count = Recorder<Int>()
        let timer = LaneTimer.every(.milliseconds(2), leeway: .milliseconds(1), on: queue) {
            count.append(1)
            if count.elements.count == 3 { thrice.open() }
        }
        await thrice.wait()
        timer.cancel()
        await queue.idle()
        let after = timer.fireCount
        #expect(after >= 3)
        // Any delivery already handed to the queue has run or been dropped; the count can no longer grow.
        _ = await queue.add { _ in () }.result
        #expect(timer.fireCount == after)
    }

    @Test("durations convert to nanoseconds, clamped and saturating")
    func durations() {
        let clock = VirtualClock(start: 5)
        #expect(clock.deadline(after: .milliseconds(3)) == 3_000_005)
        #expect(clock.deadline(after: .seconds(-1)) == 5)
        #expect(clock.deadline(after: .seconds(Int64.max)) == UInt64.max)
    }
}
