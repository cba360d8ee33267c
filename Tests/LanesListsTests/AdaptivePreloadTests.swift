import Lanes
import LanesLists
import LanesTesting
import Testing

/// A quarter second of travel ahead, at most two screens, at any speed (round figures for the tests).
let testPreload: AdaptivePreload = {
    var preload = AdaptivePreload()
    preload.lead = 0.25
    preload.maxAhead = 2
    preload.maxSpeed = .infinity
    return preload
}()

/// A list with an adaptive preload on a virtual clock: scrolls are timed by the test, so speeds are exact.
@MainActor
private final class Scroller {
    let clock = VirtualClock(start: 1_000_000_000)
    let list: ListModel<Int>
    var events: [ListEvent<Int>] = []

    init(rows: Int = 10_000, viewport: Double = 20, preload: AdaptivePreload = testPreload) {
        var next = 0
        list = ListModel(rowCount: rows, rowHeight: 1, viewportHeight: viewport, preload: .adaptive(preload), clock: clock) {
            next += 1
            return next
        }
        list.observe { [unowned self] event in events.append(event) }
        list.layoutIfNeeded()
    }

    /// Scrolls by `rows` every `milliseconds`, `frames` times.
    func move(by rows: Double, everyMilliseconds milliseconds: Int = 10, frames: Int) {
        for _ in 0..<frames {
            clock.advance(by: .milliseconds(milliseconds))
            list.scroll(by: rows)
        }
    }

    /// Rows entering the preload range since the last call.
    func takeEvents() -> [ListEvent<Int>] {
        defer { events = [] }
        return events
    }
}

private func preloads(_ events: [ListEvent<Int>]) -> [Int] {
    events.compactMap { if case .enterPreload(let row) = $0 { row } else { nil } }
}

@MainActor
@Suite("Adaptive preload", .timeLimit(.minutes(5)))
struct AdaptivePreloadTests {
    @Test("nothing is speculative at rest or while the user jitters")
    func jitterPreloadsNothing() {
        let s = Scroller()
        #expect(s.list.preloadRows.isEmpty)
        for frame in 0..<200 { s.move(by: frame.isMultiple(of: 2) ? 1 : -1, everyMilliseconds: 8, frames: 1) }
        #expect(preloads(s.takeEvents()).isEmpty)
        #expect(s.list.preloadRows.isEmpty)
        #expect(s.list.preloadSpeed == 0)
    }

    @Test("a steady scroll leans ahead in proportion to its speed, nothing behind, at most maxAhead screens")
    func leansAheadWithSpeed() {
        let slow = Scroller()
        slow.move(by: 1, frames: 30)                  // 100 rows/s: a quarter second ahead is 25 rows
        #expect(slow.list.preloadSpeed == 100)
        #expect(slow.list.preloadRows == Array(slow.list.visibleRows.upperBound..<slow.list.visibleRows.upperBound + 25))

        let slower = Scroller()
        slower.move(by: 0.4, frames: 30)              // 40 rows/s: 10 rows
        #expect(slower.list.preloadRows.count == 10)
        #expect(slower.list.preloadRows.first == slower.list.visibleRows.upperBound)

        let fast = Scroller()
        fast.move(by: 20, frames: 30)                 // 2,000 rows/s: capped at two screens
        #expect(fast.list.preloadRows.count == 40)
        #expect(fast.list.preloadRows.allSatisfy { $0 >= fast.list.visibleRows.upperBound })
    }

    @Test("a fling that slows down pulls its preload range back in")
    func deceleratingFlingShrinks() {
        let s = Scroller()
        s.move(by: 10, frames: 20)                    // 1,000 rows/s
        #expect(s.list.preloadRows.count == 40)
        s.move(by: 0.2, frames: 20)                   // 20 rows/s: 5 rows
        #expect(s.list.preloadRows.count == 5)
        let events = s.takeEvents()
        #expect(events.contains(.leavePreload(row: s.list.visibleRows.upperBound + 30)))
    }

