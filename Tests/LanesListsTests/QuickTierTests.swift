import Lanes
import LanesLists
import LanesTesting
import Testing

/// A binding with a quick tier: the cheaper rendering first for a row that asks for it, then the full one — never
/// the reverse, never another key's — and a cached quick rendering instead of the placeholder.
@MainActor
@Suite("Content bindings with a quick tier", .timeLimit(.minutes(5)))
struct QuickTierTests {
    @MainActor final class Setup {
        let full = ManualExecutor(), fast = ManualExecutor(), main = ManualExecutor()
        let loader: ContentLoader<String, String>
        let quick: ContentLoader<String, String>
        let ran = Recorder<String>()
        var shown: [String] = []
        var placeholders = 0
        var binding: ContentBinding<String, String>!

        /// A list of 10,000 rows, 20 on screen, whose rows bind to the loader with the quick tier.
        func list(clock: VirtualClock) -> ListModel<QuickRow> {
            let list = ListModel(rowCount: 10_000, rowHeight: 1, viewportHeight: 20, clock: clock) { QuickRow() }
            list.connect(to: loader, quick: quick, key: { "\($0)" }) { [loader, quick] row in
                if row.content == nil { row.content = loader.binding(quick: quick, placeholder: { _ in }) { _, _ in } }
                return row.content!
            }
            return list
        }

        init() {
            let delivery = WorkQueue("test-main", maxConcurrency: 1, executor: main)
            let ran = self.ran
            loader = ContentLoader(queue: WorkQueue("full", maxConcurrency: 1, executor: full), deliveryQueue: delivery,
                                   cache: CostLimitedCache(costLimit: 100)) { key, _ in
                ran.append("full " + key)
                return "full:" + key
            }
            quick = ContentLoader(queue: WorkQueue("quick", maxConcurrency: 1, executor: fast), deliveryQueue: delivery,
                                  cache: CostLimitedCache(costLimit: 100)) { key, _ in
                ran.append("quick " + key)
                return "quick:" + key
            }
            binding = loader.binding(quick: quick, placeholder: { [unowned self] _ in placeholders += 1 }) {
                [unowned self] _, result in shown.append((try? result.get()) ?? "error")
            }
        }

        func run(_ executor: ManualExecutor) {
            executor.runAll()
            main.runAll()
        }
    }

    @Test("quick first, then full; the binding says which it shows")
    func quickThenFull() {
        let s = Setup()
        s.binding.show("a", priority: .utility, quick: true)
        #expect(s.placeholders == 1 && s.shown.isEmpty)
        s.run(s.fast)
        #expect(s.shown == ["quick:a"] && s.binding.isShowingQuick && !s.binding.isLoaded)
        s.run(s.full)
        #expect(s.shown == ["quick:a", "full:a"] && !s.binding.isShowingQuick && s.binding.isLoaded)
    }

    @Test("the full content first: the quick rendering is withdrawn and never shown after it")
    func neverTheReverse() {
        let s = Setup()
        s.binding.show("a", priority: .utility, quick: true)
        s.run(s.full)
        #expect(s.shown == ["full:a"])
        s.run(s.fast)
        #expect(s.shown == ["full:a"])
        #expect(!s.ran.elements.contains("quick a"))   // withdrawn before it started
    }

    @Test("a reused cell never shows the old row's quick rendering")
    func neverAnotherKeys() {
        let s = Setup()
        s.binding.show("a", priority: .utility, quick: true)
        s.binding.show("b")
        s.run(s.fast)
        s.run(s.full)
        #expect(s.shown == ["full:b"])
    }

