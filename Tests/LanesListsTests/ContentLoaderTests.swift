import Lanes
import LanesLists
import LanesTesting
import Testing

@MainActor
@Suite("ContentLoader", .timeLimit(.minutes(5)))
struct ContentLoaderTests {
    @Test("requests for the same key share one item and all get the result")
    func dedupe() {
        let h = LoaderHarness()
        let results = Recorder<String>()
        h.loader.request("a") { results.append("1 " + ((try? $0.get()) ?? "-")) }
        h.loader.request("a", priority: .prefetch) { results.append("2 " + ((try? $0.get()) ?? "-")) }
        let cell = TestCell(id: 1, loader: h.loader)
        cell.content.show("a")
        #expect(h.loader.inFlightCount == 1)
        h.settle()
        #expect(h.ran.elements == ["a"])
        #expect(results.elements == ["1 v:a", "2 v:a"])
        #expect(cell.shown == ["v:a"])
        let stats = h.loader.stats
        #expect(stats.scheduled == 1)
        #expect(stats.joined == 2)
        #expect(stats.completed == 1)
        #expect(stats.deliveries == 3)
    }

    @Test("the item is cancelled only when the last requester leaves")
    func cancelOnLastRequester() {
        let h = LoaderHarness()
        let results = Recorder<String>()
        let first = h.loader.request("a") { _ in results.append("first") }
        let second = h.loader.request("a") { _ in results.append("second") }
        first.cancel()
        #expect(h.loader.inFlightCount == 1)
        #expect(second.isPending)
        h.settle()
        #expect(h.ran.elements == ["a"])
        #expect(results.elements == ["second"])

        let third = h.loader.request("b") { _ in results.append("third") }
        let fourth = h.loader.request("b") { _ in results.append("fourth") }
        third.cancel()
        fourth.cancel()
        fourth.cancel()   // twice is harmless
        #expect(h.loader.inFlightCount == 0)
        h.settle()
        #expect(h.ran.elements == ["a"])          // b never started
        #expect(results.elements == ["second"])
        #expect(h.loader.stats.cancelled == 1)
        #expect(!h.loader.cache.contains("b"))
    }

    @Test("the item's priority is the highest of its requesters', live")
    func livePriority() {
        let h = LoaderHarness()
        h.loader.prefetch(["a", "b", "c"])
        #expect(h.loader.inFlightPriority(of: "c") == .prefetch)
        let cell = TestCell(id: 1, loader: h.loader)
        cell.content.show("c")                              // the prefetched row became visible
        #expect(h.loader.inFlightPriority(of: "c") == .visible)
        let request = h.loader.request("b", priority: .utility) { _ in }
        #expect(h.loader.inFlightPriority(of: "b") == .prefetch && request.priority == .utility)
        request.setPriority(.normal)
        #expect(h.loader.inFlightPriority(of: "b") == .normal && request.priority == .normal)
        request.setPriority(.background)
        #expect(h.loader.inFlightPriority(of: "b") == .prefetch)
        h.workExecutor.runNext()
        #expect(h.ran.elements == ["c"])                    // promoted ahead of a and b
        cell.content.show("a")
        cell.content.setPriority(.prefetch)
        #expect(h.loader.inFlightPriority(of: "a") == .prefetch)
        cell.content.setPriority(.visible)
        #expect(h.loader.inFlightPriority(of: "a") == .visible)
        cell.content.clear()                                // the prefetch keeps it alive, demoted
        #expect(h.loader.inFlightPriority(of: "a") == .prefetch)
        h.settle()
        #expect(h.ran.elements.first == "c")
        #expect(h.ran.elements.sorted() == ["a", "b", "c"])
    }

    @Test("a cached value is delivered synchronously, without a queue hop")
    func synchronousCacheHit() {
        let h = LoaderHarness()
        h.loader.request("a") { _ in }
        h.settle()
        let cell = TestCell(id: 1, loader: h.loader)
        let pendingBefore = h.mainExecutor.pendingRunners
        #expect(cell.content.show("a"))
        #expect(cell.shown == ["v:a"])
        #expect(cell.placeholders.isEmpty)
        #expect(h.mainExecutor.pendingRunners == pendingBefore)
        let results = Recorder<String>()
        let request = h.loader.request("a") { results.append((try? $0.get()) ?? "-") }
        #expect(results.elements == ["v:a"])
        #expect(request.wasAnsweredFromCache && request.priority == nil)
        #expect(h.loader.stats.cacheHits == 2)
        #expect(h.ran.elements == ["a"])
    }

    @Test("failures are delivered but not cached, unless asked")
    func failures() {
        let h = LoaderHarness(failing: ["bad"])
        let cell = TestCell(id: 1, loader: h.loader)
        cell.content.show("bad")
        h.settle()
        #expect(cell.shown == ["error bad: TestFailure(key: \"bad\")"])
        cell.content.show("bad")   // already loaded (as a failure): nothing new
        cell.content.clear()
        cell.content.show("bad")   // not cached: tried again
        h.settle()
        #expect(h.ran.elements == ["bad", "bad"])
        #expect(h.loader.stats.failed == 2)

        let remembering = LoaderHarness(cachesFailures: true, failing: ["bad"])
        let other = TestCell(id: 2, loader: remembering.loader)
        other.content.show("bad")
        remembering.settle()
        other.content.clear()
        #expect(other.content.show("bad"))   // the failure is delivered synchronously this time
        #expect(remembering.ran.elements == ["bad"])
        #expect(other.shown.count == 2)
        remembering.loader.invalidate(clearingCache: true)
        other.content.clear()
        #expect(!other.content.show("bad"))
    }

