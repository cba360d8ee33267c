import Foundation
import Lanes
import LanesImages
import LanesLists
import LanesTesting
import Testing

@Suite("Pipeline coalescing", .timeLimit(.minutes(5)))
struct PipelineCoalescingTests {
    @Test("100 concurrent requests for one URL and chain cause 1 fetch, 1 decode and 1 filter run")
    func hundredRequestsOneOfEachStage() throws {
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(try Fixture.data("chelsea.png"))], holds: true)
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let request = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 200), processors: [TiltShift()])
        let results = ResultBox()
        DispatchQueue.concurrentPerform(iterations: 100) { _ in
            pipeline.load(request, priority: .visible, on: nil) { results.append($0) }
        }
        // One fetch; one banded chain (its decode and tilt-shift in one stage: ImagePipeline+Bands).
        #expect(pipeline.stagesInFlight == (fetches: 1, bitmaps: 1))
        executor.runAll()
        #expect(fetcher.fetchCount == 1)
        fetcher.completeAll()
        executor.runAll()
        #expect(results.successes.count == 100)
        let first = try #require(results.successes.first)
        #expect(first.width == 200 && first.height == 133)
        #expect(results.successes.allSatisfy { $0 == first })
        let stats = pipeline.statistics
        #expect(stats.fetches == 1 && stats.decodes == 1 && stats.processorRuns == 1)
        #expect(stats.loads.requests == 100 && stats.loads.joined == 99)
        #expect(pipeline.stagesInFlight == (fetches: 0, bitmaps: 0))
    }

    @Test("Two staged chains on the same URL and size share the fetch and the decode")
    func chainsShareTheDecode() throws {
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(try Fixture.data("chelsea.png"))])
        let (pipeline, executor) = manualPipeline(fetcher: fetcher, inBands: false)
        let size = TargetSize(maxWidth: 120)
        let results = ResultBox()
        pipeline.load(ImageRequest(url: photoURL, targetSize: size, processors: [TiltShift()]), on: nil) { results.append($0) }
        pipeline.load(ImageRequest(url: photoURL, targetSize: size, processors: [Greyscale()]), on: nil) { results.append($0) }
        pipeline.load(ImageRequest(url: photoURL, targetSize: size), on: nil) { results.append($0) }
        executor.runAll()
        #expect(results.successes.count == 3)
        let stats = pipeline.statistics
        #expect(stats.fetches == 1 && stats.decodes == 1 && stats.processorRuns == 2)
    }

    @Test("A finished image is served from the memory cache, synchronously")
    func memoryCacheHit() throws {
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(try Fixture.data("chelsea.png"))])
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let request = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 64), processors: [Greyscale()])
        let first = ResultBox()
        pipeline.load(request, on: nil) { first.append($0) }
        executor.runAll()
        #expect(first.successes.count == 1)
        #expect(pipeline.cachedImage(for: request) != nil)
        let second = ResultBox()
        pipeline.load(request, on: nil) { second.append($0) }
        #expect(second.successes.count == 1)   // before any executor turn
        #expect(executor.pendingRunners == 0)
        #expect(pipeline.statistics.loads.cacheHits == 1 && pipeline.statistics.fetches == 1)
        // The intermediate full decode was not cached: only requests' results are.
        #expect(pipeline.cachedImage(for: ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 64))) == nil)
    }

    @Test("A failed fetch reaches every consumer with its error")
    func fetchFailureReachesEveryone() throws {
        let fetcher = ScriptedFetcher([:])
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let results = ResultBox()
        pipeline.load(ImageRequest(url: photoURL, processors: [TiltShift()]), on: nil) { results.append($0) }
        pipeline.load(ImageRequest(url: photoURL), on: nil) { results.append($0) }
        executor.runAll()
        #expect(results.errors.count == 2)
        #expect(results.errors.allSatisfy { ($0 as? FetchError) == .httpStatus(code: 404, url: photoURL.absoluteString) })
        #expect(pipeline.statistics.loads.failed == 2 && pipeline.statistics.decodes == 0)
        // Failures are not cached: the next request fetches again.
        pipeline.load(ImageRequest(url: photoURL), on: nil) { results.append($0) }
        executor.runAll()
        #expect(fetcher.fetchCount == 2)
    }

    @Test("An HTML page instead of an image fails with a reason, not a crash")
    func htmlInsteadOfImage() throws {
        let html = Data("<!DOCTYPE html><html><body>502 Bad Gateway</body></html>".utf8)
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(html)])
        let (pipeline, executor) = manualPipeline(fetcher: fetcher, budget: 1 << 20)
        let results = ResultBox()
        pipeline.load(ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 50)), on: nil) { results.append($0) }
        executor.runAll()
        let error = try #require(results.errors.first as? ImageError)
        guard case .unsupportedFormat = error else { Issue.record("got \(error)"); return }
        #expect("\(error)".contains("not a PNG, JPEG, WebP, GIF or AVIF image"))
    }
}
