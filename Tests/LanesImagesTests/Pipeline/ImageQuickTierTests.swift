import Foundation
import Lanes
import LanesImages
import LanesLists
import LanesTesting
import Testing

/// The pipeline's quick tier through an `ImageBinding`: the quick rendering first, then the full image — never the
/// reverse, never another row's — sharing one fetch, kept apart from the full images' cache.
@MainActor
@Suite("Image bindings with a quick tier", .timeLimit(.minutes(5)))
struct ImageQuickTierTests {
    /// A cell: what it was handed, in order ("quick chelsea.png", "full camera.png"), and how often it was reset.
    final class Cell {
        var shown: [String] = []
        var placeholders = 0
        weak var binding: ImageBinding?
    }

    struct Setup {
        let fetcher: ScriptedFetcher
        let pipeline: ImagePipeline
        let executor: ManualExecutor
        let cells = ManualExecutor()
        let cell = Cell()
        let binding: ImageBinding

        @MainActor init() throws {
            fetcher = ScriptedFetcher([
                photoURL.absoluteString: .success(try Fixture.data("chelsea.png")),
                otherURL.absoluteString: .success(try Fixture.data("camera.png")),
            ], holds: true)
            (pipeline, executor) = manualPipeline(fetcher: fetcher)
            let cell = self.cell
            binding = ImageBinding(
                pipeline: pipeline, deliveryQueue: WorkQueue("cells", maxConcurrency: 1, executor: cells), quick: true,
                placeholder: { _ in cell.placeholders += 1 }
            ) { request, result in
                guard case .success = result, let binding = cell.binding else { return }
                cell.shown.append((binding.isShowingQuick ? "quick " : "full ") + request.url.lastPathComponent)
            }
            cell.binding = binding
        }

        /// Runs everything, completing the held fetches as they start, until nothing is left.
        func finish() {
            repeat {
                executor.runAll()
                fetcher.completeAll()
                executor.runAll()
                cells.runAll()
            } while executor.pendingRunners > 0 || cells.pendingRunners > 0
        }
    }

    let request = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 160, maxHeight: 120))

    @Test("quick first, then full, from one fetch; the quick one stays out of the full images' cache")
    func quickThenFull() throws {
        let s = try Setup()
        #expect(!s.binding.show(request, priority: .utility, quick: true))
        s.executor.runAll()
        #expect(s.fetcher.fetchCount == 1)   // one fetch for both renderings
        s.finish()
        #expect(s.cell.shown == ["quick chelsea.png", "full chelsea.png"])
        #expect(s.binding.isLoaded && !s.binding.isShowingQuick)
        #expect(s.pipeline.statistics.quickDecodes == 1 && s.pipeline.statistics.decodes == 1)
        #expect(s.pipeline.cachedImage(for: request).map { $0.width } == 160)   // the full image, not the quick one
        #expect(s.pipeline.quickLoader(deliveringOn: s.binding.loader.deliveryQueue).cache[request] != nil)
    }

    @Test("the full image first: the quick rendering arriving after it is never shown")
    func neverTheReverse() throws {
        let s = try Setup()
        s.binding.show(request, priority: .visible)
        s.executor.runAll()
        s.fetcher.completeAll()
        s.executor.runAll()   // the full image is decoded; its delivery waits on the cells' queue
        #expect(s.cells.pendingRunners == 1)
        s.binding.show(request, quick: true)   // not yet handed over: the quick rendering is asked for
        s.executor.runAll()
        s.finish()
        #expect(s.cell.shown == ["full chelsea.png"])
        #expect(s.binding.isLoaded)
        #expect(s.pipeline.statistics.quickDecodes == 1)   // it was made, and arrived after the full image
    }

    @Test("a reused cell never shows the old row's quick rendering")
    func neverAnotherRows() throws {
        let s = try Setup()
        s.binding.show(request, priority: .utility, quick: true)
        s.executor.runAll()
        s.binding.show(ImageRequest(url: otherURL, targetSize: request.targetSize), priority: .utility)
        s.finish()
        #expect(s.cell.shown == ["full camera.png"])
    }

    @Test("a cached quick rendering replaces the placeholder at once")
    func cachedQuickInsteadOfPlaceholder() throws {
        let s = try Setup()
        s.pipeline.quickLoader(deliveringOn: s.binding.loader.deliveryQueue).prefetch(CollectionOfOne(request))
        s.finish()
        s.binding.show(request, priority: .utility)
        #expect(s.cell.placeholders == 0 && s.cell.shown == ["quick chelsea.png"])
        s.finish()
        #expect(s.cell.shown == ["quick chelsea.png", "full chelsea.png"])
    }
}
