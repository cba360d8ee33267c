import Foundation
import Lanes
import LanesImages
import LanesLists
import LanesTesting
import Testing

// The "Loading images for a list" article's examples, compiled and run, so the docs cannot rot.

private struct Photo { let url: URL }

private struct Invert: ImageProcessor {
    var identifier: String { "invert" }
    func process(_ bitmap: Bitmap, isCancelled: @Sendable () -> Bool) throws -> Bitmap {
        if isCancelled() { throw ImageError.cancelled }
        var out = bitmap
        out.withUnsafeMutablePixels { pixels in
            for i in stride(from: 0, to: pixels.count, by: 4) {
                pixels[i] = 255 - pixels[i]; pixels[i + 1] = 255 - pixels[i + 1]; pixels[i + 2] = 255 - pixels[i + 2]
            }
        }
        return out
    }
}

@Suite("Images documentation examples", .timeLimit(.minutes(5)))
struct ImageDocumentationTests {
    @Test("Loading images for a list: pipeline, request, binding, prefetch, await, custom processor")
    func article() async throws {
        let cacheDirectory = FileManager.default.temporaryDirectory.appending(path: "lanes-doc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        let url = try #require(Bundle.module.url(forResource: "chelsea", withExtension: "png", subdirectory: "Fixtures"))
        let photo = Photo(url: url)
        // --- 1
        var configuration = ImagePipelineConfiguration()
        configuration.diskCache = try DiskCache(directory: cacheDirectory, sizeLimit: 200 << 20)
        configuration.memoryCacheLimit = 64 << 20
        let pipeline = ImagePipeline(configuration: configuration)
        // --- 2
        let request = ImageRequest(url: photo.url, targetSize: TargetSize(maxWidth: 300), processors: [TiltShift()])
        // ---
        let requests = [request, ImageRequest(url: url, targetSize: TargetSize(maxWidth: 100))]
        // --- 4 (visibleEnd = 1)
        pipeline.prefetch(requests[1..<2])
        pipeline.cancelPrefetch(requests[0..<1])
        // --- 5
        let thumbnail = try await pipeline.image(for: ImageRequest(url: url, targetSize: TargetSize(maxWidth: 128)))
        // ---
        #expect(thumbnail.width == 128)
        let tilted = try await pipeline.image(for: request)
        #expect(tilted.width == 300 && pipeline.cachedImage(for: request) == tilted)
        let inverted = try await pipeline.image(for: ImageRequest(url: url, targetSize: TargetSize(maxWidth: 20),
                                                                  processors: [Invert()]))
        let plain = try await pipeline.image(for: ImageRequest(url: url, targetSize: TargetSize(maxWidth: 20)))
        #expect(inverted[3, 3].red == 255 - plain[3, 3].red)
    }

    @MainActor
    @Test("Loading images for a list: a cell's binding")
    func cellBinding() async throws {
        let url = try #require(Bundle.module.url(forResource: "chelsea", withExtension: "png", subdirectory: "Fixtures"))
        let pipeline = ImagePipeline()
        let requests = [ImageRequest(url: url, targetSize: TargetSize(maxWidth: 60))]
        // --- 3
        @MainActor final class PhotoCell {
            let pipeline: ImagePipeline
            init(pipeline: ImagePipeline) { self.pipeline = pipeline }
            var image: Bitmap?
            lazy var photo = ImageBinding(pipeline: pipeline, placeholder: { [unowned self] _ in image = nil }) {
                [unowned self] _, result in image = try? result.get()
            }
        }
        func willDisplay(_ cell: PhotoCell, row: Int) { cell.photo.show(requests[row]) }
        func didEndDisplaying(_ cell: PhotoCell) { cell.photo.clear() }
        // ---
        let cell = PhotoCell(pipeline: pipeline)
        willDisplay(cell, row: 0)
        _ = try await pipeline.image(for: requests[0])
        await WorkQueue.main.idle()
        #expect(cell.image?.width == 60)
        didEndDisplaying(cell)
        #expect(cell.photo.request == nil)
        // --- 3 (a list drives the cells)
        let list = ListModel(rowCount: requests.count, rowHeight: 120, viewportHeight: 800) { PhotoCell(pipeline: pipeline) }
        list.connect(to: pipeline.loader, key: { requests[$0] }, binding: { $0.photo })
        // ---
        list.layoutIfNeeded()
        #expect(list.cell(forRow: 0)?.image?.width == 60)   // cached by now: handed over inside show
    }
}
