import LanesLists
import LanesTesting
import Testing

@Suite("CostLimitedCache", .timeLimit(.minutes(5)))
struct CostLimitedCacheTests {
    @Test("evicts least recently used entries to fit the cost limit")
    func lruEviction() {
        let cache = CostLimitedCache<String, Int>(costLimit: 10) { $0 }
        cache["a"] = 4
        cache["b"] = 4
        #expect(cache["a"] == 4)          // a is now more recent than b
        cache["c"] = 4                    // 12 > 10: b goes
        #expect(cache.keysByRecency == ["c", "a"])
        #expect(cache.totalCost == 8)
        #expect(!cache.contains("b"))
        #expect(cache.statistics.evictions == 1)
    }

    @Test("a value costing more than the limit is not stored and replaces nothing")
    func oversized() {
        let cache = CostLimitedCache<String, Int>(costLimit: 10) { $0 }
        cache["a"] = 3
        #expect(cache.insert(11, forKey: "a") == false)
        #expect(cache["a"] == nil)
        #expect(cache.totalCost == 0)
        #expect(cache.insert(10, forKey: "b"))
        #expect(cache.totalCost == 10)
    }

    @Test("lowering the limits evicts at once; the count limit holds too")
    func limits() {
        let cache = CostLimitedCache<Int, Int>(costLimit: 100, countLimit: 3) { $0 }
        for key in 0..<5 { cache[key] = 10 }
        #expect(cache.keysByRecency == [4, 3, 2])
        cache.costLimit = 15
        #expect(cache.keysByRecency == [4])
        #expect(cache.totalCost == 10)
        cache.removeAll()
        #expect(cache.count == 0 && cache.totalCost == 0)
    }

    @Test("touch refreshes recency without counting a hit")
    func touch() {
        let cache = CostLimitedCache<String, Int>(costLimit: 2)
        cache["a"] = 1
        cache["b"] = 1
        #expect(cache.touch("a"))
        #expect(!cache.touch("z"))
        cache["c"] = 1
        #expect(cache.keysByRecency == ["c", "a"])
        #expect(cache.statistics.hits == 0)
    }

    @Test("the cost limit is exact under churn: same contents and order as a reference LRU")
    func churnMatchesReference() {
        let limit = 100
        let cache = CostLimitedCache<Int, Int>(costLimit: limit) { $0 }
        var reference: [(key: Int, cost: Int)] = []   // most recent first
        var random = SplitMix64(seed: 42)
        for step in 0..<20_000 {
            let key = Int(random.next() % 40)
            switch random.next() % 10 {
            case 0..<5:
                let cost = Int(random.next() % 35)
                cache.insert(cost, forKey: key)
                reference.removeAll { $0.key == key }
                reference.insert((key, cost), at: 0)
                while reference.reduce(0, { $0 + $1.cost }) > limit { reference.removeLast() }
            case 5..<8:
                let value = cache[key]
                let index = reference.firstIndex { $0.key == key }
                #expect(value == index.map { reference[$0].cost })
                if let index { reference.insert(reference.remove(at: index), at: 0) }
            default:
                cache.removeValue(forKey: key)
                reference.removeAll { $0.key == key }
            }
            let total = cache.totalCost
            #expect(total <= limit)
            if step % 97 == 0 || total != reference.reduce(0, { $0 + $1.cost }) {
                #expect(cache.keysByRecency == reference.map(\.key))
                #expect(total == reference.reduce(0, { $0 + $1.cost }))
            }
        }
    }

    @Test("the cost limit holds at every moment with writers on several threads")
    func concurrentChurn() async {
        let limit = 1_000
        let cache = CostLimitedCache<Int, Int>(costLimit: limit) { $0 }
        let overLimit = Recorder<Int>()
        let writers = 4
        // Each writer on a thread of its own: on `DispatchQueue.global()` they would hold Swift's executor threads.
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    await onDedicatedThread {
                        var random = SplitMix64(seed: UInt64(writer + 1))
                        for _ in 0..<5_000 {
                            let key = Int(random.next() % 200)
                            if random.next() % 3 == 0 {
                                cache.removeValue(forKey: key)
                            } else {
                                cache.insert(Int(random.next() % 120), forKey: key)
                            }
                            let total = cache.totalCost
                            if total > limit { overLimit.append(total) }
                        }
                    }
                }
            }
        }
        #expect(overLimit.elements.isEmpty)
        let keys = cache.keysByRecency
        #expect(keys.count == cache.count)
        let sum = keys.reduce(0) { $0 + (cache[$1] ?? 0) }
        #expect(sum == cache.totalCost)
    }
}
