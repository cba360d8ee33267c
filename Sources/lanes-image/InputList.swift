import Foundation
import Lanes
import LanesAppSupport
import LanesImages

/// One image to process: where it comes from, what to call it in messages, and where it goes.
struct ImageJob: Sendable, Equatable {
    /// A `file://` or `http(s)://` URL.
    var source: URL
    /// The argument as the user wrote it (or the file found in a folder they named).
    var displayName: String
    /// `<out>/<stem>.<format>`, unique within the run.
    var output: URL
    /// The name of an existing file in the output folder that `output` was numbered to spare
    /// (`rocket.png` when writing `rocket-1.png`); nil when the first choice was free.
    var keptExisting: String? = nil
}

/// Turns command-line inputs into jobs: expands folders, recognises URLs, names the outputs.
enum InputList {
    /// File extensions picked up from a folder (other files in it are ignored).
    static let imageExtensions = ImageFormat.decodableExtensions

    /// The sources named by `arguments`: `http(s)://` and `file://` URLs as given, the PNG/JPEG/WebP/GIF/AVIF/HEIC/JPEG XL
    /// files directly inside a folder (sorted, hidden files skipped), any other text as a file path
    /// (a missing file becomes that job's error, not the run's). Repeats are dropped.
    static func sources(for arguments: [String], fileManager: FileManager = .default) -> [(URL, String)] {
        var seen: Set<URL> = []
        var result: [(URL, String)] = []
        func add(_ url: URL, _ name: String) {
            if seen.insert(url.standardized).inserted { result.append((url, name)) }
        }
        for argument in arguments {
            let lowered = argument.lowercased()
            if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || lowered.hasPrefix("file://"),
               let url = URL(string: argument) {
                add(url, argument)
                continue
            }
            let url = URL(fileURLWithPath: argument)
            var isDirectory: ObjCBool = false
            if fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
                let entries = (try? fileManager.contentsOfDirectory(atPath: url.path)) ?? []
                for entry in entries.sorted() where !entry.hasPrefix(".")
                    && imageExtensions.contains((entry as NSString).pathExtension.lowercased()) {
                    add(url.appendingPathComponent(entry), (argument as NSString).appendingPathComponent(entry))
                }
            } else {
                add(url, argument)
            }
        }
        return result
    }

    /// The output file's base name for `source`: its last path component without the extension,
    /// made safe for a file name (slashes, backslashes and every control character — a URL's
    /// `%1b%5d0;…%07` decodes to an escape sequence — become `_`); `image` when nothing usable is
    /// left (`https://host/`).
    static func stem(of source: URL) -> String {
        let last = source.deletingPathExtension().lastPathComponent
        let cleaned = String(TerminalText.replacingControls(last, with: "_").map { $0 == "/" || $0 == "\\" ? "_" : $0 })
        let trimmed = cleaned.trimmingCharacters(in: .whitespaces)
        if last == "/" || trimmed.isEmpty || trimmed == "." || trimmed == ".." {
            return source.host.map { $0.replacingOccurrences(of: ".", with: "_") } ?? "image"
        }
        return trimmed
    }

    /// Jobs for `sources` writing into `outputDirectory`: `<stem>.<ext>`, or `<stem>-1.<ext>`,
    /// `<stem>-2.<ext>`... when that name is taken by an earlier job, is one of the inputs (an
    /// input is never overwritten) or, unless `overwrite`, names a file that already exists.
    static func jobs(for sources: [(URL, String)], outputDirectory: URL, fileExtension: String,
                     overwrite: Bool = false, fileManager: FileManager = .default) -> [ImageJob] {
        // Both spellings of every input: as named and with symbolic links resolved.
        let inputs = Set(sources.filter { $0.0.isFileURL }.flatMap {
            [$0.0.standardizedFileURL.path, $0.0.resolvingSymlinksInPath().path]
        })
        var taken: Set<String> = []
        return sources.map { source, name in
            let stem = stem(of: source)
            var keptExisting: String?
            var attempt = 0
            while true {
                let file = attempt == 0 ? "\(stem).\(fileExtension)" : "\(stem)-\(attempt).\(fileExtension)"
                let candidate = outputDirectory.appendingPathComponent(file).standardizedFileURL
                attempt += 1
                if taken.contains(candidate.path) || inputs.contains(candidate.path)
                    || inputs.contains(candidate.resolvingSymlinksInPath().path) { continue }
                if !overwrite && fileManager.fileExists(atPath: candidate.path) {
                    keptExisting = keptExisting ?? file
                    continue
                }
                taken.insert(candidate.path)
                return ImageJob(source: source, displayName: name, output: candidate, keptExisting: keptExisting)
            }
        }
    }
}
