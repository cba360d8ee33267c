import Testing

import Lanes

/// The main thread's frame budget on a virtual clock: visible results first, speculative ones in idle time, and a
/// flood of main-queue work never holding a frame for more than one interval.
@Suite("Frame ledger (main-thread frame budget)", .timeLimit(.minutes(5)))
struct FrameLedgerTests {
    let ms: UInt64 = 1_000_000

    @Test("without frames every turn runs as it comes")
    func noFramesRunsEverything() {
        var ledger = FrameLedger(interval: 16 * ms)
        for step in 0..<1_000 {
            #expect(ledger.turn(priority: step.isMultiple(of: 2) ? .prefetch : .visible, at: UInt64(step) * ms) == .run)
        }
    }

    @Test("a flood holds the frame at most half an interval: then turns yield until the marker runs")
    func starvationGuard() {
        var ledger = FrameLedger(interval: 16 * ms)
        ledger.beginFrame(at: 1_000 * ms)
        var now = 1_000 * ms
        var ran = 0
        // Results arrive back to back, half a millisecond each.
        while ledger.turn(priority: .visible, at: now) == .run {
            ran += 1
            now += ms / 2
        }
        #expect(ran == 16)                                         // 8 ms of them: half the frame
        #expect(now - 1_000 * ms == 8 * ms)
        #expect(ledger.turn(priority: .visible, at: now) == .yieldToFrame(starts: false))
        #expect(ledger.turn(priority: .visible, at: now + ms) == .yieldToFrame(starts: false))
        // The marker posted behind the waiting work runs (after the frame callback): turns run again.
        ledger.resumed(at: now + 2 * ms)
        #expect(ledger.turn(priority: .visible, at: now + 2 * ms) == .run)
        #expect(ledger.turn(priority: .visible, at: now + 7 * ms) == .run)                     // 5 ms since the marker
        // The next frame is due 16 ms after this one began, before the window's 8 ms are up: the turns yield to it.
        #expect(ledger.turn(priority: .visible, at: now + 8 * ms) == .yieldToFrame(starts: true))
    }

    @Test("a flood never holds a frame that is due; while it is late, turns run in slices of a millisecond")
    func dueFrameIsNotHeld() {
        var ledger = FrameLedger(interval: 16 * ms)
        ledger.beginFrame(at: 1_000 * ms)
        #expect(ledger.turn(priority: .visible, at: 1_008 * ms) == .yieldToFrame(starts: true))
        // The frame took 10 ms to paint; its marker ran after it.
        ledger.resumed(at: 1_010 * ms)
        #expect(ledger.turn(priority: .visible, at: 1_015 * ms) == .run)
        // The next frame is due at 1,016 ms, 2 ms before the window's half interval ends.
        #expect(ledger.turn(priority: .visible, at: 1_016 * ms) == .yieldToFrame(starts: true))
        // The marker ran before the frame came (its timer fires a little late): the frame is late, turns run a
        // millisecond at a time, so it waits at most that long once it is ready.
        ledger.resumed(at: 1_016 * ms + ms / 2)
        #expect(ledger.turn(priority: .visible, at: 1_017 * ms) == .run)
        #expect(ledger.turn(priority: .visible, at: 1_017 * ms + ms / 2) == .yieldToFrame(starts: true))
        ledger.resumed(at: 1_018 * ms)
        #expect(ledger.turn(priority: .visible, at: 1_018 * ms + ms / 2) == .run)
        #expect(ledger.turn(priority: .visible, at: 1_019 * ms) == .yieldToFrame(starts: true))
        // It came: the next window is half an interval again.
        ledger.beginFrame(at: 1_019 * ms + ms / 2)
        #expect(ledger.turn(priority: .visible, at: 1_027 * ms) == .run)
        #expect(ledger.turn(priority: .visible, at: 1_028 * ms) == .yieldToFrame(starts: true))
    }

    @Test("speculative results wait for the next frame after a quarter of it; visible ones use the rest")
    func speculativeInIdleTime() {
        var ledger = FrameLedger(interval: 16 * ms)
        ledger.beginFrame(at: 0 + 100 * ms)
        #expect(ledger.turn(priority: .prefetch, at: 103 * ms) == .run)
        #expect(ledger.turn(priority: .prefetch, at: 105 * ms) == .waitForNextFrame)
        #expect(ledger.turn(priority: .visible, at: 105 * ms) == .run)
        #expect(ledger.turn(priority: .normal, at: 107 * ms) == .run)
        #expect(ledger.turn(priority: .visible, at: 108 * ms) == .yieldToFrame(starts: true))
        ledger.beginFrame(at: 110 * ms)                          // the frame began before the yield's marker ran
        ledger.resumed(at: 111 * ms)
        #expect(ledger.turn(priority: .visible, at: 117 * ms) == .run)
        #expect(ledger.turn(priority: .visible, at: 118 * ms) == .yieldToFrame(starts: true))
        ledger.beginFrame(at: 126 * ms)
        #expect(ledger.turn(priority: .prefetch, at: 127 * ms) == .run)
    }

    @Test("when frames stop for four intervals the budget is off")
    func framesStop() {
        var ledger = FrameLedger(interval: 16 * ms)
        ledger.beginFrame(at: 100 * ms)
        #expect(ledger.framesActive(at: 163 * ms))
        #expect(!ledger.framesActive(at: 164 * ms))
        #expect(ledger.turn(priority: .prefetch, at: 170 * ms) == .run)
    }
}
