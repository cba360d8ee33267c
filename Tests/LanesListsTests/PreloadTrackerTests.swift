import Lanes
import LanesLists
import LanesTesting
import Testing

// `PhotoGrid` is the article's own ("A list that follows the user", "When the toolkit owns the list"), generated
// into Articles/AListThatFollowsTheUser.swift by scripts/check-snippets --update.

@Suite("Preload tracker (a toolkit's own list)", .timeLimit(.minutes(5)))
struct PreloadTrackerTests {
    /// Feeds `tracker` an offset every 10 ms, moving by `step` rows, `frames` times; returns the last answer.
    private func scroll(
        _ tracker: inout PreloadTracker, from offset: inout Double, time: inout UInt64, step: Double, frames: Int
    ) -> PreloadExtent {
        var extent = PreloadExtent(ahead: 0, behind: 0, direction: .forward)
        for _ in 0..<frames {
            time += 10_000_000
            offset += step
            extent = tracker.update(offset: offset, at: time, rowHeight: 1, viewportHeight: 20)
        }
        return extent
    }

    @Test("at rest and while jittering nothing is worth preloading")
    func restAndJitter() {
        var tracker = PreloadTracker(testPreload)
        var time: UInt64 = 1_000_000_000, offset = 100.0
        #expect(tracker.update(offset: offset, at: time, rowHeight: 1, viewportHeight: 20).isEmpty)
        for frame in 0..<100 {
            let extent = scroll(&tracker, from: &offset, time: &time, step: frame.isMultiple(of: 2) ? 1 : -1, frames: 1)
            #expect(extent.isEmpty)
        }
        #expect(tracker.speed == 0)
    }

    @Test("a steady scroll leans ahead in its direction, by its speed")
    func steadyScrollLeansAhead() {
        var tracker = PreloadTracker(testPreload)
        var time: UInt64 = 1_000_000_000, offset = 1_000.0
        _ = tracker.update(offset: offset, at: time, rowHeight: 1, viewportHeight: 20)
        // 1 row per 10 ms = 100 rows/s; a quarter second of lead = 25 rows, capped at two screens (40).
        let forward = scroll(&tracker, from: &offset, time: &time, step: 1, frames: 30)
        #expect(forward == PreloadExtent(ahead: 25, behind: 0, direction: .forward))
        #expect(forward.window(around: 1_030..<1_050, rowCount: 10_000) == 1_030..<1_075)
        #expect(abs(tracker.speed - 100) < 1)
        // The turn drops everything at once, then the new direction leans the other way.
        let turned = scroll(&tracker, from: &offset, time: &time, step: -1, frames: 1)
        #expect(turned.isEmpty)
        let backward = scroll(&tracker, from: &offset, time: &time, step: -1, frames: 30)
        #expect(backward.direction == .backward)
        #expect(backward.ahead == 25)
        #expect(backward.window(around: 1_000..<1_020, rowCount: 10_000) == 975..<1_020)
    }

    @Test("a jump drops the preload at once")
    func jumpDropsEverything() {
        var tracker = PreloadTracker(testPreload)
        var time: UInt64 = 1_000_000_000, offset = 0.0
        _ = tracker.update(offset: offset, at: time, rowHeight: 1, viewportHeight: 20)
        #expect(!scroll(&tracker, from: &offset, time: &time, step: 2, frames: 30).isEmpty)
        #expect(scroll(&tracker, from: &offset, time: &time, step: 5_000, frames: 1).isEmpty)
        #expect(tracker.speed == 0)
    }

    @Test("windows stay inside the list")
    func windowClamps() {
        let extent = PreloadExtent(ahead: 5, behind: 1, direction: .forward)
        #expect(extent.window(around: 10..<20, rowCount: 22) == 9..<22)
        #expect(PreloadExtent(ahead: 6, behind: 0, direction: .backward).window(around: 2..<10, rowCount: 100) == 0..<10)
        #expect(PreloadExtent(ahead: -3, behind: -1, direction: .forward).isEmpty)
        #expect(extent.window(around: 0..<0, rowCount: 0) == 0..<0)
    }

    @Test("the documented example runs as written")
    func documentedExample() {
        let clock = VirtualClock(start: 1_000_000_000)
        var scrollTop = 40.0
        var tracker = PreloadTracker()
        var extent = tracker.update(offset: scrollTop, at: clock.now, rowHeight: 1, viewportHeight: 20)
        #expect(extent.window(around: 40..<60, rowCount: 10_000) == 40..<60)
        for _ in 0..<20 {   // 100 rows a second for a fifth of a second: 0.05 s of lead is 5 rows
            clock.advance(by: .milliseconds(10))
            scrollTop += 1
            extent = tracker.update(offset: scrollTop, at: clock.now, rowHeight: 1, viewportHeight: 20)
        }
        #expect(extent.window(around: 60..<80, rowCount: 10_000) == 60..<85)
    }

    @MainActor
    @Test("the article's photo grid loads nothing beyond the screen at rest and leans ahead of a scroll")
    func articlePhotoGrid() {
        let grid = PhotoGrid()
        var now: UInt64 = 1_000_000_000
        grid.frame(scrollTop: 100, visible: 100..<120, rowCount: 10_000, now: now)
        #expect(grid.priority(for: 110, visible: 100..<120) == .visible)
        #expect(grid.priority(for: 121, visible: 100..<120) == nil)
        var top = 100.0
        for _ in 0..<30 {   // 200 rows a second for 0.3 s: 0.05 s of lead is 10 rows
            now += 10_000_000
            top += 2
            grid.frame(scrollTop: top, visible: Int(top)..<Int(top) + 20, rowCount: 10_000, now: now)
        }
        let visible = Int(top)..<Int(top) + 20
        #expect(grid.priority(for: visible.upperBound + 9, visible: visible) == .prefetch)
        #expect(grid.priority(for: visible.upperBound + 10, visible: visible) == nil)
        #expect(grid.priority(for: visible.lowerBound - 1, visible: visible) == nil)
    }
}
