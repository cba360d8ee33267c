import ArgumentParser

/// `lanes-image`: processes many images (files, folders, http(s) URLs) concurrently with Lanes.
///
///     lanes-image process photos/ https://example.com/a.jpg --tilt-shift --resize 800x --out out/
@main
struct LanesImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lanes-image",
        abstract: "Decode, process and re-encode images concurrently (PNG and JPEG).",
        subcommands: [ProcessCommand.self]
    )
}
