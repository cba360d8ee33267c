import Foundation
import LanesImages
import LanesTesting
import Testing

@Suite(.timeLimit(.minutes(5)), .heavy) struct DiskCacheBasicTests {
    @Test func roundTripCountsAndSizes() throws {
        try DiskTestSupport.withDirectory { directory in
            let cache = try DiskCache(directory: directory.appendingPathComponent("nested/images"), sizeLimit: 1 << 20)
            let key = "https://example.com/photos/ünïcode 1.png?size=large"
            let payload = DiskTestSupport.bytes(10_000, seed: 1)
            #expect(cache.data(forKey: key) == nil)
            #expect(!cache.contains(key))

            try cache.store(payload, forKey: key)
            #expect(cache.data(forKey: key) == payload)
            #expect(cache.contains(key))
            #expect(!cache.contains(key + "#other"))
            #expect(cache.count == 1)
            let file = try #require(cache.fileURL(forKey: key))
            #expect(try DiskTestSupport.size(of: file) == cache.totalSize)
            #expect(cache.totalSize == payload.count + 36 + key.utf8.count)

            var expected = DiskCacheStatistics()
            expected.hits = 1
            expected.misses = 1
            expected.stores = 1
            #expect(cache.statistics == expected)
        }
    }

    @Test func replacingAKeyKeepsOneFileAndTheNewData() throws {
        try DiskTestSupport.withDirectory { directory in
            let cache = try DiskCache(directory: directory, sizeLimit: 1 << 20)
            try cache.store(DiskTestSupport.bytes(5_000, seed: 1), forKey: "k")
            let newer = DiskTestSupport.bytes(700, seed: 2)
            try cache.store(newer, forKey: "k")
            #expect(cache.data(forKey: "k") == newer)
            #expect(cache.count == 1)
            #expect(cache.totalSize == 700 + 36 + 1)
            #expect(DiskTestSupport.files(in: directory).count == 1)
        }
    }

    @Test func emptyPayloadRoundTrips() throws {
        try DiskTestSupport.withDirectory { directory in
            let cache = try DiskCache(directory: directory, sizeLimit: 1 << 20)
            try cache.store(Data(), forKey: "empty")
            #expect(cache.data(forKey: "empty") == Data())
        }
    }

    @Test func oversizeEntryIsRefusedAndTheOldValueRemoved() throws {
        try DiskTestSupport.withDirectory { directory in
            let cache = try DiskCache(directory: directory, sizeLimit: 1_000)
            try cache.store(DiskTestSupport.bytes(100, seed: 1), forKey: "big")
            try cache.store(DiskTestSupport.bytes(100, seed: 2), forKey: "other")
            #expect(throws: DiskCacheError.entryTooLarge(size: 2_000 + 36 + 3, limit: 1_000)) {
                try cache.store(DiskTestSupport.bytes(2_000, seed: 3), forKey: "big")
            }
            #expect(cache.data(forKey: "big") == nil)
            #expect(cache.data(forKey: "other") == DiskTestSupport.bytes(100, seed: 2))
            #expect(cache.count == 1)
            #expect(cache.statistics.evictions == 0)
            #expect(DiskTestSupport.files(in: directory).count == 1)
        }
    }

    @Test func removeAllDeletesEveryEntryButNotForeignFiles() throws {
        try DiskTestSupport.withDirectory { directory in
            let cache = try DiskCache(directory: directory, sizeLimit: 1 << 20)
            let foreign = directory.appendingPathComponent("README.txt")
            try Data("keep me".utf8).write(to: foreign)
            for i in 0..<5 { try cache.store(DiskTestSupport.bytes(300, seed: UInt64(i)), forKey: "key \(i)") }
            #expect(cache.count == 5)

            cache.removeAll()
            #expect(cache.count == 0)
            #expect(cache.totalSize == 0)
            #expect(cache.data(forKey: "key 3") == nil)
            #expect(DiskTestSupport.files(in: directory) == ["README.txt"])

            try cache.store(DiskTestSupport.bytes(10, seed: 9), forKey: "key 3")
            #expect(cache.data(forKey: "key 3") == DiskTestSupport.bytes(10, seed: 9))
        }
    }

    @Test func removeDataDeletesOneEntry() throws {
        try DiskTestSupport.withDirectory { directory in
            let cache = try DiskCache(directory: directory, sizeLimit: 1 << 20)
            try cache.store(Data([1, 2, 3]), forKey: "a")
            try cache.store(Data([4, 5, 6]), forKey: "b")
            cache.removeData(forKey: "a")
            cache.removeData(forKey: "never stored")
            #expect(cache.data(forKey: "a") == nil)
            #expect(cache.data(forKey: "b") == Data([4, 5, 6]))
            #expect(cache.count == 1)
            #expect(DiskTestSupport.files(in: directory).count == 1)
        }
    }

    @Test func leastRecentlyUsedIsEvictedAndReadsCount() throws {
        try DiskTestSupport.withDirectory { directory in
            let entry = 36 + 5 + 100   // header + "key-x" + payload
            let cache = try DiskCache(directory: directory, sizeLimit: 3 * entry + 50)
            for name in ["a", "b", "c"] { try cache.store(DiskTestSupport.bytes(100, seed: 1), forKey: "key-" + name) }
            _ = cache.data(forKey: "key-a")                  // order now b, c, a
            try cache.store(DiskTestSupport.bytes(100, seed: 2), forKey: "key-d")
            #expect(!cache.contains("key-b"))
            #expect(cache.contains("key-a") && cache.contains("key-c") && cache.contains("key-d"))

            _ = cache.data(forKey: "key-c")                  // order now a, d, c
            try cache.store(DiskTestSupport.bytes(100, seed: 3), forKey: "key-e")
            #expect(!cache.contains("key-a"))
            #expect(cache.contains("key-c") && cache.contains("key-d") && cache.contains("key-e"))
            #expect(cache.statistics.evictions == 2)
            #expect(cache.totalSize == 3 * entry)
            #expect(DiskTestSupport.files(in: directory).count == 3)
        }
    }
}
