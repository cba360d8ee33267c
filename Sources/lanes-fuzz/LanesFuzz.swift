import Foundation

/// With `-DLANES_FUZZ` (see `scripts/fuzz`) the command line goes to libFuzzer. Without it,
/// replays files and directories (a corpus) through the fuzz target
/// and prints how each kind of outcome was reached.
///
///     lanes-fuzz [--verbose] PATH...
@main
struct LanesFuzz {
    static func main() {
        #if LANES_FUZZ
        fuzzMain()
        #else
        replay()
        #endif
    }

    static func replay() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let verbose = arguments.contains("--verbose")
        arguments.removeAll { $0 == "--verbose" }
        guard !arguments.isEmpty, !arguments.contains("--help") else {
            print("usage: lanes-fuzz [--verbose] FILE_OR_DIRECTORY...")
            print("Replays each file through the decoder fuzz target (probe, decode, thumbnail decode).")
            print("Build with scripts/fuzz to run libFuzzer instead.")
            exit(arguments.contains("--help") ? 0 : 2)
        }
        let files = arguments.flatMap(inputFiles(at:))
        var counts: [FuzzOutcome: Int] = [:]
        var unreadable = 0
        let start = Date()
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                unreadable += 1
                FileHandle.standardError.write(Data("lanes-fuzz: cannot read \(file)\n".utf8))
                continue
            }
            let outcome = FuzzTarget.run(Array(data))
            counts[outcome, default: 0] += 1
            if verbose { print("\(outcome.rawValue)\t\(data.count)\t\(file)") }
        }
        let elapsed = Date().timeIntervalSince(start)
        print("lanes-fuzz: \(files.count - unreadable) inputs replayed in \(String(format: "%.2f", elapsed)) s, no crash")
        for outcome in FuzzOutcome.allCases where counts[outcome, default: 0] > 0 {
            print("  \(outcome.rawValue.padding(toLength: 20, withPad: " ", startingAt: 0))\(counts[outcome]!)")
        }
        exit(unreadable == 0 ? 0 : 1)
    }

    /// `path` itself when it is a file; every regular file below it when it is a directory
    /// (except hidden files and `.md` notes).
    static func inputFiles(at path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            FileHandle.standardError.write(Data("lanes-fuzz: no such file \(path)\n".utf8))
            return [path]
        }
        guard isDirectory.boolValue else { return [path] }
        let root = URL(fileURLWithPath: path)
        let entries = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        var files: [String] = []
        while let url = entries?.nextObject() as? URL {
            let name = url.lastPathComponent
            if name.hasPrefix(".") || name.hasSuffix(".md") { continue } // notes, not inputs
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                files.append(url.path)
            }
        }
        return files.sorted()
    }
}
