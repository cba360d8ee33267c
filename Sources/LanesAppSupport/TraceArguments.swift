import Foundation
import Lanes

// The apps' `--trace FILE` flag: found, removed from the arguments an app parses, and turned into a recorder.
extension TraceRecorder {
    /// The file named by `--trace FILE` or `--trace=FILE` in `arguments`, if any (`--trace` alone means
    /// `lanes-trace.json`).
    ///
    /// ```swift
    /// if let url = TraceRecorder.traceURL(in: CommandLine.arguments) { print("tracing to", url.path) }
    /// ```
    public static func traceURL(in arguments: [String]) -> URL? {
        for (index, argument) in arguments.enumerated() {
            if argument.hasPrefix("--trace=") {
                return URL(fileURLWithPath: String(argument.dropFirst("--trace=".count)))
            }
            if argument == "--trace" {
                let next = index + 1 < arguments.count ? arguments[index + 1] : ""
                return URL(fileURLWithPath: next.isEmpty || next.hasPrefix("--") ? "lanes-trace.json" : next)
            }
        }
        return nil
    }

    /// `arguments` without `--trace FILE` / `--trace=FILE`, for an app's own argument parsing.
    ///
    /// ```swift
    /// let rest = TraceRecorder.removingTraceArguments(from: Array(CommandLine.arguments.dropFirst()))
    /// ```
    public static func removingTraceArguments(from arguments: [String]) -> [String] {
        var result: [String] = []
        var skipNext = false
        for argument in arguments {
            if skipNext {
                skipNext = false
                if !argument.hasPrefix("--") { continue }
            }
            if argument == "--trace" {
                skipNext = true
                continue
            }
            if argument.hasPrefix("--trace=") { continue }
            result.append(argument)
        }
        return result
    }

    /// A started recorder if `arguments` ask for a trace (`--trace FILE`), else nil. Call `finish()` before the
    /// app exits to write the file.
    ///
    /// ```swift
    /// let trace = TraceRecorder.fromArguments(CommandLine.arguments)
    /// defer { try? trace?.finish() }
    /// ```
    public static func fromArguments(_ arguments: [String] = CommandLine.arguments) -> TraceRecorder? {
        guard let url = traceURL(in: arguments) else { return nil }
        let recorder = TraceRecorder(outputURL: url)
        recorder.start()
        return recorder
    }
}
