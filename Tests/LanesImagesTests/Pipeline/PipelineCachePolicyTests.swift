import Foundation
import Lanes
import LanesImages
import LanesTesting
import Testing

@Suite("Pipeline cache switches", .timeLimit(.minutes(5)))
struct PipelineCachePolicyTests {
    @Test("A request that does not read the memory cache decodes again; one that does not write it leaves it empty")
    func memorySwitches() throws {
        let data = try Fixture.data("chelsea.png")
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(data)])
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let unwritten = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 90), cachePolicy: [.readsMemory])
        pipeline.load(unwritten, on: nil) { _ in }
        executor.runAll()
        #expect(pipeline.cachedImage(for: unwritten) == nil && pipeline.statistics.decodes == 1)
        let request = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 90))
        pipeline.load(request, on: nil) { _ in }
        executor.runAll()
        #expect(pipeline.cachedImage(for: request) != nil && pipeline.statistics.decodes == 2)
        let unread = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 90), cachePolicy: [.writesMemory])
        let results = ResultBox()
        pipeline.load(unread, on: nil) { results.append($0) }
        #expect(results.all.isEmpty)   // not answered from the cache
        executor.runAll()
        #expect(results.successes.count == 1 && pipeline.statistics.decodes == 3)
        // A processor step does not start from a cached shorter chain either.
        let tilted = ImageRequest(
            url: photoURL, targetSize: TargetSize(maxWidth: 90), processors: [TiltShift()], cachePolicy: [.writesMemory])
        pipeline.load(tilted, on: nil) { _ in }
        executor.runAll()
        #expect(pipeline.statistics.intermediateHits == 0 && pipeline.statistics.decodes == 4)
    }

    @Test("A request that does not read the disk cache fetches; one that does not write it stores nothing")
    func diskSwitches() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "lanes-policy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = try Fixture.data("chelsea.png")
        let disk = try DiskCache(directory: directory, sizeLimit: 10 << 20)
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(data)])
        let (pipeline, executor) = manualPipeline(fetcher: fetcher, diskCache: disk)
        pipeline.load(ImageRequest(url: photoURL, cachePolicy: [.readsDisk]), on: nil) { _ in }
        executor.runAll()
        #expect(fetcher.fetchCount == 1 && disk.data(forKey: photoURL.absoluteString) == nil)
        pipeline.load(ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 10)), on: nil) { _ in }
        executor.runAll()   // fetched again (nothing on disk), and stored
        #expect(fetcher.fetchCount == 2 && disk.data(forKey: photoURL.absoluteString) != nil)
        pipeline.load(ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 20), cachePolicy: [.writesDisk]), on: nil) { _ in }
        executor.runAll()
        #expect(fetcher.fetchCount == 3 && pipeline.statistics.diskHits == 0)
        pipeline.load(ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 30)), on: nil) { _ in }
        executor.runAll()
        #expect(fetcher.fetchCount == 3 && pipeline.statistics.diskHits == 1)
    }
}
