import Lanes
import LanesLists
import LanesTesting
import Testing

/// The quick tier sees the queue: bindings record how long rows on screen waited for their content, and the preload
/// asks for quick renderings when that wait, not a render's own time, would leave rows blank.
@MainActor
@Suite("Quick renderings chosen from the observed wait", .timeLimit(.minutes(5)))
struct QuickWaitTests {
    /// A tracker planned against 3 ms renders on two threads, after a second of scrolling at 30 rows a second (a
    /// virtual clock: one update a frame), the screen 20 rows high.
    private func scrolling(costs: CostEstimate) -> (tracker: PreloadTracker, top: Int) {
        var tracker = PreloadTracker()
        tracker.planPreload(costs: costs, threads: 1, allThreads: 2)
        var time: UInt64 = 1_000_000_000
        var offset = 0.0
        for _ in 0..<60 {
            tracker.update(offset: offset, at: time, rowHeight: 1, viewportHeight: 20)
            time += 16_666_667
            offset += 0.5
        }
        return (tracker, Int(offset - 0.5))
    }

    @Test("rows that waited longer than a frame lately: quick for the rows on screen, not for rows far ahead")
    func theQueuesWaitAsksForQuick() {
        let costs = CostEstimate()
        costs.record(seconds: 0.003)   // 3 ms a render: two threads render 666 rows a second, far above 30
        let (idle, top) = scrolling(costs: costs)
        // Judged by a render's time alone (the rule before the wait was observed), every row gets its content in time.
        #expect(!idle.wantsQuick(forRow: top + 19))
        #expect(!idle.wantsQuick(forRow: top + 21))

        costs.recordWait(seconds: 0.1)   // but the rows shown lately waited 100 ms: the threads' queue
        let (busy, _) = scrolling(costs: costs)
        #expect(busy.wantsQuick(forRow: top + 19))    // on screen: blank for 100 ms without a quick rendering
        #expect(busy.wantsQuick(forRow: top + 21))    // appears in ~33 ms: still blank for a while
        #expect(!busy.wantsQuick(forRow: top + 40))   // appears in ~0.66 s: its full content has time
    }

    @Test("a wait under a frame asks for nothing, and at rest nothing is asked")
    func aShortWaitOrRestAsksForNothing() {
        let costs = CostEstimate()
        costs.record(seconds: 0.003)
        costs.recordWait(seconds: 0.01)
        let (tracker, top) = scrolling(costs: costs)
        #expect(!tracker.wantsQuick(forRow: top + 19))

        let slow = CostEstimate()
        slow.record(seconds: 0.003)
        slow.recordWait(seconds: 0.5)
        var still = PreloadTracker()
        still.planPreload(costs: slow, threads: 1, allThreads: 2)
        still.update(offset: 100, at: 1_000_000_000, rowHeight: 1, viewportHeight: 20)
        still.update(offset: 100, at: 2_000_000_000, rowHeight: 1, viewportHeight: 20)
        #expect(!still.wantsQuick(forRow: 110))
    }

    @Test("a binding records the wait of a visible miss, not of a cache hit, a quick show or a prefetch")
    func bindingsRecordTheirWait() {
        let work = ManualExecutor(), main = ManualExecutor()
        let delivery = WorkQueue("test-main", maxConcurrency: 1, executor: main)
        let loader = ContentLoader<String, String>(
            queue: WorkQueue("full", maxConcurrency: 1, executor: work), deliveryQueue: delivery,
            cache: CostLimitedCache(costLimit: 100)) { key, _ in "full:" + key }
        let quick = ContentLoader<String, String>(
            queue: WorkQueue("quick", maxConcurrency: 1, executor: work), deliveryQueue: delivery,
            cache: CostLimitedCache(costLimit: 100)) { key, _ in "quick:" + key }
        var shown: [String] = []
        let binding = loader.binding(quick: quick, placeholder: { _ in }) { _, result in
            shown.append((try? result.get()) ?? "error")
        }
        func run() {
            work.runAll()
            main.runAll()
        }
        binding.show("a")
        run()
        #expect(shown == ["full:a"] && loader.costs.waits == 1 && loader.costs.wait != nil)

        binding.clear()
        binding.show("a")   // a cache hit: shown at once, no wait
        #expect(shown.last == "full:a" && loader.costs.waits == 1)

        binding.show("b", priority: .utility, quick: true)   // behind the quick renderings: its wait is chosen
        run()
        #expect(shown.last == "full:b" && loader.costs.waits == 1)

        binding.show("c", priority: .prefetch)
        run()
        #expect(shown.last == "full:c" && loader.costs.waits == 1)
    }
}
