/// Names one coalesced unit of work: everything that asks for the same key shares one stage. Requests share a stage
/// only when they read the same caches: one that must skip the disk cache never joins a fetch that reads it (nor a
/// stage made from one), and one that must skip the memory cache never joins a processor step that may have started
/// from a cached result.
enum StageKey: Hashable, Sendable {
    /// The bytes of a URL (the disk cache when `readsDisk`, then the network or the file system).
    case fetch(url: String, readsDisk: Bool)
    /// A local file's thumbnail of a size from the thumbnail cache, or the file's bytes to make one from.
    case thumbnail(url: String, size: ThumbnailSize)
    /// A URL decoded at a size (nil: full size).
    case decode(url: String, size: TargetSize?, readsDisk: Bool)
    /// A decoded image run through a processor chain (named by its identifier), reading the caches in `reads`.
    case process(url: String, size: TargetSize?, processors: String, reads: ImageRequest.CachePolicy)

    /// The label of the stage's work items (short: the file name part of the URL).
    var label: String {
        switch self {
        case .fetch(let url, _): "fetch " + Self.shortName(url)
        case .thumbnail(let url, _): "thumbnail " + Self.shortName(url)
        case .decode(let url, _, _): "decode " + Self.shortName(url)
        case .process(let url, _, let processors, _): processors + " " + Self.shortName(url)
        }
    }

    private static func shortName(_ url: String) -> String {
        url.split(separator: "/").last.map(String.init) ?? url
    }
}
