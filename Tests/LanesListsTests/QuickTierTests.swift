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
