import Foundation
import Synchronization
import Lanes
import LanesLists

/// What a thumbnail fetch found for a local file (``ImagePipelineConfiguration/thumbnailCache``): the cache and the
/// size it serves, the file as it was before its bytes were read, and whether the body is the cached thumbnail (a
/// small PNG) or the original to make one from.
struct ThumbnailSource: Sendable {
    let cache: ThumbnailCache
    let size: ThumbnailSize
    /// The file as `stat` saw it before it was read (nil when it could not be: nothing is then written).
    let original: ThumbnailCache.Original?
    let isCached: Bool
}

extension ImageRequest {
    /// The thumbnail size that serves this request from a thumbnail cache: a local file, decoded with no processor
    /// step of its own to a target a standard size covers, by a request that reads the disk cache.
    var thumbnailSize: ThumbnailSize? {
        guard url.isFileURL, cachePolicy.contains(.readsDisk), let targetSize else { return nil }
        return ThumbnailSize.fitting(targetSize)
    }

    /// The key of the fetch of this request's bytes: with `thumbnails`, a local file's thumbnail fetch (the cached
    /// thumbnail, or the file's bytes to make one from) when ``thumbnailSize`` says one serves it.
    func fetchKey(thumbnails: Bool) -> StageKey {
        if thumbnails, let size = thumbnailSize { return .thumbnail(url: url.absoluteString, size: size) }
        return fetchKey
    }
}

extension ImagePipeline {
    /// The thumbnail cache and size that serve `request`, when the pipeline has a cache and one does.
    func thumbnails(for request: ImageRequest) -> (cache: ThumbnailCache, size: ThumbnailSize)? {
        guard let cache = configuration.thumbnailCache, let size = request.thumbnailSize else { return nil }
        return (cache, size)
    }

    /// A thumbnail fetch's first step, on the fetch queue: a current cached thumbnail of one of the sizes that serve
    /// `target` (``ThumbnailSize/candidates(for:)``, counted as a thumbnail hit), else the source the fetched
    /// original will be decoded against.
    static func lookUpThumbnail(
        _ thumbnails: (cache: ThumbnailCache, size: ThumbnailSize), target: TargetSize?, url: URL,
        counters: Counters<ImagePipelineStatistics>
    ) -> (cached: FetchedBody?, source: ThumbnailSource) {
        let original = try? ThumbnailCache.Original(file: url)
        let sizes = target.map(ThumbnailSize.candidates(for:)) ?? [thumbnails.size]
        for size in sizes {
            guard let original, let png = thumbnails.cache.currentPNG(for: original, size: size) else { continue }
            counters.count(\.thumbnailHits)
            let source = ThumbnailSource(cache: thumbnails.cache, size: size, original: original, isCached: true)
            return (FetchedBody(data: png, thumbnail: source), source)
        }
        return (nil, ThumbnailSource(cache: thumbnails.cache, size: thumbnails.size, original: original, isCached: false))
    }

    /// The bytes a thumbnail source's decode holds: the cached PNG decoded to `size`, or the original decoded to
    /// the thumbnail's size; plus the body.
    static func thumbnailDecodeCost(_ body: FetchedBody, _ source: ThumbnailSource, size: TargetSize?, maxPixels: Int) -> Int {
        let cost = decodeCost(of: body.data, size: source.isCached ? size : source.size.targetSize, maxPixels: maxPixels)
        return cost == 0 ? 0 : cost + body.data.count
    }

    /// A decode stage's work for a thumbnail source: the cached thumbnail decoded to `size` (no full decode), or the
    /// original decoded to the thumbnail's size (a decode), stored in the cache in the background when `writes`
    /// (a failure recorded as such), then fitted to `size`.
    func decodeThumbnail(
        _ body: FetchedBody, source: ThumbnailSource, size: TargetSize?, writes: Bool
    ) throws -> Bitmap {
        let decoder = configuration.decoder, maxPixels = configuration.maxPixels
        if source.isCached {
            return try decoder.decode(body.data, targetSize: size, maxPixels: maxPixels)
        }
        counters.count(\.decodes)
        let made: Bitmap
        do {
            made = try decoder.decode(body.data, targetSize: source.size.targetSize, maxPixels: maxPixels)
        } catch let error as ImageError {
            if writes, let original = source.original, error != .cancelled, error != .outOfMemory {
                diskWrites.add(label: "thumbnail failure", priority: .utility) { _ in
                    try source.cache.recordFailure(for: original)
                }
            }
            throw error
        }
        if writes, let original = source.original {
            let info = try? ImageDecoder().probe(body.data)
            let imageSize = info.map { $0.orientation.swapsDimensions ? ($0.height, $0.width) : ($0.width, $0.height) }
            let store: @Sendable () throws -> Void = {
                try source.cache.store(made, for: original, size: source.size, imageSize: imageSize)
            }
            // A few writes wait on the disk queue at most, each holding its thumbnail; past them the decode thread
            // stores its own, so a walk whose decodes outrun the disk cannot pile thumbnails up in memory. The place
            // is given back when the write finishes however it does: run, failed, or cancelled before it ran.
            if queuedThumbnailWrites.enter() {
                let queued = queuedThumbnailWrites
                diskWrites.add(label: "thumbnail", priority: .utility) { _ in try store() }
                    .onFinishInline { _ in queued.leave() }
            } else {
                try? store()
            }
        }
        guard let size, size.fittedSize(width: made.width, height: made.height) != (made.width, made.height) else {
            return made
        }
        return try Resize(fitting: size).process(made)
    }
}

/// How many thumbnail writes wait on the pipeline's disk queue, up to ``limit``: a place is taken before a write is
/// queued and given back when it finishes (in its completion, so a write cancelled before it ran gives it back too).
final class QueuedWrites: Sendable {
    static let limit = 4
    private let count = Atomic<Int>(0)

    /// The places taken now.
    var taken: Int { count.load(ordering: .relaxed) }

    /// Takes a place when one is free.
    func enter() -> Bool {
        if count.add(1, ordering: .relaxed).newValue <= Self.limit { return true }
        count.subtract(1, ordering: .relaxed)
        return false
    }

    func leave() { count.subtract(1, ordering: .relaxed) }
}
