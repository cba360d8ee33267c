import Lanes
import LanesLists
import LanesTesting
import Testing

/// The cost-aware plan for a list whose toolkit owns the geometry: a `PreloadTracker` told what a row costs plans as a
/// `ListModel` does (the one planner), on a virtual clock.
@MainActor
@Suite("Cost-aware preload tracker (a toolkit's own list)", .timeLimit(.minutes(5)))
struct PreloadTrackerPlanTests {
    /// What a list and a tracker said in one frame.
    private struct Frame: Equatable {
        var preload: [Int]
        var preloadPriority: WorkPriority
        var visiblePriorities: [WorkPriority]
        /// Rows between the screen and the first preloaded row ahead (0 when the plan skips none).
        var skipped: Int
    }

    /// Plays `path` (offset at t seconds) for `seconds`, a frame every 1/60 s, on a `ListModel` and on a tracker fed
    /// the model's offsets and visible rows, both planned against one estimate of `cost` seconds on `threads`
    /// threads; returns what each said in every frame.
    private func play(
        cost: Double, threads: Int, allThreads: Int, seconds: Double, path: (Double) -> Double
    ) -> (list: [Frame], tracker: [Frame]) {
        let clock = VirtualClock(start: 1_000_000_000)
        let list = ListModel(rowCount: 10_000, rowHeight: 1, viewportHeight: 20, clock: clock) { 0 }
        var tracker = PreloadTracker()
        let costs = CostEstimate()
        costs.record(seconds: cost)
        list.planPreload(costs: costs, threads: threads, allThreads: allThreads)
        tracker.planPreload(costs: costs, threads: threads, allThreads: allThreads)
        list.layoutIfNeeded()
        _ = tracker.update(offset: list.scrollOffset, at: clock.now, rowHeight: 1, viewportHeight: 20)
        var frames: (list: [Frame], tracker: [Frame]) = ([], [])
        let frame = 1.0 / 60
        var t = 0.0
        while t < seconds {
            t += frame
            clock.advance(by: .nanoseconds(Int64(frame * 1e9)))
            list.scroll(to: path(t))
            _ = tracker.update(offset: list.scrollOffset, at: clock.now, rowHeight: 1, viewportHeight: 20)
            let rows = tracker.preloadRows(around: list.visibleRows, rowCount: list.rowCount)
            let end = list.visibleRows.upperBound
            frames.list.append(Frame(
                preload: list.preloadRows, preloadPriority: list.preloadPriority,
                visiblePriorities: list.visibleRows.map { list.loadPriority(forRow: $0) },
                skipped: list.preloadRows.first.map { max(0, $0 - end) } ?? 0))
            frames.tracker.append(Frame(
                preload: Array(rows.above) + Array(rows.below), preloadPriority: tracker.preloadPriority,
                visiblePriorities: list.visibleRows.map { tracker.loadPriority(forRow: $0) },
                skipped: rows.below.isEmpty ? 0 : max(0, rows.below.lowerBound - end)))
        }
        return frames
    }

    @Test("along the bench's fling the tracker preloads the rows a list model plans, at the same priorities")
    func sameAsListModel() {
        for (threads, all) in [(1, 2), (2, 2)] {
            let (list, tracker) = play(
                cost: 0.003, threads: threads, allThreads: all, seconds: 3, path: PreloadPlanSimulation.fling)
            for (index, pair) in zip(list, tracker).enumerated() where pair.0 != pair.1 {
                Issue.record("threads \(threads)/\(all), frame \(index): list \(pair.0), tracker \(pair.1)")
                break
            }
            // The plan is at work: rows were preloaded, and in the flick the nearest ones were skipped.
            #expect(tracker.contains { !$0.preload.isEmpty })
            #expect(tracker.contains { $0.skipped > 0 })
        }
    }

    @Test("a scroll faster than rows can be ready: the nearest rows are skipped, visible rows load at utility")
    func skipsRowsThatCannotMakeIt() {
        // A render takes longer than a row stays on screen; 3,000 rows a second, steady.
        let (list, tracker) = play(cost: 0.02, threads: 1, allThreads: 1, seconds: 0.2) { 3_000 * $0 }
        #expect(list == tracker)
        let last = tracker.last!
        let firstPlanned = last.preload.first ?? 0
        let visibleEnd = 600 + 20   // the offset after 0.2 s, and the screen's rows
        #expect(firstPlanned > visibleEnd + 20)
        #expect(last.visiblePriorities.allSatisfy { $0 == .utility })
        #expect(last.preloadPriority == .normal)
    }