    @Test("prefetch fills the cache; cancelPrefetch withdraws only the prefetch")
    func prefetch() {
        let h = LoaderHarness()
        h.loader.prefetch(["a", "b"])
        h.loader.prefetch(["a"])                 // already prefetching: nothing new
        #expect(h.loader.stats.scheduled == 2)
        let results = Recorder<String>()
        h.loader.request("b") { results.append((try? $0.get()) ?? "-") }
        h.loader.cancelPrefetch(["a", "b"])
        #expect(h.loader.inFlightPriority(of: "a") == nil)    // nobody else wanted a
        #expect(h.loader.inFlightPriority(of: "b") == .visible)
        h.settle()
        #expect(h.ran.elements == ["b"])
        #expect(results.elements == ["v:b"])
        h.loader.prefetch(["c"])
        h.settle()
        #expect(h.loader.cache.contains("c"))
        h.loader.prefetch(["c"])                 // cached: nothing to do
        #expect(h.loader.stats.scheduled == 3)
    }

    @Test("a cancelled request whose value was already on its way leaves it in the cache")
    func supersededValueGoesToCache() {
        let h = LoaderHarness()
        let results = Recorder<String>()
        let request = h.loader.request("a") { _ in results.append("a") }
        h.workExecutor.runAll()                  // done; its delivery waits on the main queue
        request.cancel()
        h.mainExecutor.runAll()
        #expect(results.elements.isEmpty)
        #expect(h.loader.cache["a"] == "v:a")
        #expect(h.loader.stats.staleDropped == 1)
    }

    @Test("an item cancelled behind the loader's back ends the job for everyone waiting, counted; the next request starts again")
    func externalCancellation() async throws {
        let h = LoaderHarness()
        let results = Recorder<String>()
        let first = h.loader.request("a") { results.append("1 " + ((try? $0.get()) ?? "cancelled")) }
        h.work.cancelAll()                       // someone cancelled the loader's queue
        try await h.waitForDeliveries(1)   // the cancellation, on its way
        h.settle()
        #expect(!first.isPending)
        #expect(results.elements == ["1 cancelled"])
        #expect(h.loader.inFlightCount == 0)
        #expect(h.loader.stats.cancelled == 1 && h.loader.stats.failed == 0)
        h.loader.request("a") { results.append("2 " + ((try? $0.get()) ?? "cancelled")) }
        h.settle()
        #expect(h.ran.elements == ["a"])
        #expect(results.elements == ["1 cancelled", "2 v:a"])
        #expect(h.loader.stats.scheduled == 2)
    }

    @Test("the cache keeps its exact cost limit while values arrive")
    func cacheLimitWhileLoading() {
        let h = LoaderHarness(costLimit: 10)     // values cost their length: "v:k0" is 4
        for index in 0..<10 { h.loader.prefetch(["k\(index)"]) }
        h.settle()
        #expect(h.loader.cache.totalCost <= 10)
        #expect(h.loader.cache.keysByRecency == ["k9", "k8"])
    }
}

@Suite("ContentLoader on the core's ownership", .timeLimit(.minutes(5)))
struct LoaderOwnershipTests {
    @Test("a request is a consumer in the core: it lends its priority to the chain, and a kept job outlives its last request and fills the cache")
    func keptJobOutlivesItsRequests() {
        let workExecutor = ManualExecutor(), mainExecutor = ManualExecutor()
        let fetches = WorkQueue("fetches", maxConcurrency: 1, executor: workExecutor)
        let renders = WorkQueue("renders", maxConcurrency: 1, executor: workExecutor)
        let main = WorkQueue("test-main", maxConcurrency: 1, executor: mainExecutor)
        let made = LockedValue<[WorkItem<String>]>([])
        let loader = ContentLoader<String, String>(deliveryQueue: main, cache: CostLimitedCache(costLimit: 10)) { key in
            let fetch = fetches.add(label: "fetch " + key, priority: .background) { _ in key }
            let render = renders.add(consuming: fetch, priority: .background) { value, _ in "v:" + value }
            made.withLock { $0.append(fetch) }
            return key == "kept" ? render.keep() : render
        }
        let dropped = loader.request("dropped", priority: .prefetch) { _ in }
        let kept = loader.request("kept", priority: .visible) { _ in }
        let (droppedFetch, keptFetch) = made.withLock { ($0[0], $0[1]) }
        #expect(droppedFetch.effectivePriority == .prefetch && keptFetch.effectivePriority == .visible)
        dropped.cancel()
        kept.cancel()
        #expect(droppedFetch.isCancelled && !keptFetch.isCancelled)
        #expect(loader.inFlightCount == 0 && loader.stats.cancelled == 2)
        while workExecutor.runAll() + mainExecutor.runAll() > 0 {}
        #expect(loader.cache["kept"] == "v:kept" && loader.cache["dropped"] == nil)
    }
}
