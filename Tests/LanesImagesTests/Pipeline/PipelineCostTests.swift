import Foundation
import Lanes
import LanesImages
import LanesLists
import LanesTesting
import Testing

/// The pipeline keeps what a request costs its threads in its loaders' `costs` (what a list's preload plans with).
@Suite("Pipeline cost estimate", .timeLimit(.minutes(5)))
struct PipelineCostTests {
    /// A processor that returns its input and records how long each run took (at least `spin` of it busy).
    struct Timed: ImageProcessor {
        let runs: Recorder<Double>
        var identifier: String { "timed" }
        func process(_ bitmap: Bitmap, isCancelled: @Sendable () -> Bool) throws -> Bitmap {
            let start = ContinuousClock.now
            let end = start + .microseconds(300)
            while ContinuousClock.now < end {}
            let took = ContinuousClock.now - start
            runs.append(Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18)
            return bitmap
        }
    }

    @Test("a made request records its decode and processors; a cached or joined one records nothing")
    func recordsMadeRequests() throws {
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(try Fixture.data("chelsea.png"))])
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let costs = pipeline.loader.costs
        let other = WorkQueue("other", maxConcurrency: 1, executor: executor)
        #expect(pipeline.loader(deliveringOn: other).costs === costs)   // every loader of the pipeline shares it
        let runs = Recorder<Double>()
        let request = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 40), processors: [Timed(runs: runs)])
        let results = ResultBox()
        pipeline.load(request, on: nil) { results.append($0) }
        pipeline.load(request, on: nil) { results.append($0) }   // joins the first
        while executor.runAll() > 0 {}
        #expect(results.successes.count == 2)
        #expect(costs.samples == 1)
        // The decode and the processor, summed: at least the processor's own time.
        #expect((costs.seconds ?? 0) >= runs.elements.reduce(0, +))
        pipeline.load(request, on: nil) { results.append($0) }   // cached
        while executor.runAll() > 0 {}
        #expect(results.successes.count == 3)
        #expect(costs.samples == 1)
    }
}
