import Lanes
import LanesLists
import LanesTesting
import Testing

/// A loader's cache emptied wholly or per key: the next request loads again, remembered failures go too, and a job in
/// flight is not disturbed (it is delivered and caches its value).
@MainActor
@Suite("ContentLoader cache removal", .timeLimit(.minutes(5)))
struct CacheRemovalTests {
    @Test("removeCachedValue(for:) forgets one key's value and failure; the others stay")
    func perKey() {
        let h = LoaderHarness(cachesFailures: true, failing: ["bad"])
        h.loader.prefetch(["a", "b", "bad"])
        h.settle()
        #expect(h.loader.cache.contains("a") && h.loader.cache.contains("b"))
        h.loader.removeCachedValue(for: "a")
        h.loader.removeCachedValue(for: "bad")
        #expect(!h.loader.cache.contains("a") && h.loader.cache.contains("b"))
        let results = Recorder<String>()
        h.loader.request("a") { results.append((try? $0.get()) ?? "-") }
        h.loader.request("b") { results.append((try? $0.get()) ?? "-") }      // from the cache, at once
        h.loader.request("bad") { results.append((try? $0.get()) ?? "failed") } // its failure was forgotten: tried again
        h.settle()
        #expect(h.ran.elements == ["a", "b", "bad", "a", "bad"])
        #expect(results.elements == ["v:b", "v:a", "failed"])
    }

    @Test("removeAllCachedValues() empties the cache but leaves the job in flight: it is delivered and cached")
    func allWithWorkInFlight() {
        let h = LoaderHarness()
        h.loader.prefetch(["a"])
        h.settle()
        let results = Recorder<String>()
        h.loader.request("b") { results.append((try? $0.get()) ?? "-") }
        h.loader.removeAllCachedValues()
        #expect(h.loader.cache.count == 0)
        #expect(h.loader.inFlightCount == 1)
        h.settle()
        #expect(results.elements == ["v:b"])
        #expect(h.loader.cache.contains("b") && !h.loader.cache.contains("a"))
        #expect(h.loader.stats.cancelled == 0)
    }
}
