import LanesLists

/// What an ``ImagePipeline`` has done: its requests, counted the way a list loader counts its own, and what its
/// stages did — the counts that prove coalescing and caching work.
///
/// ```swift
/// let stats = pipeline.statistics
/// print(stats.loads.joined, stats.fetches, stats.decodes)   // 99 1 1: a hundred requests, one fetch, one decode
/// ```
public struct ImagePipelineStatistics: Sendable, Equatable, CustomStringConvertible {
    /// The requests made with ``ImagePipeline/load(_:priority:on:completion:)`` and
    /// ``ImagePipeline/image(for:priority:)``: the stats of the `ContentLoader` they go through (one for all of
    /// them, delivering where the work finished): `requests`, `cacheHits` (answered from the memory cache), `joined`
    /// (joined a job in flight), `scheduled` (jobs started), `deliveries` (images and errors handed over), `failed`
    /// (jobs that ended in an error) and `cancelled` (jobs withdrawn because every ``ImageTask`` left, or cancelled
    /// from outside). A list's bindings and prefetches go through ``ImagePipeline/loader``, which counts its own
    /// (`loader.stats`).
    public var loads = ContentLoaderStats()
    /// Fetches that went to the fetcher (network or file system).
    public var fetches = 0
    /// Fetches answered from the disk cache.
    public var diskHits = 0
    /// Local files answered from the thumbnail cache (``ImagePipelineConfiguration/thumbnailCache``): their current
    /// thumbnail read and scaled instead of the original fetched and decoded (not counted in ``decodes``).
    public var thumbnailHits = 0
    /// Decodes run: decode stages', and downloads decoded as they arrive for previews (whose image then serves
    /// the decode stage, which does not decode again).
    public var decodes = 0
    /// Processor steps run: one per processor of a chain (`[a, b]` runs two; `[a]` and `[a, b]` together run
    /// `a` once).
    public var processorRuns = 0
    /// Processor chains run in bands (``ImagePipelineConfiguration/processesInBands``): decoded in rows from the
    /// fetched body through the processors' row stages, with no whole decoded or intermediate image. Each is also
    /// counted in ``decodes`` and, once per processor, in ``processorRuns``.
    public var bandedChains = 0
    /// Processing stages that started from an upstream result the memory cache held (a decoded original, a shorter
    /// chain's result) instead of fetching and decoding again.
    public var intermediateHits = 0
    /// Stages cancelled because their last consumer left.
    public var cancelledStages = 0
    /// Quick renderings decoded for ``ImagePipeline/quickLoader`` (not counted in ``decodes``).
    public var quickDecodes = 0

    /// All zero.
    public init() {}

    /// One line for logs and HUDs: the loads' counts, then the stages'.
    public var description: String {
        "\(loads) · fetches \(fetches), disk hits \(diskHits), thumbnail hits \(thumbnailHits), decodes \(decodes), processor runs \(processorRuns), "
            + "banded chains \(bandedChains), "
            + "intermediate hits \(intermediateHits), cancelled stages \(cancelledStages), quick decodes \(quickDecodes)"
    }
}
