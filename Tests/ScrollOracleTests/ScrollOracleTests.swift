import LanesTesting
import Testing
@testable import ScrollOracle

@Suite struct ScrollOracleTests {
    /// The most value any assignment of rows to slots (at most `threads` a slot, none before its release) covers.
    private func bruteForce(_ problem: SlotProblem) -> Int {
        var used = [Int](repeating: 0, count: problem.slotCount)
        func best(_ index: Int) -> Int {
            guard index < problem.jobs.count else { return 0 }
            let job = problem.jobs[index]
            var top = best(index + 1)   // not rendered
            for slot in job.release..<problem.slotCount where used[slot] < problem.threads {
                used[slot] += 1
                let covered = job.windows.filter { slot <= $0.lastSlot }.reduce(0) { $0 + $1.value }
                top = max(top, covered + best(index + 1))
                used[slot] -= 1
            }
            return top
        }
        return best(0)
    }

    /// A tiny random scroll: rows with one to three windows on a 10 ms grid.
    private func randomWindows(_ generator: inout some RandomNumberGenerator) -> [VisibilityWindow] {
        var windows: [VisibilityWindow] = []
        for row in 0..<Int.random(in: 1...4, using: &generator) {
            var time = Double(Int.random(in: 0...4, using: &generator)) * 0.01
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let end = time + Double(Int.random(in: 1...3, using: &generator)) * 0.01
                windows.append(VisibilityWindow(row: row, start: time, end: end, counted: true))
                time = end + Double(Int.random(in: 1...3, using: &generator)) * 0.01
            }
        }
        return windows
    }

    @Test("a row known at lift-off can be rendered before it shows; the same row known only on screen cannot")
    func knowledgeAtLiftOff() {
        // One thread, 10 ms renders: rows 0 and 1 are on screen from 0.02 s to 0.025 s only (shorter than a render).
        let windows = [0, 1].map { VisibilityWindow(row: $0, start: 0.02, end: 0.025, counted: true) }
        let reactive = ScrollOracle.plan(windows: windows, renderSeconds: 0.01, threads: 1, horizon: 0, origin: 0)
        #expect(reactive.unshown == 2)
        let ballistic = ScrollOracle.plan(windows: windows, renderSeconds: 0.01, threads: 1, horizon: 0, origin: 0,
                                          knownAt: [0: 0, 1: 0])
        #expect(ballistic.unshown == 0)
        let halfKnown = ScrollOracle.plan(windows: windows, renderSeconds: 0.01, threads: 1, horizon: 0, origin: 0,
                                          knownAt: [1: 0])
        #expect(halfKnown.unshown == 1)
    }

    @Test func theMatchingCoversAsMuchAsBruteForce() {
        var generator = SplitMix64(seed: 23)
        var checked = 0
        for _ in 0..<600 {
            let windows = randomWindows(&generator)
            let threads = Int.random(in: 1...2, using: &generator)
            let horizon = [0.0, 0.015, Double.infinity][Int.random(in: 0...2, using: &generator)]
            let problem = SlotProblem(windows: windows, renderSeconds: 0.01, threads: threads, horizon: horizon, origin: 0)
            guard problem.slotCount <= 14 else { continue }
            let oracle = ScrollOracle.plan(windows: windows, renderSeconds: 0.01, threads: threads, horizon: horizon, origin: 0)
            #expect(oracle.value == bruteForce(problem), "windows \(windows), threads \(threads), horizon \(horizon)")
            checked += 1
        }
        #expect(checked > 150, "only \(checked) instances were small enough to check")
    }

    @Test func earliestDeadlineFirstPlacementKeepsEveryChosenRowOnTimeAndWithinTheThreads() {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<200 {
            let windows = randomWindows(&generator)
            let problem = SlotProblem(windows: windows, renderSeconds: 0.01, threads: 1, horizon: 0.02, origin: 0)
            let options = problem.bestOptions()
            let slots = problem.placeEarliestDeadlineFirst(options)
            for (index, option) in options.enumerated() {
                guard let option else { continue }
                let job = problem.jobs[index]
                let slot = try! #require(slots[job.row])
                #expect(slot >= job.release && slot <= job.windows[option].lastSlot)
            }
            #expect(Dictionary(grouping: slots.values, by: { $0 }).values.allSatisfy { $0.count <= 1 })
        }
    }

    @Test func oneThreadShowsOnlyTheRowsItHasTimeFor() {
        // Three rows appear at once for 25 ms; renders take 10 ms on one thread, and nothing is known ahead: two fit.
        let windows = (0..<3).map { VisibilityWindow(row: $0, start: 0.1, end: 0.125, counted: true) }
        let blind = ScrollOracle.plan(windows: windows, renderSeconds: 0.01, threads: 1, horizon: 0, origin: 0)
        #expect(blind.unshown == 1)
        #expect(blind.renders == 2)
        #expect(blind.visibleToShownMilliseconds.map { ($0 * 10).rounded() / 10 }.sorted() == [10, 20])
        // Knowing the path from the start, all three are ready before they appear.
        let clairvoyant = ScrollOracle.plan(windows: windows, renderSeconds: 0.01, threads: 1, horizon: .infinity, origin: 0)
        #expect(clairvoyant.unshown == 0)
        #expect(clairvoyant.visibleToShownMilliseconds == [0, 0, 0])
    }

    @Test func aRowSeenTwiceIsRenderedOnceForBoth() {
        // The row flashes by too fast to show, then comes back: one render covers the return.
        let windows = [
            VisibilityWindow(row: 5, start: 0, end: 0.005, counted: true),
            VisibilityWindow(row: 5, start: 0.05, end: 0.2, counted: true),
        ]
        let oracle = ScrollOracle.plan(windows: windows, renderSeconds: 0.01, threads: 1, horizon: 0, origin: 0)
        #expect(oracle.renders == 1)
        #expect(oracle.unshown == 1)
        #expect(oracle.visibleToShownMilliseconds == [0])
    }

    @Test func theFirstLayoutIsRenderedButNotCounted() {
        let windows = [
            VisibilityWindow(row: 0, start: 0, end: 0.015, counted: false),
            VisibilityWindow(row: 1, start: 0, end: 0.015, counted: true),
        ]
        let oracle = ScrollOracle.plan(windows: windows, renderSeconds: 0.01, threads: 1, horizon: 0, origin: 0)
        #expect(oracle.slots[0] == 0)   // the first layout first, though only row 1 counts
        #expect(oracle.unshown == 1)
    }

    @Test func aJumpWithoutLookAheadWaitsForTheRendersAndWithLookAheadDoesNot() {
        // 20 rows on screen, then a jump at 1 s to 20 unseen rows for 0.1 s, on two threads of 3 ms renders.
        var frames: [(time: Double, rows: Range<Int>, counted: Bool)] = [(0, 0..<20, false)]
        for frame in 1...12 { frames.append((Double(frame) / 12, 0..<20, true)) }
        for frame in 0...6 { frames.append((1 + Double(frame) / 60, 5_000..<5_020, true)) }
        frames.append((1.11, 0..<20, true))
        let windows = VisibilityWindow.windows(frames: frames)
        let reactive = ScrollOracle.plan(windows: windows, renderSeconds: 0.003, threads: 2, horizon: 0, origin: 0)
        #expect(reactive.unshown == 0)
        #expect(reactive.visibleToShownMilliseconds.filter { $0 > 0 }.count == 20)
        // Ten rounds of two renders, on render-long slots from the origin (a release rounds up to the next slot).
        #expect((30...33).contains(reactive.visibleToShownMilliseconds.max() ?? 0))
        let ahead = ScrollOracle.plan(windows: windows, renderSeconds: 0.003, threads: 2, horizon: 0.5, origin: 0)
        #expect(ahead.visibleToShownMilliseconds.allSatisfy { $0 == 0 })
    }

    @Test func windowsFollowTheFrames() {
        let windows = VisibilityWindow.windows(frames: [
            (0, 0..<2, false), (1, 1..<3, true), (2, 0..<2, true),
        ])
        #expect(windows == [
            VisibilityWindow(row: 0, start: 0, end: 1, counted: false),
            VisibilityWindow(row: 1, start: 0, end: .infinity, counted: false),
            VisibilityWindow(row: 2, start: 1, end: 2, counted: true),
            VisibilityWindow(row: 0, start: 2, end: .infinity, counted: true),
        ])
    }
}
