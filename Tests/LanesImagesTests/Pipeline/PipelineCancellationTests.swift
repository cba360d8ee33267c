import Foundation
import Lanes
import LanesImages
import LanesLists
import LanesTesting
import Testing

@Suite("Pipeline cancellation and priority", .timeLimit(.minutes(5)))
struct PipelineCancellationTests {
    @Test("The transfer is cancelled only when its last consumer leaves")
    func lastConsumerCancelsTheTransfer() throws {
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(try Fixture.data("chelsea.png"))], holds: true)
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let results = ResultBox()
        let tilted = pipeline.load(ImageRequest(url: photoURL, processors: [TiltShift()]), on: nil) { results.append($0) }
        let plain = pipeline.load(ImageRequest(url: photoURL), on: nil) { results.append($0) }
        executor.runAll()
        let transfer = try #require(fetcher.handles.first)
        tilted.cancel()
        #expect(!transfer.isCancelled)   // the plain request still needs the bytes
        #expect(results.errors.count == 1 && results.errors.first is CancellationError)
        plain.cancel()
        #expect(transfer.isCancelled)
        #expect(results.errors.count == 2)
        executor.runAll()
        #expect(pipeline.stagesInFlight == (fetches: 0, bitmaps: 0))
        #expect(pipeline.statistics.cancelledStages == 3)   // the chain, the decode, the fetch
        #expect(pipeline.statistics.decodes == 0)
        // A late completion from the transfer changes nothing.
        fetcher.completeAll()
        executor.runAll()
        #expect(results.all.count == 2 && pipeline.statistics.decodes == 0)
    }

    @Test("Cancelling a queued decode drops it: its body never runs")
    func cancelledDecodeNeverRuns() throws {
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(try Fixture.data("chelsea.png"))])
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let results = ResultBox()
        let task = pipeline.load(ImageRequest(url: photoURL), on: nil) { results.append($0) }
        _ = executor.runNext()   // the fetch runs and completes; the decode is queued
        #expect(fetcher.fetchCount == 1)
        task.cancel()
        executor.runAll()
        #expect(pipeline.statistics.decodes == 0)
        #expect(results.all.count == 1 && results.errors.first is CancellationError)
    }

    @Test("A prefetch joined by a visible request is promoted down to the transfer, and lowered when it leaves")
    func priorityFollowsTheScreen() throws {
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(try Fixture.data("chelsea.png"))], holds: true)
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let request = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 100), processors: [Greyscale()])
        pipeline.prefetch([request])
        executor.runAll()
        #expect(pipeline.priorityInFlight(of: request) == .prefetch)
        let transfer = try #require(fetcher.handles.first)
        #expect(transfer.priorities == [.prefetch])
        let results = ResultBox()
        let visible = pipeline.load(request, priority: .visible, on: nil) { results.append($0) }
        #expect(pipeline.priorityInFlight(of: request) == .visible)
        #expect(transfer.priorities.last == .visible)
        visible.priority = .normal
        #expect(transfer.priorities.last == .normal && visible.priority == .normal)
        visible.cancel()
        #expect(transfer.priorities.last == .prefetch)
        #expect(!transfer.isCancelled)   // the prefetch still wants it
        pipeline.cancelPrefetch([request])
        #expect(transfer.isCancelled)
    }

    @Test("Queued decodes run highest priority first, and re-prioritising a waiting one takes effect")
    func queuedDecodesFollowPriority() throws {
        let data = try Fixture.data("chelsea.png")
        let urls = (0..<3).map { URL(string: "https://images.test/\($0).png")! }
        let fetcher = ScriptedFetcher(
            Dictionary(uniqueKeysWithValues: urls.map { ($0.absoluteString, .success(data)) }), holds: true)
        let executor = ManualExecutor()
        let pipeline = ImagePipeline(configuration: ImagePipelineConfiguration(
            fetcher: fetcher, decodedBytesLimit: 0, fetchConcurrency: 4, decodeConcurrency: 1, executor: executor))
        let order = LockedValue([Int]())
        var tasks: [ImageTask] = []
        for (index, url) in urls.enumerated() {
            tasks.append(pipeline.load(ImageRequest(url: url), priority: .background, on: nil) { _ in
                order.withLock { $0.append(index) }
            })
        }
        executor.runAll()
        #expect(fetcher.fetchCount == 3)
        fetcher.completeAll()          // three decodes wait in the decode queue
        tasks[2].priority = .visible   // the cell that scrolled into view
        executor.runAll()
        #expect(order.withLock { $0 } == [2, 0, 1])
    }

    @Test("Cancelling the Swift task awaiting an image withdraws its request")
    func asyncCancellation() async throws {
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(try Fixture.data("chelsea.png"))], holds: true)
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let waiter = Task { try await pipeline.image(for: ImageRequest(url: photoURL)) }
        try await waitUntil("the request to reach the pipeline") { pipeline.statistics.loads.requests > 0 }
        executor.runAll()
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(fetcher.handles.first?.isCancelled == true)
    }

    @Test("Awaiting from a task that is already cancelled starts nothing")
    func asyncAlreadyCancelled() async throws {
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(try Fixture.data("chelsea.png"))], holds: true)
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await pipeline.image(for: ImageRequest(url: photoURL))
        }
        await #expect(throws: CancellationError.self) { try await waiter.value }
        executor.runAll()
        #expect(pipeline.statistics.loads.requests == 0)
        #expect(fetcher.handles.isEmpty)
    }

    @Test("An awaited image arrives")
    func asyncSuccess() async throws {
        let fetcher = ScriptedFetcher([jpegURL.absoluteString: .success(try Fixture.data("rocket.jpg"))])
        let pipeline = ImagePipeline(configuration: ImagePipelineConfiguration(fetcher: fetcher))
        let image = try await pipeline.image(for: ImageRequest(url: jpegURL, targetSize: TargetSize(maxWidth: 100)))
        #expect(image.width == 100)
    }
}
