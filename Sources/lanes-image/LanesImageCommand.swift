import ArgumentParser
import Foundation
import LanesAppSupport

/// `lanes-image`: processes many images (files, folders, http(s) URLs) concurrently with Lanes.
///
///     lanes-image process photos/ https://example.com/a.jpg --tilt-shift --resize 800x --out out/
@main
struct LanesImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lanes-image",
        abstract: "Decode, process and re-encode images concurrently (PNG, JPEG, WebP, GIF, AVIF, HEIC and JPEG XL in; "
            + "PNG, JPEG, WebP and AVIF out).",
        subcommands: [ProcessCommand.self]
    )

    /// ArgumentParser's own entry point, with one change: whatever it prints (an error quoting an argument, a file
    /// name, a URL) goes through `TerminalText.sanitized` line by line, so an escape sequence typed or globbed onto
    /// the command line never reaches the terminal raw.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if !message.isEmpty {
                let safe = message.split(separator: "\n", omittingEmptySubsequences: false)
                    .map { TerminalText.sanitized($0) }.joined(separator: "\n")
                if code == .success {
                    print(safe)
                } else {
                    FileHandle.standardError.write(Data((safe + "\n").utf8))
                }
            }
            Foundation.exit(code.rawValue)
        }
    }
}
