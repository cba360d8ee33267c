import Foundation
import Lanes
import LanesImages
import LanesTesting
import Testing

@Suite("Pipeline memory and disk")
struct PipelineMemoryTests {
    @Test("Decodes wait for room in the budget instead of all allocating at once")
    func decodesWaitForRoom() throws {
        let data = try Fixture.data("chelsea.png")   // 451 x 300: 541,200 bytes decoded
        let urls = (0..<3).map { URL(string: "https://images.test/\($0).png")! }
        let fetcher = ScriptedFetcher(
            Dictionary(uniqueKeysWithValues: urls.map { ($0.absoluteString, .success(data)) }), holds: true)
        let (pipeline, executor) = manualPipeline(fetcher: fetcher, budget: 600_000)
        let budget = try #require(pipeline.budget)
        let results = ResultBox()
        for url in urls { pipeline.load(ImageRequest(url: url), on: nil) { results.append($0) } }
        executor.runAll()
        fetcher.completeAll()   // three decodes want 541,200 bytes each; one fits
        #expect(budget.inUse == 541_200 && budget.waiting == 2)
        executor.runAll()
        #expect(results.successes.count == 3)
        #expect(budget.peakInUse == 541_200 && budget.inUse == 0)
        #expect(pipeline.statistics.decodes == 3)
    }

    @Test("Cancelling a request waiting for room withdraws it from the budget")
    func cancelWhileWaitingForRoom() throws {
        let data = try Fixture.data("chelsea.png")
        let fetcher = ScriptedFetcher(
            [photoURL.absoluteString: .success(data), otherURL.absoluteString: .success(data)], holds: true)
        let (pipeline, executor) = manualPipeline(fetcher: fetcher, budget: 600_000)
        let budget = try #require(pipeline.budget)
        pipeline.load(ImageRequest(url: photoURL), on: nil) { _ in }
        let waiting = pipeline.load(ImageRequest(url: otherURL), on: nil) { _ in }
        executor.runAll()
        fetcher.completeAll()
        #expect(budget.waiting == 1)
        waiting.cancel()
        #expect(budget.waiting == 0)
        executor.runAll()
        #expect(pipeline.statistics.decodes == 1 && budget.inUse == 0)
    }

    @Test("A header claiming 100,000 x 100,000 pixels fails at once, with nothing reserved or allocated")
    func hostileSizeFailsFast() throws {
        let header = Data(TinyPNG.headerOnly(width: 100_000, height: 100_000))
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(header)])
        let (pipeline, executor) = manualPipeline(fetcher: fetcher, budget: 1 << 20)
        let results = ResultBox()
        pipeline.load(ImageRequest(url: photoURL, processors: [TiltShift()]), on: nil) { results.append($0) }
        executor.runAll()
        #expect(results.errors.first as? ImageError == .tooLarge(width: 100_000, height: 100_000, limit: 100_000_000))
        #expect(pipeline.budget?.peakInUse == 0 && pipeline.statistics.processorRuns == 0)
    }

    @Test("Fetched bytes go to the disk cache; a new pipeline on the same cache fetches nothing")
    func diskCacheSurvivesARestart() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "lanes-pipeline-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = try Fixture.data("chelsea.png")
        let request = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 90))
        let first = ScriptedFetcher([photoURL.absoluteString: .success(data)])
        do {
            let (pipeline, executor) = manualPipeline(fetcher: first, diskCache: try DiskCache(directory: directory, sizeLimit: 10 << 20))
            pipeline.load(request, on: nil) { _ in }
            executor.runAll()   // includes the background disk write
            #expect(pipeline.statistics.fetches == 1)
        }
        let second = ScriptedFetcher([photoURL.absoluteString: .success(data)])
        let (pipeline, executor) = manualPipeline(fetcher: second, diskCache: try DiskCache(directory: directory, sizeLimit: 10 << 20))
        let results = ResultBox()
        pipeline.load(request, on: nil) { results.append($0) }
        executor.runAll()
        #expect(results.successes.first?.width == 90)
        #expect(pipeline.statistics.diskHits == 1 && second.fetchCount == 0)
    }

    @Test("A corrupt disk entry is never served: it is dropped and the image fetched again")
    func corruptDiskEntryIsRefetched() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "lanes-pipeline-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = try Fixture.data("chelsea.png")
        let cache = try DiskCache(directory: directory, sizeLimit: 10 << 20)
        try cache.store(data, forKey: photoURL.absoluteString)
        // Flip a byte in the middle of every entry file.
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let file = directory.appending(path: name)
            var bytes = try Data(contentsOf: file)
            bytes[bytes.count / 2] ^= 0xFF
            try bytes.write(to: file)
        }
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(data)])
        let (pipeline, executor) = manualPipeline(fetcher: fetcher, diskCache: try DiskCache(directory: directory, sizeLimit: 10 << 20))
        let results = ResultBox()
        pipeline.load(ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 50)), on: nil) { results.append($0) }
        executor.runAll()
        #expect(results.successes.first?.width == 50)
        #expect(pipeline.statistics.diskHits == 0 && fetcher.fetchCount == 1)
    }
}
