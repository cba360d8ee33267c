import Foundation
import LanesImages
import LanesTesting
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A writer process killed with SIGKILL in the middle of its stores leaves a cache that never serves a torn entry:
/// every read after reopening misses or returns exactly a payload that was written for that key.
@Suite("Disk cache across a killed writer", .serialized, .timeLimit(.minutes(5)), .heavy)
struct DiskCacheCrashTests {
    /// The built `lanes-bench` beside the test bundle (nil when it was not built).
    static let writer: URL? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("lanes-bench")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    /// The writer's payload (a copy of `CacheCrashWriter.payload` in lanes-bench: the two must agree).
    static func payload(key: Int, version: Int) -> Data {
        let length = 16 + (key &* 7919 &+ version &* 104_729) % 40_000
        var bytes = [UInt8](repeating: 0, count: length)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: key >> (8 * index))
            bytes[8 + index] = UInt8(truncatingIfNeeded: version >> (8 * index))
        }
        for index in 16..<length { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ key &* 17 &+ version &* 101) }
        return Data(bytes)
    }

    /// Runs the writer on `directory` until it reports `stores` stores, then kills it with SIGKILL.
    static func killWriter(in directory: URL, after stores: Int) throws {
        struct NotBuilt: Error, CustomStringConvertible {
            var description: String { "build lanes-bench first (swift build --build-tests)" }
        }
        guard let writer = Self.writer else { throw NotBuilt() }
        let process = Process()
        process.executableURL = writer
        process.arguments = ["cache-writer", directory.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var text = ""
        var reported = 0
        // Each read returns what the writer has printed so far (it blocks until there is some, or the writer ended).
        while reported < stores {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let last = text.split(separator: "\n").last?.split(separator: " ").last, let count = Int(last) {
                reported = count
            }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the writer ended before it was killed")
        #expect(reported >= stores)
    }

    @Test func noTornEntryIsEverServed() throws {
        try DiskTestSupport.withDirectory { directory in
            var everStored = 0
            for stores in [150, 1200, 2900] {  // killed in the first, second and third pass over the 1,000 keys
                try Self.killWriter(in: directory, after: stores)
                everStored += stores
                let cache = try DiskCache(directory: directory, sizeLimit: 1 << 30)
                // Reopening swept the killed writer's half-written temporary file, if it left one.
                #expect(DiskTestSupport.files(in: directory).filter { $0.hasSuffix(".tmp") } == [])
                var hits = 0
                for key in 0..<1000 {
                    guard let data = cache.data(forKey: "key-\(key)") else { continue }
                    hits += 1
                    let bytes = [UInt8](data)
                    #expect(bytes.count >= 16, "key-\(key): \(bytes.count) bytes")
                    guard bytes.count >= 16 else { continue }
                    let storedKey = (0..<8).reduce(0) { $0 | Int(bytes[$1]) << (8 * $1) }
                    let version = (0..<8).reduce(0) { $0 | Int(bytes[8 + $1]) << (8 * $1) }
                    #expect(storedKey == key)
                    #expect(version < 1000, "key-\(key): version \(version)")
                    #expect(version < 1000 && data == Self.payload(key: key, version: version), "key-\(key) is torn")
                }
                // Everything stored before the last report survived (SIGKILL loses no page-cache writes).
                #expect(hits >= min(1000, stores))
                #expect(cache.statistics.corruptDropped == 0)
            }
            #expect(everStored > 1000)
        }
    }
}
