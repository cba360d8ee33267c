import Foundation
import Lanes
import LanesImages
import LanesTesting
import Testing

/// The pipeline's caches emptied: one request's image, every image of a URL (memory and disk), everything; work in
/// flight finishes and is delivered as if nothing happened.
@Suite("Pipeline cache removal", .timeLimit(.minutes(5)))
struct PipelineCacheRemovalTests {
    static let u = URL(string: "https://example.invalid/u.png")!
    static let v = URL(string: "https://example.invalid/v.png")!

    static func pipeline(_ fetcher: MemoryFetcher, disk: DiskCache? = nil) -> ImagePipeline {
        var configuration = ImagePipelineConfiguration(fetcher: fetcher)
        configuration.diskCache = disk
        return ImagePipeline(configuration: configuration)
    }

    static func request(_ url: URL, _ width: Int) -> ImageRequest {
        ImageRequest(url: url, targetSize: TargetSize(maxWidth: width))
    }

    @Test("per request, per URL, all; the disk entry only when asked")
    func removal() async throws {
        let png = Data(try Fixture.bytes("chelsea.png"))
        let fetcher = MemoryFetcher([Self.u: .body(png), Self.v: .body(png)])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lanes-removal-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let disk = try DiskCache(directory: folder, sizeLimit: 64 << 20)
        let pipeline = Self.pipeline(fetcher, disk: disk)
        let requests = [Self.request(Self.u, 32), Self.request(Self.u, 64), Self.request(Self.v, 32)]
        for request in requests { _ = try await pipeline.image(for: request) }
        try await waitUntil("both bodies on disk") { disk.contains(Self.u.absoluteString) && disk.contains(Self.v.absoluteString) }
        #expect(requests.allSatisfy { pipeline.cachedImage(for: $0) != nil })

        pipeline.removeCachedImage(for: requests[0])
        #expect(pipeline.cachedImage(for: requests[0]) == nil && pipeline.cachedImage(for: requests[1]) != nil)

        pipeline.removeCachedImages(for: Self.u)
        #expect(pipeline.cachedImage(for: requests[1]) == nil && pipeline.cachedImage(for: requests[2]) != nil)
        #expect(disk.contains(Self.u.absoluteString))
        pipeline.removeCachedImages(for: Self.u, includingDisk: true)
        #expect(!disk.contains(Self.u.absoluteString) && disk.contains(Self.v.absoluteString))

        pipeline.removeAllCachedImages()
        #expect(pipeline.cachedImage(for: requests[2]) == nil && pipeline.memoryCacheCost == 0)
        #expect(disk.contains(Self.v.absoluteString))
        pipeline.removeAllCachedImages(includingDisk: true)
        #expect(disk.count == 0)

        let fetchesBefore = fetcher.starts.count
        _ = try await pipeline.image(for: requests[2])   // loads again, from the network
        #expect(fetcher.starts.count == fetchesBefore + 1)
    }

    @Test("emptying the caches while a load is in flight: it finishes, is delivered and cached")
    func workInFlight() async throws {
        let png = Data(try Fixture.bytes("chelsea.png"))
        let release = Gate()
        let fetcher = MemoryFetcher([Self.u: .body(png)]) { _, offset in if offset == 0 { release.wait() } }
        let pipeline = Self.pipeline(fetcher)
        let request = Self.request(Self.u, 48)
        let done = Gate()
        let result = LockedValue<Result<Bitmap, any Error>?>(nil)
        pipeline.load(request, on: nil) { outcome in
            result.withLock { $0 = outcome }
            done.open()
        }
        try await waitUntil("the fetch started") { fetcher.starts.count == 1 }
        pipeline.removeAllCachedImages()
        release.open()
        await done.wait()
        #expect(try result.withLock({ $0 })?.get().width == 48)
        #expect(pipeline.cachedImage(for: request)?.width == 48)
    }
}
