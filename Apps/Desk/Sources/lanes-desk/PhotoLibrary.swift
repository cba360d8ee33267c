import Foundation
import Lanes
import LanesAppSupport
import LanesImages

/// The photos the Photos page shows: the bundled library expanded into many entries, a folder, or a list of URLs.
struct PhotoLibrary: Sendable {
    enum Content: Sendable {
        case generated(GeneratedLibrary, count: Int)
        case urls([URL])
    }

    let content: Content

    var count: Int {
        switch content {
        case .generated(_, let count): count
        case .urls(let urls): urls.count
        }
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
        case .urls(let urls):
            return ImageRequest(url: urls[index], targetSize: size, processors: tiltShift.map { [$0] } ?? [])
        }
    }

    func title(_ index: Int) -> String {
        switch content {
        case .generated(let library, _):
            let variant = library.variant(of: index)
            return "#\(index) · \(library.sources[variant.source].deletingPathExtension().lastPathComponent)"
        case .urls(let urls):
            return TerminalText.sanitized(urls[index].lastPathComponent)
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
        let files = try imageFiles(in: folder)
        guard !files.isEmpty else { throw OptionError("--folder \(TerminalText.sanitized(path)): no PNG or JPEG files") }
        return PhotoLibrary(content: .urls(files))
    }

    static func urls(fromFile path: String) throws -> PhotoLibrary {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw OptionError("--urls \(TerminalText.sanitized(path)): cannot read the file as UTF-8 text")
        }
        var urls: [URL] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let url = URL(string: trimmed), ["file", "http", "https"].contains(url.scheme?.lowercased() ?? "")
            else { throw OptionError("--urls line \(number + 1): not a file:// or http(s):// URL: \(TerminalText.sanitized(trimmed))") }
            urls.append(url)
        }
        guard !urls.isEmpty else { throw OptionError("--urls \(TerminalText.sanitized(path)): no URLs") }
        return PhotoLibrary(content: .urls(urls))
    }

    /// PNG and JPEG files under `folder`, recursively, sorted by path.
    static func imageFiles(in folder: URL) throws -> [URL] {
        guard let enumerator = FileManager.default.enumerator(
            at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        else { return [] }
        var files: [URL] = []
        for case let url as URL in enumerator
        where ["png", "jpg", "jpeg"].contains(url.pathExtension.lowercased()) {
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }
}