    @Test("a change of direction withdraws the rows ahead at once and preloads nothing until the motion is steady")
    func directionChange() {
        let s = Scroller()
        s.list.scroll(to: 5_000)
        s.move(by: 1, frames: 30)
        let ahead = s.list.preloadRows
        #expect(ahead.count == 25)
        _ = s.takeEvents()
        s.move(by: -1, frames: 1)                     // the user turns
        #expect(s.list.preloadRows.isEmpty)
        let turned = s.takeEvents()
        for row in ahead { #expect(turned.contains(.leavePreload(row: row))) }
        #expect(preloads(turned).isEmpty)
        s.move(by: -1, frames: 9)                     // 90 ms of steady motion back: still settling
        #expect(s.list.preloadRows.isEmpty)
        s.move(by: -1, frames: 2)                     // past the settle time: leans the new way
        #expect(!s.list.preloadRows.isEmpty)
        #expect(s.list.preloadRows.allSatisfy { $0 < s.list.visibleRows.lowerBound })
        #expect(s.list.direction == .backward)
    }

    @Test("a jump drops every speculative row in the same update and preloads nothing around the new place")
    func jumpDropsAtOnce() {
        let s = Scroller()
        s.move(by: 10, frames: 20)
        let speculative = s.list.preloadRows
        #expect(speculative.count == 40)
        _ = s.takeEvents()
        s.clock.advance(by: .milliseconds(10))
        s.list.scroll(to: 8_000)
        let events = s.takeEvents()
        #expect(s.list.preloadRows.isEmpty)
        #expect(preloads(events).isEmpty)
        #expect(events.filter { if case .leavePreload = $0 { true } else { false } }.count == speculative.count)
        s.move(by: 0, frames: 5)                      // holding still after the jump: still nothing
        #expect(s.list.preloadRows.isEmpty)
    }

    @Test("in every update visible rows come before speculative ones")
    func visibleEventsFirst() {
        let s = Scroller()
        s.move(by: 1, frames: 30)
        _ = s.takeEvents()
        s.move(by: 3, frames: 1)
        let events = s.takeEvents()
        let lastDisplay = events.lastIndex { if case .willDisplay = $0 { true } else { false } }!
        let firstPreload = events.firstIndex { if case .enterPreload = $0 { true } else { false } }!
        #expect(lastDisplay < firstPreload)
    }

    @Test("the defaults: 0.05 s of travel ahead, at most a screen, nothing above 20 screens a second")
    func defaults() {
        let s = Scroller(preload: AdaptivePreload())
        s.move(by: 1, frames: 30)                     // 100 rows/s (5 screens/s): 5 rows
        #expect(s.list.preloadRows.count == 5)
        s.move(by: 3, frames: 30)                     // 300 rows/s: 15 rows
        #expect(s.list.preloadRows.count == 15)
        s.move(by: 5, frames: 30)                     // 500 rows/s, 25 screens/s: rows fly past, nothing ahead
        #expect(s.list.preloadRows.isEmpty)
        #expect(s.list.preloadSpeed == 500)
        s.move(by: 0.4, frames: 20)                   // slowed to 40 rows/s: 2 rows
        #expect(s.list.preloadRows.count == 2)
    }

    @Test("a ListModel made without a preload argument follows the user: the adaptive preload is the default")
    func defaultIsAdaptive() {
        let clock = VirtualClock(start: 1_000_000_000)
        let list = ListModel(rowCount: 10_000, rowHeight: 1, viewportHeight: 20, clock: clock) { 0 }
        #expect(list.preload == .adaptive(AdaptivePreload()))
        #expect(ListPreload.adaptive() == list.preload)
        var entered: [Int] = []
        list.observe { event in if case .enterPreload(let row) = event { entered.append(row) } }
        list.layoutIfNeeded()
        #expect(list.visibleRows == 0..<20)
        #expect(list.preloadRows.isEmpty)             // at rest: nothing speculative (the fixed default took 20..<45)
        for frame in 0..<100 {                        // ±1 row every 8 ms
            clock.advance(by: .milliseconds(8))
            list.scroll(by: frame.isMultiple(of: 2) ? 1 : -1)
        }
        #expect(entered.isEmpty)
        for _ in 0..<30 {                             // a steady 100 rows/s: 0.05 s ahead is 5 rows, nothing behind
            clock.advance(by: .milliseconds(10))
            list.scroll(by: 1)
        }
        let end = list.visibleRows.upperBound
        #expect(list.preloadRows == Array(end..<end + 5))
        #expect(list.preloadSpeed == 100)
        clock.advance(by: .milliseconds(10))
        list.scroll(to: 8_000)                        // a jump: dropped at once
        #expect(list.preloadRows.isEmpty)
        clock.advance(by: .seconds(1))
        list.scroll(by: 0)                            // and still nothing once the list rests there
        #expect(list.preloadRows.isEmpty)
    }

    @Test("switching between fixed and adaptive preload")
    func switching() {
        let s = Scroller()
        s.list.setPreload(.fixed(ahead: 1, behind: 0))
        #expect(s.list.preload == .fixed(ahead: 1, behind: 0))
        #expect(s.list.preloadRows.count == 20)
        s.list.setPreload(.adaptive(testPreload))
        #expect(s.list.preload == .adaptive(testPreload))
        #expect(s.list.preloadRows.isEmpty)
        s.move(by: 1, frames: 30)
        #expect(s.list.preloadRows.count == 25)
    }
}
