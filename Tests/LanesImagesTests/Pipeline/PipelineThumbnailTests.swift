import Foundation
import Lanes
@testable import LanesImages
import LanesTesting
import Testing

/// The pipeline and the freedesktop thumbnail cache: local files whose thumbnails are cached are shown without a
/// full decode; those that are not are decoded once and their thumbnails written for next time (and for gThumb).
@Suite("Pipeline thumbnail cache", .timeLimit(.minutes(5)), .heavy)
struct PipelineThumbnailTests {
    static let cell = TargetSize(maxWidth: 160, maxHeight: 120)

    /// A folder of `count` photos (JPEG and PNG, 640 × 480) and a thumbnail cache beside it, removed afterwards.
    private func withFolder(count: Int, _ body: ([URL], ThumbnailCache) async throws -> Void) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lanes-thumbs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var files: [URL] = []
        for index in 0..<count {
            let bitmap = noiseBitmap(width: 640, height: 480, seed: UInt32(index + 1))
            let isJPEG = index % 2 == 0
            let file = folder.appendingPathComponent("photo \(index)." + (isJPEG ? "jpg" : "png"))
            try ImageEncoder().encode(bitmap, as: isJPEG ? .jpeg(quality: 80) : .png(compressionLevel: 1)).write(to: file)
            files.append(file)
        }
        let cache = ThumbnailCache(directory: root.appendingPathComponent("thumbnails"), applicationName: "tests")
        try await body(files, cache)
    }

    private func pipeline(_ cache: ThumbnailCache?) -> ImagePipeline {
        var configuration = ImagePipelineConfiguration(decodeConcurrency: 2)
        configuration.thumbnailCache = cache
        return ImagePipeline(configuration: configuration)
    }

    /// Waits until the background writes have put each file's thumbnail of `size` in `cache`.
    private func waitForThumbnails(_ files: [URL], in cache: ThumbnailCache, size: ThumbnailSize) async throws {
        let originals = try files.map { try ThumbnailCache.Original(file: $0) }
        try await waitUntil("every thumbnail written") {
            originals.allSatisfy { cache.thumbnail(for: $0, size: size) != nil }
        }
    }

    @Test func writesBeyondTheQueuedLimitAreStoredByTheDecodeThread() async throws {
        try await withFolder(count: QueuedWrites.limit + 3) { files, cache in
            let cold = pipeline(cache)
            cold.diskWrites.suspend()   // the disk is slower than the decodes: nothing queued gets written yet
            for file in files { _ = try await cold.image(for: ImageRequest(url: file, targetSize: Self.cell)) }
            // The first `limit` wait on the queue, holding their thumbnails; the rest were stored as they were made.
            let originals = try files.map { try ThumbnailCache.Original(file: $0) }
            let written = originals.filter { cache.thumbnail(for: $0, size: .large) != nil }
            #expect(written.count == files.count - QueuedWrites.limit)
            cold.diskWrites.resume()
            try await waitForThumbnails(files, in: cache, size: .large)
        }
    }

    @Test func aQueuedWriteCancelledBeforeItRunsGivesItsPlaceBack() async throws {
        try await withFolder(count: QueuedWrites.limit + 1) { files, cache in
            let cold = pipeline(cache)
            cold.diskWrites.suspend()
            for file in files.prefix(QueuedWrites.limit) {
                _ = try await cold.image(for: ImageRequest(url: file, targetSize: Self.cell))
            }
            #expect(cold.queuedThumbnailWrites.taken == QueuedWrites.limit)
            // The queued writes are cancelled before they ran: their places come back with their completions.
            cold.diskWrites.cancelAll()
            try await waitUntil("the cancelled writes' places given back") { cold.queuedThumbnailWrites.taken == 0 }
            // So the next thumbnail waits on the queue again (not stored by the decode thread): not on disk yet.
            let last = try ThumbnailCache.Original(file: files[QueuedWrites.limit])
            _ = try await cold.image(for: ImageRequest(url: files[QueuedWrites.limit], targetSize: Self.cell))
            #expect(cold.queuedThumbnailWrites.taken == 1)
            #expect(cache.thumbnail(for: last, size: .large) == nil)
            cold.diskWrites.resume()
            try await waitForThumbnails([files[QueuedWrites.limit]], in: cache, size: .large)
            try await waitUntil("the write's place given back") { cold.queuedThumbnailWrites.taken == 0 }
        }
    }

    @Test func aFolderWhoseThumbnailsAreCachedShowsWithNoFullDecode() async throws {
        try await withFolder(count: 8) { files, cache in
            // Cold: every photo decoded once (to the large thumbnail's size), its thumbnail written.
            let cold = pipeline(cache)
            for file in files {
                let image = try await cold.image(for: ImageRequest(url: file, targetSize: Self.cell))
                #expect(image.width == 160 && image.height == 120)
            }
            #expect(cold.statistics.decodes == 8)
            #expect(cold.statistics.thumbnailHits == 0)
            // Decoded to the thumbnail's size in bands: never a whole 640 × 480 bitmap in memory.
            #expect(try #require(cold.budget).peakInUse < 640 * 480 * 4)
            try await waitForThumbnails(files, in: cache, size: .large)

            // Warm (a new pipeline: an empty memory cache, as after a restart): no fetch, no full decode.
            let warm = pipeline(cache)
            for file in files {
                let image = try await warm.image(for: ImageRequest(url: file, targetSize: Self.cell))
                #expect(image.width == 160 && image.height == 120)
            }
            #expect(warm.statistics.decodes == 0)
            #expect(warm.statistics.fetches == 0)
            #expect(warm.statistics.thumbnailHits == 8)
            // A size no thumbnail covers decodes the original as before.
            _ = try await warm.image(for: ImageRequest(url: files[0], targetSize: TargetSize(maxWidth: 2000)))
            #expect(warm.statistics.decodes == 1)
        }
    }

    @Test func thumbnailsWrittenByAnotherApplicationAreUsed() async throws {
        try await withFolder(count: 2) { files, cache in
            // gThumb's normal-size entries (128 a side), as GdkPixbuf writes them: a small cell is served by them.
            for file in files {
                let original = try ThumbnailCache.Original(file: file)
                let made = try ImageDecoder().decode(Data(contentsOf: file), targetSize: ThumbnailSize.normal.targetSize)
                try cache.store(made, for: original, size: .normal)
            }
            let pipeline = pipeline(cache)
            let image = try await pipeline.image(for: ImageRequest(url: files[1], targetSize: TargetSize(maxWidth: 100, maxHeight: 100)))
            #expect(image.width == 100 && image.height == 75)
            #expect(pipeline.statistics.decodes == 0 && pipeline.statistics.thumbnailHits == 1)
        }
    }

    @Test func gThumbsDefaultNormalThumbnailsServeACellUpToAThirdLarger() async throws {
        try await withFolder(count: 1) { files, cache in
            let original = try ThumbnailCache.Original(file: files[0])
            try cache.store(Bitmap(width: 128, height: 96, filledWith: .black), for: original, size: .normal)
            let pipeline = pipeline(cache)
            let image = try await pipeline.image(for: ImageRequest(url: files[0], targetSize: Self.cell))
            #expect(image.width == 128 && image.height == 96 && image[5, 5] == .black)   // shown as is, not enlarged
            #expect(pipeline.statistics.decodes == 0 && pipeline.statistics.thumbnailHits == 1)
            // A cell twice its size decodes the photo instead (and writes the large thumbnail).
            let big = try await pipeline.image(for: ImageRequest(url: files[0], targetSize: TargetSize(maxWidth: 256, maxHeight: 256)))
            #expect(big.width == 256 && pipeline.statistics.decodes == 1)
            #expect(ThumbnailSize.candidates(for: Self.cell) == [.large, .xLarge, .xxLarge, .normal])
            #expect(ThumbnailSize.candidates(for: TargetSize(maxWidth: 200, maxHeight: 200)) == [.large, .xLarge, .xxLarge])
        }
    }

    @Test func aChangedFileIsDecodedAgainAndItsThumbnailReplaced() async throws {
        try await withFolder(count: 1) { files, cache in
            _ = try await pipeline(cache).image(for: ImageRequest(url: files[0], targetSize: Self.cell))
            try await waitForThumbnails(files, in: cache, size: .large)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)],
                                                  ofItemAtPath: files[0].path)
            let again = pipeline(cache)
            _ = try await again.image(for: ImageRequest(url: files[0], targetSize: Self.cell))
            #expect(again.statistics.decodes == 1 && again.statistics.thumbnailHits == 0)
            try await waitForThumbnails(files, in: cache, size: .large)
            let text = try PNGText.read(Data(contentsOf: URL(fileURLWithPath: cache.path(
                for: try ThumbnailCache.Original(file: files[0]), size: .large))))
            #expect(text["Thumb::MTime"] == "1000000000")
        }
    }

    @Test func requestsThatSkipTheDiskCacheSkipTheThumbnails() async throws {
        try await withFolder(count: 1) { files, cache in
            let original = try ThumbnailCache.Original(file: files[0])
            try cache.store(Bitmap(width: 160, height: 120, filledWith: .black), for: original, size: .large)
            let pipeline = pipeline(cache)
            let fresh = ImageRequest(url: files[0], targetSize: Self.cell, cachePolicy: [.writesMemory])
            let image = try await pipeline.image(for: fresh)
            #expect(image[10, 10] != .black)   // the photo, not the planted thumbnail
            #expect(pipeline.statistics.decodes == 1 && pipeline.statistics.thumbnailHits == 0)
        }
    }

    @Test func aFileThatCannotBeDecodedIsRecordedAsAFailure() async throws {
        try await withFolder(count: 1) { files, cache in
            try Data("not an image at all".utf8).write(to: files[0])
            let pipeline = pipeline(cache)
            await #expect(throws: ImageError.self) {
                _ = try await pipeline.image(for: ImageRequest(url: files[0], targetSize: Self.cell))
            }
            let original = try ThumbnailCache.Original(file: files[0])
            try await waitUntil("the failure recorded") { cache.hasFailure(for: original) }
            #expect(cache.thumbnail(for: original, size: .large) == nil)
        }
    }

    @Test func withoutACacheNothingIsWritten() async throws {
        try await withFolder(count: 1) { files, cache in
            let pipeline = pipeline(nil)
            _ = try await pipeline.image(for: ImageRequest(url: files[0], targetSize: Self.cell))
            #expect(pipeline.statistics.decodes == 1)
            await pipeline.diskWrites.idle()
            #expect(!FileManager.default.fileExists(atPath: cache.directory.path))
        }
    }
}
