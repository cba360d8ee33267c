import Foundation
import Lanes
import LanesImages
import LanesLists
import LanesTesting
import Testing

@MainActor
@Suite("Image bindings", .timeLimit(.minutes(5)))
struct ImageBindingTests {
    /// A cell: what it shows, and how often it was handed something.
    final class Cell {
        var shown: [String] = []
        var placeholders = 0
    }

    @Test("A reused cell never receives the old row's image")
    func reusedCellGetsOnlyItsOwnImage() throws {
        let fetcher = ScriptedFetcher([
            photoURL.absoluteString: .success(try Fixture.data("chelsea.png")),
            otherURL.absoluteString: .success(try Fixture.data("camera.png")),
        ], holds: true)
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let delivery = WorkQueue("cells", maxConcurrency: 1, executor: executor)
        let cell = Cell()
        let binding = ImageBinding(pipeline: pipeline, deliveryQueue: delivery, placeholder: { _ in
            cell.placeholders += 1
        }) { request, result in
            if case .success = result { cell.shown.append(request.url.lastPathComponent) }
        }
        #expect(!binding.show(ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 40))))
        executor.runAll()   // the photo's fetch starts
        // The cell is reused for another row before the photo arrives.
        binding.show(ImageRequest(url: otherURL, targetSize: TargetSize(maxWidth: 40)))
        #expect(fetcher.handles.first?.isCancelled == true)   // nobody else wanted the photo
        executor.runAll()
        fetcher.completeAll()
        executor.runAll()
        #expect(cell.shown == ["camera.png"])
        #expect(cell.placeholders == 2)
        #expect(binding.isLoaded)
    }

    @Test("A result already on its way to a cell that moved to another row is dropped")
    func lateResultIsDropped() throws {
        let fetcher = ScriptedFetcher([
            photoURL.absoluteString: .success(try Fixture.data("chelsea.png")),
            otherURL.absoluteString: .success(try Fixture.data("camera.png")),
        ])
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let cells = ManualExecutor()
        let cell = Cell()
        let binding = ImageBinding(
            pipeline: pipeline, deliveryQueue: WorkQueue("cells", executor: cells), placeholder: { _ in cell.placeholders += 1 }
        ) { request, _ in cell.shown.append(request.url.lastPathComponent) }
        binding.show(ImageRequest(url: photoURL))
        executor.runAll()   // the photo is loaded; its delivery waits on the cells' queue
        #expect(cells.pendingRunners == 1)
        binding.show(ImageRequest(url: otherURL))   // the cell is reused before the delivery runs
        executor.runAll()
        cells.runAll()
        #expect(cell.shown == ["camera.png"])
        #expect(binding.loader.stats.staleDropped == 1)   // withdrawn before its delivery ran: never handed over
    }

    @Test("A cached image is handed over inside show, with no placeholder")
    func cachedImageIsSynchronous() throws {
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(try Fixture.data("chelsea.png"))])
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let request = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 32))
        pipeline.load(request, on: nil) { _ in }
        executor.runAll()
        let cell = Cell()
        let binding = ImageBinding(pipeline: pipeline, deliveryQueue: WorkQueue("cells", executor: executor),
                                   placeholder: { _ in cell.placeholders += 1 }) { request, _ in
            cell.shown.append(request.url.lastPathComponent)
        }
        #expect(binding.show(request))
        #expect(cell.shown == ["chelsea.png"] && cell.placeholders == 0)
        binding.clear()
        #expect(binding.request == nil && !binding.isLoaded)
    }

    @Test("load delivers on the main actor by default; a memory-cache hit asked for on the main queue arrives before load returns")
    func loadDeliversOnMain() async throws {
        let url = try #require(Bundle.module.url(forResource: "chelsea", withExtension: "png", subdirectory: "Fixtures"))
        let pipeline = ImagePipeline()   // its own threads: the work finishes off the main queue
        let request = ImageRequest(url: url, targetSize: TargetSize(maxWidth: 32))
        let cell = Cell()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            pipeline.load(request) { result in
                // @MainActor: the cell's state, no assumeIsolated.
                if case .success = result { cell.shown.append("first main=\(MainQueue.isCurrent)") }
                continuation.resume()
            }
        }
        #expect(cell.shown == ["first main=true"])

        pipeline.load(request) { _ in cell.shown.append("cached") }
        #expect(cell.shown == ["first main=true", "cached"])   // before load returned
    }

    @Test("A transfer cancelled from outside returns the cell to its placeholder, counted; the next show loads again")
    func transferCancelledFromOutside() throws {
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(try Fixture.data("chelsea.png"))], holds: true)
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let loader = pipeline.loader(deliveringOn: WorkQueue("cells", maxConcurrency: 1, executor: executor))
        let cell = Cell()
        let binding = ImageBinding(loader: loader, placeholder: { _ in cell.placeholders += 1 }) { request, result in
            cell.shown.append((try? result.get()).map { _ in request.url.lastPathComponent } ?? "error")
        }
        let request = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 40))
        binding.show(request)
        executor.runAll()
        fetcher.handles.first?.cancel()   // someone else cancelled the transfer (a session torn down)
        executor.runAll()
        #expect(cell.shown.isEmpty)        // no error shown: the cell is back to its placeholder
        #expect(cell.placeholders == 2)
        #expect(!binding.isLoaded)
        #expect(loader.inFlightCount == 0 && pipeline.stagesInFlight == (0, 0))
        #expect(loader.stats.cancelled == 1 && loader.stats.failed == 0)
        binding.show(request)              // shown again: loaded again
        executor.runAll()
        fetcher.completeAll()
        while executor.runAll() > 0 {}
        #expect(cell.shown == ["chelsea.png"])
        #expect(binding.isLoaded)
    }
}
