import Foundation

/// What to load: a URL (`file://`, `http://`, `https://`), the size to fit it in, and the processors to run on it.
///
/// Two requests are equal when they name the same URL, size and processor chain (by ``ImageProcessor/identifier``),
/// so equal requests share one cache entry, and every stage of the pipeline when they read the same caches. The
/// ``cachePolicy`` is not part of equality: it says which caches this request reads and writes (the list loader,
/// ``ImagePipeline/loader``, gives equal requests whose policies differ a job each).
///
/// ```swift
/// let request = ImageRequest(url: URL(string: "https://example.com/photo.jpg")!,
///                            targetSize: TargetSize(maxWidth: 800),
///                            processors: [TiltShift()])
/// ```
public struct ImageRequest: Sendable, Hashable, CustomStringConvertible {
    /// Where the encoded image is.
    public var url: URL
    /// The box to decode into (nil: full size). JPEGs decode at a reduced DCT scale when it allows.
    public var targetSize: TargetSize?
    /// The processors applied, first to last, after decoding.
    public var processors: [any ImageProcessor]
    /// Which caches the request reads and writes (all of them by default).
    public var cachePolicy: CachePolicy

    /// A request for `url`, decoded to fit `targetSize`, then run through `processors`.
    ///
    /// ```swift
    /// let thumbnail = ImageRequest(url: fileURL, targetSize: TargetSize(maxWidth: 128, maxHeight: 128))
    /// let fresh = ImageRequest(url: url, cachePolicy: [.writesMemory, .writesDisk])   // reads no cache
    /// ```
    public init(
        url: URL, targetSize: TargetSize? = nil, processors: [any ImageProcessor] = [], cachePolicy: CachePolicy = .all
    ) {
        self.url = url
        self.targetSize = targetSize
        self.processors = processors
        self.cachePolicy = cachePolicy
    }

    /// Which caches a request reads and writes, switch by switch (Nuke's request options): the memory cache of
    /// final and intermediate bitmaps, and the disk cache of fetched bytes. A request that does not read the memory
    /// cache runs its stages; one that does not read the disk cache fetches. Each request's switches hold when it
    /// shares stages with others: requests share a stage only when they read the same caches (so one that skips a
    /// cache never receives what another read from it), and a shared stage writes a cache when any request still
    /// waiting for it asked for that write. The list loader (`pipeline.loader`, bindings, prefetch) always uses the
    /// memory cache: it is its cache.
    ///
    /// ```swift
    /// let reload = ImageRequest(url: url, cachePolicy: .all.subtracting([.readsMemory, .readsDisk]))
    /// let offDisk = ImageRequest(url: url, cachePolicy: [.readsMemory, .writesMemory])   // never on disk
    /// ```
    public struct CachePolicy: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Answer from the memory cache, and start a processor step from a shorter chain's cached result.
        public static let readsMemory = CachePolicy(rawValue: 1 << 0)
        /// Put the final bitmap in the memory cache.
        public static let writesMemory = CachePolicy(rawValue: 1 << 1)
        /// Read fetched bytes from the disk cache instead of fetching them.
        public static let readsDisk = CachePolicy(rawValue: 1 << 2)
        /// Write fetched bytes to the disk cache.
        public static let writesDisk = CachePolicy(rawValue: 1 << 3)
        /// Every switch on: the default.
        public static let all: CachePolicy = [.readsMemory, .writesMemory, .readsDisk, .writesDisk]
    }

    /// The processor chain's identifier (empty when there are no processors).
    var processorIdentifier: String {
        processors.isEmpty ? "" : ProcessorChain(processors).identifier
    }

    public static func == (lhs: ImageRequest, rhs: ImageRequest) -> Bool {
        lhs.url == rhs.url && lhs.targetSize == rhs.targetSize && lhs.processorIdentifier == rhs.processorIdentifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(url)
        hasher.combine(targetSize)
        hasher.combine(processorIdentifier)
    }

    public var description: String {
        var text = url.absoluteString
        if let targetSize { text += " @" + targetSize.description }
        if !processors.isEmpty { text += " | " + processorIdentifier }
        return text
    }

    /// The key of the stage whose result answers this request.
    var finalKey: StageKey {
        let url = url.absoluteString, readsDisk = cachePolicy.contains(.readsDisk)
        return processors.isEmpty
            ? .decode(url: url, size: targetSize, readsDisk: readsDisk)
            : .process(
                url: url, size: targetSize, processors: processorIdentifier,
                reads: cachePolicy.intersection([.readsMemory, .readsDisk]))
    }

    /// The key of the fetch of this request's bytes.
    var fetchKey: StageKey {
        .fetch(url: url.absoluteString, readsDisk: cachePolicy.contains(.readsDisk))
    }
}
