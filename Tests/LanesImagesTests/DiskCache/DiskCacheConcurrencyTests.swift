import Foundation
import Lanes
import LanesImages
import Testing

@Suite(.timeLimit(.minutes(5))) struct DiskCacheConcurrencyTests {
    /// A payload that names its key, writer and version, and whose body is derived from them — so a reader can tell
    /// whether it got an intact value written for the key it asked for.
    private static func payload(key: String, writer: Int, version: Int, length: Int) -> Data {
        var data = Data()
        for field in [keyHash(key), UInt64(writer), UInt64(version), UInt64(length)] {
            withUnsafeBytes(of: field.littleEndian) { data.append(contentsOf: $0) }
        }
        data.append(DiskTestSupport.bytes(length, seed: keyHash(key) ^ UInt64(writer << 20 | version)))
        return data
    }

    /// Nil when `data` is an intact payload for `key`; what is wrong otherwise.
    private static func problem(in data: Data, key: String) -> String? {
        guard data.count >= 32 else { return "short payload (\(data.count) bytes) for \(key)" }
        let fields = (0..<4).map { i in data.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self)) } }
        guard fields[0] == keyHash(key) else { return "payload of another key served for \(key)" }
        let expected = payload(key: key, writer: Int(fields[1]), version: Int(fields[2]), length: Int(fields[3]))
        return expected == data ? nil : "torn payload for \(key)"
    }

    private static func keyHash(_ key: String) -> UInt64 {
        key.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }

    @Test func eightThreadsStoringAndReadingNeverSeeWrongOrTornData() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("lanes-disk-tests-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Room for about two thirds of the 14 keys' entries, so evictions race with reads and writes too.
        let cache = try DiskCache(directory: directory, sizeLimit: 40_000)
        let shared = (0..<6).map { "https://example.com/shared/\($0).png" }
        let failures = LockedValue<[String]>([])
        let served = LockedValue(0)

        await DiskTestSupport.onThreads(8) { thread in
            var random = DiskTestSupport.Random(seed: thread + 1)
            let own = "https://example.com/thread/\(thread).png"
            var lastOwn: Data?
            for version in 0..<300 {
                let usesOwn = random.next(3) == 0
                let key = usesOwn ? own : shared[random.next(shared.count)]
                if random.next(2) == 0 {
                    let value = Self.payload(key: key, writer: thread, version: version, length: 200 + random.next(8_000))
                    do {
                        try cache.store(value, forKey: key)
                        if usesOwn { lastOwn = value }
                    } catch {
                        failures.withLock { $0.append("store failed: \(error)") }
                    }
                } else if let data = cache.data(forKey: key) {
                    served.withLock { $0 += 1 }
                    if let problem = Self.problem(in: data, key: key) {
                        failures.withLock { $0.append(problem) }
                    } else if usesOwn, data != lastOwn {
                        // Only this thread writes its own key: a hit must be the latest value it stored.
                        failures.withLock { $0.append("stale value for \(key)") }
                    }
                }
                if version % 50 == 49 { cache.removeData(forKey: shared[random.next(shared.count)]) }
            }
        }

        #expect(failures.withLock { $0 } == [])
        #expect(served.withLock { $0 } > 0)
        #expect(cache.statistics.corruptDropped == 0)
        #expect(cache.statistics.evictions > 0)
        // The index agrees with the disk: no leaked versions or temporaries, sizes add up, limit honoured.
        let files = DiskTestSupport.files(in: directory)
        #expect(files.count == cache.count)
        #expect(!files.contains { $0.hasSuffix(".tmp") })
        let onDisk = try files.reduce(0) { $0 + (try DiskTestSupport.size(of: directory.appendingPathComponent($1))) }
        #expect(onDisk == cache.totalSize)
        #expect(cache.totalSize <= cache.sizeLimit)
        for key in shared {
            if let data = cache.data(forKey: key) { #expect(Self.problem(in: data, key: key) == nil) }
        }
    }
}
