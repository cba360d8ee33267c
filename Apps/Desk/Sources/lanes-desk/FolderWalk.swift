import Foundation
import Lanes
import LanesAppSupport
import LanesImages

/// One photo of the library: where it is, the name shown (sanitised) and, when it cannot be loaded at all, why.
struct PhotoEntry: Sendable {
    let url: URL
    /// The file name as shown: control characters escaped (`TerminalText`), invalid UTF-8 as U+FFFD.
    let name: String
    /// Why the entry cannot be loaded (found while listing), or nil.
    let problem: String?
}

/// Walks a folder for PNG and JPEG files a batch at a time, off the main thread: the app asks for the next batch
/// when the last one has been shown, so a folder of 20,000 files fills the grid progressively and the main thread
/// only ever appends a batch.
///
/// It reads directories with `opendir`/`readdir` and `lstat` on the raw bytes of their names, so a name that is not
/// UTF-8 is still listed (with a problem: it cannot be opened by a path the pipeline can spell), symbolic links are
/// listed as files and never followed into (a link loop becomes a cell saying so when it is read), hidden names
/// are skipped, and each directory's files come sorted by name before its subfolders.
///
/// ```swift
/// var walk = FolderWalk(root: "/photos")
/// while !walk.isDone {
///     let batch = walk.next(limit: 500, isCancelled: { false })
///     print(batch.map(\.name))
/// }
/// ```
struct FolderWalk: Sendable {
    /// Folders still to read (raw path bytes, no NUL), the next one last.
    private var pending: [[UInt8]]
    /// The folder being listed: its path, its sorted names, the next one to look at and its subfolders so far.
    private var current: (path: [UInt8], names: [[UInt8]], next: Int, subfolders: [[UInt8]])?
    /// Folders already read, by device and inode (a bind mount could make a cycle).
    private var visited: Set<[UInt64]> = []
    /// Entries listed so far, and folders that could not be read (with why).
    private(set) var listed = 0
    private(set) var unreadableFolders: [String] = []

    static let extensions = ImageFormat.decodableExtensions

    init(root: String) {
        pending = [Array(root.utf8)]
    }

    var isDone: Bool { current == nil && pending.isEmpty }

    /// Lists up to `limit` more entries (fewer only at the end, or when cancelled).
    mutating func next(limit: Int, isCancelled: () -> Bool) -> [PhotoEntry] {
        var batch: [PhotoEntry] = []
        while batch.count < limit, !isCancelled() {
            guard var folder = current else {
                guard let path = pending.popLast() else { break }
                current = open(path).map { (path, $0, 0, []) }
                continue
            }
            guard folder.next < folder.names.count else {
                pending.append(contentsOf: folder.subfolders.reversed())
                current = nil
                continue
            }
            let name = folder.names[folder.next]
            folder.next += 1
            let path = folder.path + [UInt8(ascii: "/")] + name
            var info = stat()
            let isFolder = Self.withCString(path) { lstat($0, &info) } == 0 && info.st_mode & S_IFMT == S_IFDIR
            if isFolder {
                folder.subfolders.append(path)
            } else if Self.hasImageExtension(name) {
                batch.append(Self.entry(path: path, name: name))
            }
            current = folder
        }
        listed += batch.count
        return batch
    }

    /// The sorted, non-hidden names of folder `path`, or nil (noted) when it cannot be read or was seen before.
    private mutating func open(_ path: [UInt8]) -> [[UInt8]]? {
        var info = stat()
        if Self.withCString(path, { stat($0, &info) }) == 0 {
            guard visited.insert([UInt64(info.st_dev), UInt64(info.st_ino)]).inserted else { return nil }
        }
        guard let directory = Self.withCString(path, { opendir($0) }) else {
            let reason = String(cString: strerror(errno))
            unreadableFolders.append(TerminalText.sanitized(String(decoding: path, as: UTF8.self)) + ": " + reason)
            return nil
        }
        defer { closedir(directory) }
        var names: [[UInt8]] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { bytes in
                Array(bytes.prefix(while: { $0 != 0 }))
            }
            if name.first == UInt8(ascii: ".") { continue }   // hidden, . and ..
            names.append(name)
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }
    }

    private static func hasImageExtension(_ name: [UInt8]) -> Bool {
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")) else { return false }
        let suffix = String(decoding: name[(dot + 1)...], as: UTF8.self).lowercased()
        return extensions.contains(suffix)
    }

    private static func entry(path: [UInt8], name: [UInt8]) -> PhotoEntry {
        let shown = TerminalText.sanitized(String(decoding: name, as: UTF8.self))
        guard let text = String(validating: path, as: UTF8.self) else {
            return PhotoEntry(
                url: URL(fileURLWithPath: String(decoding: path, as: UTF8.self)), name: shown,
                problem: "the file name is not valid UTF-8: it cannot be opened by name")
        }
        return PhotoEntry(url: URL(fileURLWithPath: text), name: shown, problem: nil)
    }

    private static func withCString<R>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
        (path + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }
}
