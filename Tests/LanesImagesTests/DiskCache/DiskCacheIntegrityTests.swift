import Foundation
import LanesImages
import LanesTesting
import Testing

@Suite(.timeLimit(.minutes(5)), .heavy) struct DiskCacheIntegrityTests {
    private static let key = "https://example.com/a.jpg"   // 25 bytes: the payload starts at 36 + 25 = 61
    private static let payload = DiskTestSupport.bytes(4_000, seed: 42)

    /// Stores the test entry, lets `damage` change its file, and checks the read drops it.
    private func expectDropped(_ damage: (URL) throws -> Void) throws {
        try DiskTestSupport.withDirectory { directory in
            let cache = try DiskCache(directory: directory, sizeLimit: 1 << 20)
            try cache.store(Self.payload, forKey: Self.key)
            try cache.store(Data("neighbour".utf8), forKey: "other")
            let file = try #require(cache.fileURL(forKey: Self.key))
            try damage(file)

            #expect(cache.data(forKey: Self.key) == nil)
            #expect(!FileManager.default.fileExists(atPath: file.path))
            #expect(cache.statistics.corruptDropped == 1)
            #expect(cache.statistics.hits == 0)
            #expect(!cache.contains(Self.key))
            #expect(cache.count == 1)
            #expect(cache.totalSize == 9 + 36 + 5)
            #expect(cache.data(forKey: Self.key) == nil)
            #expect(cache.statistics.misses == 1)
            #expect(cache.data(forKey: "other") == Data("neighbour".utf8))
        }
    }

    private func flip(_ file: URL, at offset: Int) throws {
        var bytes = try Data(contentsOf: file)
        let index = offset >= 0 ? offset : bytes.count + offset
        bytes[index] ^= 0x01
        try bytes.write(to: file)
    }

    @Test(arguments: [61, 2_000, -1])
    func aFlippedPayloadBitIsDropped(offset: Int) throws {
        try expectDropped { try flip($0, at: offset) }
    }

    @Test(arguments: [0, 4, 9, 14, 22, 30, 40])
    func aFlippedHeaderOrKeyBitIsDropped(offset: Int) throws {
        try expectDropped { try flip($0, at: offset) }
    }

    @Test(arguments: [1, 3_999, 4_000 + 25, 4_000 + 61 - 20, 4_000 + 61])
    func aTruncatedFileIsDropped(cut: Int) throws {
        try expectDropped { file in
            let bytes = try Data(contentsOf: file)
            try bytes.prefix(bytes.count - cut).write(to: file)
        }
    }

    @Test func trailingGarbageIsDropped() throws {
        try expectDropped { file in
            var bytes = try Data(contentsOf: file)
            bytes.append(0)
            try bytes.write(to: file)
        }
    }

    @Test func anEntryForAnotherKeyIsAMissAndStays() throws {
        try DiskTestSupport.withDirectory { directory in
            let cache = try DiskCache(directory: directory, sizeLimit: 1 << 20)
            try cache.store(DiskTestSupport.bytes(500, seed: 1), forKey: "key-A")
            try cache.store(DiskTestSupport.bytes(500, seed: 2), forKey: "key-B")
            let fileA = try #require(cache.fileURL(forKey: "key-A"))
            let fileB = try #require(cache.fileURL(forKey: "key-B"))
            // A hash collision: B's file name holds an intact entry written for A.
            try Data(contentsOf: fileA).write(to: fileB)

            #expect(cache.data(forKey: "key-B") == nil)
            #expect(FileManager.default.fileExists(atPath: fileB.path))
            #expect(cache.statistics.corruptDropped == 0)
            #expect(cache.statistics.misses == 1)
            #expect(cache.data(forKey: "key-A") == DiskTestSupport.bytes(500, seed: 1))
        }
    }

    @Test func aFileDeletedBehindTheCachesBackIsAMiss() throws {
        try DiskTestSupport.withDirectory { directory in
            let cache = try DiskCache(directory: directory, sizeLimit: 1 << 20)
            try cache.store(Data([9]), forKey: "gone")
            try FileManager.default.removeItem(at: try #require(cache.fileURL(forKey: "gone")))
            #expect(cache.data(forKey: "gone") == nil)
            #expect(cache.count == 0)
            #expect(cache.totalSize == 0)
            #expect(cache.statistics.corruptDropped == 0)
        }
    }
}