    @Test("a list outpacing its threads prefetches quick renderings; at a walking pace, full ones")
    func listPrefetchesQuick() {
        let s = Setup()
        let clock = VirtualClock(start: 1_000_000_000)
        let list = s.list(clock: clock)
        s.loader.costs.record(seconds: 0.003)   // one thread renders about 333 rows a second
        list.layoutIfNeeded()
        list.liftOff(ScrollPrediction(velocity: 2_000, timeConstant: 0.3))
        clock.advance(by: .milliseconds(16))
        list.scroll(to: 30)
        #expect(s.quick.inFlightCount > 0)
        let quickPrefetched = s.quick.inFlightCount
        s.full.runAll()
        s.fast.runAll()
        s.main.runAll()
        // Long after, at rest, then walking: full renderings ahead, no quick ones.
        list.touchDown()
        clock.advance(by: .seconds(2))
        for step in 1...30 {
            clock.advance(by: .milliseconds(16))
            list.scroll(to: 30 + Double(step) * 0.5)
        }
        #expect(!list.wantsQuick(forRow: 50))
        #expect(quickPrefetched >= 10)
    }

    @Test("a row displayed while the list outpaces its threads loads its full content at normal when it can make it")
    func fullWaitsBehindQuick() {
        let s = Setup()
        let clock = VirtualClock(start: 1_000_000_000)
        let list = s.list(clock: clock)
        s.loader.costs.record(seconds: 0.003)
        list.layoutIfNeeded()
        list.liftOff(ScrollPrediction(velocity: 2_000, timeConstant: 0.3))
        clock.advance(by: .milliseconds(16))
        list.scroll(to: 30)
        // Row 45 came on screen while the list outpaced the threads: its quick rendering at visible priority. The
        // plan says its full content can still be ready before it leaves, so that loads at normal (level with the
        // quick renderings of the rows coming next), not at utility behind every quick rendering and preload.
        #expect(list.wantsQuick(forRow: 45))
        #expect(s.quick.inFlightPriority(of: "45") == .visible)
        #expect(list.loadPriority(forRow: 45) == .visible)
        #expect(s.loader.inFlightPriority(of: "45") == .normal)
        // A displayed row whose full content cannot be ready before it leaves still loads it at utility.
        for row in 30..<50 where list.loadPriority(forRow: row) == .utility {
            #expect(s.loader.inFlightPriority(of: "\(row)") ?? .utility == .utility)
        }
    }

    @Test("a fast fling skips none of the rows coming next: quick renderings from the screen on, at normal")
    func quickFromTheScreenOn() throws {
        let s = Setup()
        let clock = VirtualClock(start: 1_000_000_000)
        let list = s.list(clock: clock)
        s.loader.costs.record(seconds: 0.003)   // one thread: 333 full renderings a second
        s.quick.costs.record(seconds: 0.0003)   // ten times as many quick ones
        list.layoutIfNeeded()
        list.liftOff(ScrollPrediction(velocity: 2_000, timeConstant: 0.3))
        clock.advance(by: .milliseconds(16))
        list.scroll(to: 30)
        // The rows right below the screen (30..<50) appear within frames: too close for their full content, and
        // the plan used to skip them for rows it could render in full further on, leaving them blank on their
        // first frame. Now each gets its quick rendering, queued level with the full content of displayed rows.
        #expect(list.preloadRows.first == 50)
        for row in 50..<80 {
            #expect(list.wantsQuick(forRow: row))
            #expect(s.quick.inFlightPriority(of: "\(row)") == .normal, "row \(row)")
        }
        // They run nearest first: a fling caught here finds the rows it stops on ready.
        s.fast.runAll()
        let ran = s.ran.elements
        let next = try #require(ran.firstIndex(of: "quick 50"))
        let later = try #require(ran.firstIndex(of: "quick 79"))
        #expect(next < later)
    }

    @Test("a cached quick rendering replaces the placeholder at once; no quick work without asking")
    func cachedQuickInsteadOfPlaceholder() {
        let s = Setup()
        s.quick.cache.insert("quick:c", forKey: "c")
        s.binding.show("c")
        #expect(s.placeholders == 0 && s.shown == ["quick:c"] && s.binding.isShowingQuick)
        s.binding.show("d")
        s.run(s.fast)
        #expect(s.placeholders == 1 && !s.ran.elements.contains("quick d"))
        s.run(s.full)
        #expect(s.shown == ["quick:c", "full:d"])
    }
}

/// A list row holding its content binding (QuickTierTests' lists).
@MainActor final class QuickRow { var content: ContentBinding<String, String>? }
