import Foundation
import LanesImages
import LanesTesting
import Testing

@Suite(.timeLimit(.minutes(5)), .heavy) struct DiskCacheRestartTests {
    @Test func aNewInstanceSeesTheEntriesInTheirRecencyOrder() throws {
        try DiskTestSupport.withDirectory { directory in
            let entry = 36 + 5 + 100
            let limit = 3 * entry + 50
            do {
                let first = try DiskCache(directory: directory, sizeLimit: limit)
                for (i, name) in ["a", "b", "c"].enumerated() {
                    try first.store(DiskTestSupport.bytes(100, seed: UInt64(i)), forKey: "key-" + name)
                }
                #expect(first.data(forKey: "key-a") != nil)   // order now b, c, a
            }
            let second = try DiskCache(directory: directory, sizeLimit: limit)
            #expect(second.count == 3)
            #expect(second.totalSize == 3 * entry)
            #expect(second.contains("key-a") && second.contains("key-b") && second.contains("key-c"))

            try second.store(DiskTestSupport.bytes(100, seed: 3), forKey: "key-d")
            #expect(!second.contains("key-b"))                  // the least recently used before the restart
            #expect(second.data(forKey: "key-a") == DiskTestSupport.bytes(100, seed: 0))
            #expect(second.data(forKey: "key-c") == DiskTestSupport.bytes(100, seed: 2))
            #expect(second.data(forKey: "key-d") == DiskTestSupport.bytes(100, seed: 3))
            #expect(second.statistics.evictions == 1)
        }
    }

    @Test func aSmallerLimitAtStartupEvictsTheOldest() throws {
        try DiskTestSupport.withDirectory { directory in
            let entry = 36 + 5 + 100
            do {
                let first = try DiskCache(directory: directory, sizeLimit: 1 << 20)
                for name in ["a", "b", "c", "d"] { try first.store(DiskTestSupport.bytes(100, seed: 7), forKey: "key-" + name) }
                _ = first.data(forKey: "key-a")             // order b, c, d, a
            }
            let second = try DiskCache(directory: directory, sizeLimit: 2 * entry)
            #expect(second.count == 2)
            #expect(second.contains("key-d") && second.contains("key-a"))
            #expect(DiskTestSupport.files(in: directory).count == 2)
        }
    }

    @Test func leftoverTemporaryFilesAreDeletedAndForeignFilesKept() throws {
        try DiskTestSupport.withDirectory { directory in
            do {
                let first = try DiskCache(directory: directory, sizeLimit: 1 << 20)
                try first.store(Data([1, 2, 3]), forKey: "kept")
            }
            let crashed = "0123456789abcdef0123456789abcdef-00000000000000ff.tmp"
            try DiskTestSupport.bytes(500, seed: 1).write(to: directory.appendingPathComponent(crashed))
            try Data("mine".utf8).write(to: directory.appendingPathComponent("notes.tmp"))
            try Data("mine".utf8).write(to: directory.appendingPathComponent("notes.txt"))

            let second = try DiskCache(directory: directory, sizeLimit: 1 << 20)
            let files = DiskTestSupport.files(in: directory)
            #expect(!files.contains(crashed))
            #expect(files.contains("notes.tmp") && files.contains("notes.txt"))
            #expect(second.count == 1)
            #expect(second.totalSize == 3 + 36 + 4)
            #expect(second.data(forKey: "kept") == Data([1, 2, 3]))
        }
    }

    @Test func ofTwoVersionsLeftByACrashTheNewerIsKept() throws {
        try DiskTestSupport.withDirectory { directory in
            let fileName: String
            do {
                let first = try DiskCache(directory: directory, sizeLimit: 1 << 20)
                try first.store(Data("old".utf8), forKey: "k")
                let oldFile = try #require(first.fileURL(forKey: "k"))
                let oldBytes = try Data(contentsOf: oldFile)
                try first.store(Data("new".utf8), forKey: "k")
                // Simulate a crash between the rename of the new version and the deletion of the old one.
                try oldBytes.write(to: oldFile)
                fileName = try #require(first.fileURL(forKey: "k")).lastPathComponent
            }
            #expect(DiskTestSupport.files(in: directory).count == 2)
            let second = try DiskCache(directory: directory, sizeLimit: 1 << 20)
            #expect(DiskTestSupport.files(in: directory) == [fileName])
            #expect(second.count == 1)
            #expect(second.data(forKey: "k") == Data("new".utf8))
        }
    }

    @Test func storesAfterARestartDoNotReuseFileNames() throws {
        try DiskTestSupport.withDirectory { directory in
            let before: URL
            do {
                let first = try DiskCache(directory: directory, sizeLimit: 1 << 20)
                try first.store(Data("one".utf8), forKey: "k")
                before = try #require(first.fileURL(forKey: "k"))
            }
            let second = try DiskCache(directory: directory, sizeLimit: 1 << 20)
            try second.store(Data("two".utf8), forKey: "k")
            let after = try #require(second.fileURL(forKey: "k"))
            #expect(after != before)
            #expect(DiskTestSupport.files(in: directory) == [after.lastPathComponent])
            let third = try DiskCache(directory: directory, sizeLimit: 1 << 20)
            #expect(third.data(forKey: "k") == Data("two".utf8))
        }
    }
}
