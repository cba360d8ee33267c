import Foundation
import Lanes
import LanesAppSupport
import LanesImages

/// The photos the Photos page shows: the bundled library expanded into many entries, a folder, or a list of URLs.
/// A folder starts empty and grows as ``FolderWalk`` lists it off the main thread (``append(_:)``).
struct PhotoLibrary: Sendable {
    enum Content: Sendable {
        case generated(GeneratedLibrary, count: Int)
        case entries([PhotoEntry])
    }

    private(set) var content: Content
    /// The folder still to list (``FolderWalk``), for a `--folder` library.
    let folder: String?

    init(content: Content, folder: String? = nil) {
        self.content = content
        self.folder = folder
    }

    var count: Int {
        switch content {
        case .generated(_, let count): count
        case .entries(let entries): entries.count
        }
    }

    /// Adds entries a folder listing found.
    mutating func append(_ more: [PhotoEntry]) {
        guard case .entries(var entries) = content else { return }
        content = .entries([])   // keeps `entries` uniquely referenced while it grows
        entries.append(contentsOf: more)
        content = .entries(entries)
    }

    /// Why entry `index` cannot be loaded at all (found while listing), or nil.
    func problem(_ index: Int) -> String? {
        guard case .entries(let entries) = content else { return nil }
        return entries[index].problem
    }

    /// Whether each entry carries its index in its pixels (see ``IndexBarcode``).
    var isStamped: Bool {
        if case .generated = content { return true }
        return false
    }

    /// The request for entry `index` at `size`, with `tiltShift` when given.
    func request(_ index: Int, size: TargetSize, tiltShift: TiltShift?) -> ImageRequest {
        switch content {
        case .generated:
            return ImageRequest(
                url: GeneratedLibrary.url(of: index), targetSize: size,
                processors: (tiltShift.map { [$0] } ?? []) + [IndexStamp(index: index)])
        case .entries(let entries):
            return ImageRequest(url: entries[index].url, targetSize: size, processors: tiltShift.map { [$0] } ?? [])
        }
    }

    /// The local file of entry `index` (a folder's entry given as a file URL), or nil.
    func fileURL(_ index: Int) -> URL? {
        guard case .entries(let entries) = content, entries[index].url.isFileURL else { return nil }
        return entries[index].url
    }

    func title(_ index: Int) -> String {
        switch content {
        case .generated(let library, _):
            let variant = library.variant(of: index)
            return "#\(index) · \(library.sources[variant.source].deletingPathExtension().lastPathComponent)"
        case .entries(let entries):
            return entries[index].name
        }
    }

    // MARK: Loading

    static func bundled(count: Int) throws -> PhotoLibrary {
        guard let folder = Bundle.module.url(forResource: "Photos", withExtension: nil) else {
            throw OptionError("the bundled photos are missing from the app's resources")
        }
        let sources = try imageFiles(in: folder)
        guard !sources.isEmpty else { throw OptionError("the bundled photos are missing from the app's resources") }
        return PhotoLibrary(content: .generated(GeneratedLibrary(sources: sources), count: count))
    }

    static func folder(_ path: String) throws -> PhotoLibrary {
        let folder = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw OptionError("--folder \(TerminalText.sanitized(path)): not a folder") }
        return PhotoLibrary(content: .entries([]), folder: folder.path)
    }

    static func urls(fromFile path: String) throws -> PhotoLibrary {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw OptionError("--urls \(TerminalText.sanitized(path)): cannot read the file as UTF-8 text")
        }
        var urls: [PhotoEntry] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let url = URL(string: trimmed), ["file", "http", "https"].contains(url.scheme?.lowercased() ?? "")
            else { throw OptionError("--urls line \(number + 1): not a file:// or http(s):// URL: \(TerminalText.sanitized(trimmed))") }
            urls.append(PhotoEntry(url: url, name: TerminalText.sanitized(url.lastPathComponent), problem: nil))
        }
        guard !urls.isEmpty else { throw OptionError("--urls \(TerminalText.sanitized(path)): no URLs") }
        return PhotoLibrary(content: .entries(urls))
    }

    /// The image files (PNG, JPEG, WebP, GIF, AVIF, HEIC/HEIF, JPEG XL) under `folder`, recursively, sorted by path
    /// (the bundled photos: a handful).
    static func imageFiles(in folder: URL) throws -> [URL] {
        guard let enumerator = FileManager.default.enumerator(
            at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        else { return [] }
        var files: [URL] = []
        for case let url as URL in enumerator
        where ImageFormat.decodableExtensions.contains(url.pathExtension.lowercased()) {
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }
}
