import Foundation
import Lanes

/// How an ``ImagePipeline`` fetches, caches, decodes and processes, and how much of each it does at once.
///
/// ```swift
/// var configuration = ImagePipelineConfiguration()
/// configuration.diskCache = try DiskCache(directory: cachesURL.appending(path: "images"), sizeLimit: 200 << 20)
/// configuration.memoryCacheLimit = 64 << 20
/// let pipeline = ImagePipeline(configuration: configuration)
/// ```
public struct ImagePipelineConfiguration: Sendable {
    /// Fetches encoded bytes (`file://` and `http(s)://` through URLSession by default).
    public var fetcher: any DataFetching
    /// Decodes PNG and JPEG into bitmaps.
    public var decoder: any ImageDecoding
    /// Keeps fetched network data across runs (nil: no disk cache). `file://` URLs are never copied into it.
    public var diskCache: DiskCache?
    /// The freedesktop thumbnail cache shared with the desktop's other applications (nil: none). A request for a
    /// local file whose target size a standard thumbnail size covers (at most 1024 a side) is decoded from that
    /// size's current thumbnail when there is one — no fetch of the original, no full decode
    /// (``ImagePipelineStatistics/thumbnailHits``) — and its processors run on that; otherwise the original is
    /// decoded to the thumbnail's size, stored there in the background, and fitted to the request. Requests that do
    /// not read the disk cache skip it (and write none when they do not write the disk cache).
    ///
    /// ```swift
    /// var configuration = ImagePipelineConfiguration()
    /// configuration.thumbnailCache = ThumbnailCache(applicationName: "photos")
    /// ```
    public var thumbnailCache: ThumbnailCache?
    /// The most the memory cache of final bitmaps may hold, in bytes (0 disables it).
    public var memoryCacheLimit: Int
    /// The most decoded bytes decodes and processors may have in flight at once, a decode's fetched body included;
    /// more waits for room (0: no limit).
    public var decodedBytesLimit: Int
    /// Images whose header claims more pixels fail with ``ImageError/tooLarge(width:height:limit:)`` before any
    /// allocation.
    public var maxPixels: Int
    /// Transfers (and disk-cache reads) at once.
    public var fetchConcurrency: Int
    /// Decodes at once.
    public var decodeConcurrency: Int
    /// Processor steps at once.
    public var processConcurrency: Int
    /// Whether a request whose every processor has a row stage (``Resize``, ``GaussianBlur``, ``TiltShift``,
    /// ``Greyscale``) runs its chain in bands (on by default): one stage after the fetch decodes a PNG or JPEG a few
    /// rows at a time through the resize to the target size and the processors' row stages into the result, so a
    /// large photo never exists whole in memory, decoded or half-processed (the same pixels as the staged path). Such
    /// a chain shares its fetch with other requests but decodes on its own, unless a prefix of it (the decode,
    /// `[a]` of `[a, b]`) is in flight or in the memory cache: it then runs staged, from that. Off: every chain is
    /// staged (decode, then each processor on a whole bitmap), and chains on one image share its decode.
    ///
    /// ```swift
    /// var configuration = ImagePipelineConfiguration()
    /// configuration.processesInBands = false   // share decodes between chains instead
    /// ```
    public var processesInBands = true
    /// Where fetches, disk-cache writes, decodes and processors run (Lanes' thread pool by default; tests pass a
    /// `ManualExecutor`).
    public var executor: (any WorkExecutor)?
    /// The shortest time between two previews of a download (a progressive JPEG's scans, an interlaced PNG's passes)
    /// handed to a request loaded with a preview handler or to an ``ImageBinding`` with one; nil: no previews.
    ///
    /// ```swift
    /// var configuration = ImagePipelineConfiguration()
    /// configuration.previewInterval = .milliseconds(250)
    /// ```
    public var previewInterval: Duration? = .milliseconds(500)
    /// The clock that spaces previews (a `VirtualClock` in tests).
    ///
    /// ```swift
    /// var configuration = ImagePipelineConfiguration()
    /// configuration.previewClock = SystemLaneClock()
    /// ```
    public var previewClock: any LaneClock = SystemLaneClock()

    /// The defaults: URLSession fetching, no disk cache, 128 MiB of memory cache, 256 MiB of decoded bytes in
    /// flight, 100 MP per image, 6 transfers, and one decode and one processor chain per core.
    public init(
        fetcher: any DataFetching = DataFetcher(), decoder: any ImageDecoding = ImageDecoder(),
        diskCache: DiskCache? = nil, memoryCacheLimit: Int = 128 << 20, decodedBytesLimit: Int = 256 << 20,
        maxPixels: Int = ImageDecoder.defaultMaxPixels, fetchConcurrency: Int = 6,
        decodeConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount,
        processConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount,
        executor: (any WorkExecutor)? = nil
    ) {
        self.fetcher = fetcher
        self.decoder = decoder
        self.diskCache = diskCache
        self.memoryCacheLimit = memoryCacheLimit
        self.decodedBytesLimit = decodedBytesLimit
        self.maxPixels = maxPixels
        self.fetchConcurrency = fetchConcurrency
        self.decodeConcurrency = decodeConcurrency
        self.processConcurrency = processConcurrency
        self.executor = executor
    }
}
