/// Names one coalesced unit of work: everything that asks for the same key shares one stage.
enum StageKey: Hashable, Sendable, CustomStringConvertible {
    /// The bytes of a URL (disk cache, then the network or the file system).
    case fetch(url: String)
    /// A URL decoded at a size (nil: full size).
    case decode(url: String, size: TargetSize?)
    /// A decoded image run through a processor chain (named by its identifier).
    case process(url: String, size: TargetSize?, processors: String)

    var description: String {
        switch self {
        case .fetch(let url): "fetch \(url)"
        case .decode(let url, let size): "decode \(url) @\(size?.description ?? "full")"
        case .process(let url, let size, let processors): "process \(url) @\(size?.description ?? "full") \(processors)"
        }
    }

    /// The label of the stage's work items (short: the file name part of the URL).
    var label: String {
        switch self {
        case .fetch(let url): "fetch " + Self.shortName(url)
        case .decode(let url, _): "decode " + Self.shortName(url)
        case .process(let url, _, let processors): processors + " " + Self.shortName(url)
        }
    }

    private static func shortName(_ url: String) -> String {
        url.split(separator: "/").last.map(String.init) ?? url
    }
}
