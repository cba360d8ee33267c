/// What an ``ImagePipeline`` has done: the counts that prove coalescing and caching work.
///
/// ```swift
/// let stats = pipeline.statistics
/// print(stats)   // requests 100 · memory hits 0 · fetches 1 · decodes 1 · processor runs 1 · ...
/// ```
public struct ImagePipelineStatistics: Sendable, Equatable, CustomStringConvertible {
    /// Requests made with ``ImagePipeline/load(_:priority:on:completion:)`` and ``ImagePipeline/image(for:priority:)``.
    /// Bindings, lists and prefetches go through ``ImagePipeline/loader``, which counts its own (`loader.stats`).
    public var requests = 0
    /// Requests answered from the memory cache.
    public var memoryHits = 0
    /// Requests that joined work already in flight instead of starting their own.
    public var coalesced = 0
    /// Fetches that went to the fetcher (network or file system).
    public var fetches = 0
    /// Fetches answered from the disk cache.
    public var diskHits = 0
    /// Decodes run: decode stages', and downloads decoded as they arrive for previews (whose image then serves
    /// the decode stage, which does not decode again).
    public var decodes = 0
    /// Processor steps run: one per processor of a chain (`[a, b]` runs two; `[a]` and `[a, b]` together run
    /// `a` once).
    public var processorRuns = 0
    /// Processing stages that started from an upstream result the memory cache held (a decoded original, a shorter
    /// chain's result) instead of fetching and decoding again.
    public var intermediateHits = 0
    /// Stages cancelled because their last consumer left.
    public var cancelledStages = 0
    /// Requests that ended in an error (cancellation excluded).
    public var failures = 0

    public init() {}

    public var description: String {
        "requests \(requests) · memory hits \(memoryHits) · coalesced \(coalesced) · fetches \(fetches) · "
            + "disk hits \(diskHits) · decodes \(decodes) · processor runs \(processorRuns) · "
            + "intermediate hits \(intermediateHits) · "
            + "cancelled stages \(cancelledStages) · failures \(failures)"
    }
}