    @Test("rows it planned and the screen has not reached stay planned the next frame")
    func keepsPlannedRows() {
        let clock = VirtualClock(start: 1_000_000_000)
        var tracker = PreloadTracker()
        let costs = CostEstimate()
        costs.record(seconds: 0.02)
        tracker.planPreload(costs: costs, threads: 1)
        var offset = 0.0
        var rows = PreloadRows.empty
        for _ in 0..<13 {
            clock.advance(by: .milliseconds(16))
            offset += 48
            _ = tracker.update(offset: offset, at: clock.now, rowHeight: 1, viewportHeight: 20)
            rows = tracker.preloadRows(around: Int(offset)..<Int(offset) + 20, rowCount: 100_000)
        }
        let first = rows.below.lowerBound
        #expect(first > Int(offset) + 40)
        clock.advance(by: .milliseconds(16))
        offset += 48
        _ = tracker.update(offset: offset, at: clock.now, rowHeight: 1, viewportHeight: 20)
        let next = tracker.preloadRows(around: Int(offset)..<Int(offset) + 20, rowCount: 100_000)
        #expect(next.contains(first) || first < Int(offset) + 20)
        #expect(next.below.lowerBound <= first)
    }

    @Test("a grid's lines cost their columns: five photos a line outrun the threads where one does not")
    func itemsPerRow() {
        func plan(itemsPerRow: Int) -> (rows: PreloadRows, priority: WorkPriority) {
            let clock = VirtualClock(start: 1_000_000_000)
            var tracker = PreloadTracker()
            let costs = CostEstimate()
            costs.record(seconds: 0.008)
            tracker.planPreload(costs: costs, threads: 2, itemsPerRow: itemsPerRow)
            var offset = 0.0
            for _ in 0..<20 {   // 1,500 lines a second: a line past the screen leaves within a frame
                clock.advance(by: .nanoseconds(16_666_667))
                offset += 25
                _ = tracker.update(offset: offset, at: clock.now, rowHeight: 1, viewportHeight: 20)
            }
            let rows = tracker.preloadRows(around: Int(offset)..<Int(offset) + 20, rowCount: 100_000)
            return (rows, tracker.preloadPriority)
        }
        let list = plan(itemsPerRow: 1), grid = plan(itemsPerRow: 5)
        // One photo a line: 8 ms on two threads, ready within the frame the line is on screen.
        #expect(list.priority == .prefetch)
        #expect(!list.rows.isEmpty)
        // Five: three rounds of 8 ms, longer than a line stays: every thread, and only lines further out.
        #expect(grid.priority == .normal)
        #expect(grid.rows.below.lowerBound > list.rows.below.lowerBound)
    }

    @Test("without a cost estimate the tracker keeps the fixed lead, and the extent's window counts skipped rows")
    func withoutCostsAndWindow() {
        var tracker = PreloadTracker()
        tracker.planPreload(costs: CostEstimate(), threads: 2)   // no sample yet
        var time: UInt64 = 1_000_000_000, offset = 40.0
        var extent = tracker.update(offset: offset, at: time, rowHeight: 1, viewportHeight: 20)
        for _ in 0..<20 {
            time += 10_000_000
            offset += 1
            extent = tracker.update(offset: offset, at: time, rowHeight: 1, viewportHeight: 20)
        }
        #expect(extent == PreloadExtent(ahead: 5, behind: 0, direction: .forward))
        let rows = tracker.preloadRows(around: 60..<80, rowCount: 10_000)
        #expect(rows.above.isEmpty && rows.below == 80..<85)
        #expect(tracker.loadPriority(forRow: 70) == .visible)
        let skipping = PreloadExtent(ahead: 5, behind: 0, direction: .backward, skip: 3)
        #expect(skipping.window(around: 60..<80, rowCount: 100) == 52..<80)
    }
}
