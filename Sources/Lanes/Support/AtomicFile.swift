import Foundation

/// Writing a file whole or not at all: into a temporary file beside the destination, then a rename, so a reader
/// never sees half a file. (Foundation's `Data.write(options: .atomic)` on Linux leaves an empty
/// `TemporaryDirectory.*` in /tmp for every write; a batch of thousands of files must not.)
///
/// ```swift
/// try AtomicFile.write(Data("done".utf8), to: URL(fileURLWithPath: "status.txt"))
/// ```
package enum AtomicFile {
    /// A hidden, unique path in `url`'s folder.
    package static func temporaryURL(beside url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
    }

    /// Calls `fill` with a temporary path beside `url` to create the file there, then renames it to `url`. The
    /// temporary file is removed if `fill` throws or the rename fails (a `POSIXError`).
    package static func write<Result>(to url: URL, _ fill: (URL) throws -> Result) throws -> Result {
        let temporary = temporaryURL(beside: url)
        do {
            let result = try fill(temporary)
            guard rename(temporary.path, url.path) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            return result
        } catch {
            unlink(temporary.path)
            throw error
        }
    }

    /// Writes `data` to `url` atomically.
    package static func write(_ data: Data, to url: URL) throws {
        try write(to: url) { try data.write(to: $0) }
    }
}
