import Foundation
import LanesImages

/// `lanes-bench cache-writer DIR`: stores entries into a ``DiskCache`` in DIR without end — keys `key-0` to
/// `key-999`, a new version of each on every pass — printing `stored N` after each store, until it is killed. The
/// disk-cache crash test SIGKILLs it mid-run and checks that the reopened cache never serves a torn entry.
///
/// Every payload describes itself: its key number and version (8 bytes each, little-endian), then a pattern of a
/// length derived from both; ``payload(key:version:)`` must stay the same as the test's copy.
enum CacheCrashWriter {
    static let keys = 1000

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

    static func run(_ arguments: [String]) -> Never {
        guard let directory = arguments.first else {
            FileHandle.standardError.write(Data("usage: lanes-bench cache-writer DIR\n".utf8))
            exit(2)
        }
        do {
            let cache = try DiskCache(directory: URL(fileURLWithPath: directory), sizeLimit: 1 << 30)
            var stored = 0
            for version in 0... {
                for key in 0..<keys {
                    try cache.store(payload(key: key, version: version), forKey: "key-\(key)")
                    stored += 1
                    FileHandle.standardOutput.write(Data("stored \(stored)\n".utf8))
                }
            }
        } catch {
            FileHandle.standardError.write(Data("lanes-bench cache-writer: \(error)\n".utf8))
            exit(1)
        }
        exit(0)
    }
}
