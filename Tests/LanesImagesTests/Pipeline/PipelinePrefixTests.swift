import Foundation
import Lanes
import LanesImages
import LanesTesting
import Testing

/// The pipeline's stages form a graph keyed by prefix: fetch → decode → first processor → second …, so chains share
/// their common start, and a result the memory cache holds is a starting point too.
@Suite("Pipeline stages keyed by prefix", .timeLimit(.minutes(5)))
struct PipelinePrefixTests {
    /// A processor that counts its runs by name and returns its input.
    struct Counted: ImageProcessor {
        let name: String
        let runs: Recorder<String>
        var identifier: String { name }
        func process(_ bitmap: Bitmap, isCancelled: @Sendable () -> Bool) throws -> Bitmap {
            runs.append(name)
            return bitmap
        }
    }

    @Test("Requests for [a] and [a, b] in flight together run a once")
    func prefixIsShared() throws {
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(try Fixture.data("chelsea.png"))], holds: true)
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let runs = Recorder<String>()
        let a = Counted(name: "a", runs: runs), b = Counted(name: "b", runs: runs)
        let size = TargetSize(maxWidth: 40)
        let results = ResultBox()
        pipeline.load(ImageRequest(url: photoURL, targetSize: size, processors: [a]), on: nil) { results.append($0) }
        pipeline.load(ImageRequest(url: photoURL, targetSize: size, processors: [a, b]), on: nil) { results.append($0) }
        #expect(pipeline.stagesInFlight == (fetches: 1, bitmaps: 3))   // one decode, a, and b on a
        executor.runAll()
        fetcher.completeAll()
        while executor.runAll() > 0 {}
        #expect(results.successes.count == 2)
        #expect(runs.elements == ["a", "b"])
        #expect(pipeline.statistics.processorRuns == 2 && pipeline.statistics.decodes == 1)
    }

    @Test("With [a, b] cached, loading [a, b, c] neither fetches nor decodes again, and runs only c")
    func cachedShorterChainIsReused() throws {
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(try Fixture.data("chelsea.png"))])
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let runs = Recorder<String>()
        let a = Counted(name: "a", runs: runs), b = Counted(name: "b", runs: runs), c = Counted(name: "c", runs: runs)
        let size = TargetSize(maxWidth: 40)
        let results = ResultBox()
        pipeline.load(ImageRequest(url: photoURL, targetSize: size, processors: [a, b]), on: nil) { results.append($0) }
        while executor.runAll() > 0 {}
        pipeline.load(ImageRequest(url: photoURL, targetSize: size, processors: [a, b, c]), on: nil) { results.append($0) }
        while executor.runAll() > 0 {}
        #expect(results.successes.count == 2)
        #expect(fetcher.fetchCount == 1 && pipeline.statistics.decodes == 1)
        #expect(runs.elements == ["a", "b", "c"])
        #expect(pipeline.statistics.intermediateHits == 1)
    }

    @Test("A cached decoded original is processed without fetching again")
    func cachedOriginalIsReused() throws {
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(try Fixture.data("chelsea.png"))])
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let size = TargetSize(maxWidth: 40)
        let results = ResultBox()
        pipeline.load(ImageRequest(url: photoURL, targetSize: size), on: nil) { results.append($0) }
        while executor.runAll() > 0 {}
        pipeline.load(ImageRequest(url: photoURL, targetSize: size, processors: [Greyscale()]), on: nil) {
            results.append($0)
        }
        while executor.runAll() > 0 {}
        #expect(results.successes.count == 2 && results.successes[1].width == 40)
        #expect(fetcher.fetchCount == 1 && pipeline.statistics.decodes == 1 && pipeline.statistics.processorRuns == 1)
    }
}
