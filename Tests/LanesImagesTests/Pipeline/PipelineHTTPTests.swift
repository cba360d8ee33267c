import Foundation
import Lanes
import LanesImages
import LanesLists
import LanesTesting
import Testing

/// The whole pipeline over real HTTP: URLSession against the loopback server.
@Suite("Pipeline over HTTP", .timeLimit(.minutes(5)))
struct PipelineHTTPTests {
    private func pipeline(_ policy: FetchPolicy) -> ImagePipeline {
        ImagePipeline(configuration: ImagePipelineConfiguration(fetcher: DataFetcher(policy: policy)))
    }

    @Test("Twenty concurrent requests for one photo and chain: one HTTP request, one decode, one filter run")
    func coalescedOverHTTP() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/chelsea.png", LoopbackRoute(body: try Fixture.bytes("chelsea.png"), latch: "go"))
        let pipeline = pipeline(testPolicy())
        let request = ImageRequest(url: server.url("/chelsea.png"), targetSize: TargetSize(maxWidth: 150),
                                   processors: [TiltShift()])
        let images = try await withThrowingTaskGroup(of: Bitmap.self) { group in
            for _ in 0..<20 { group.addTask { try await pipeline.image(for: request, priority: .visible) } }
            // Counted once a request has joined the stage in flight (`requests` counts it before it looks).
            try await waitUntil("19 requests joined the first") { pipeline.statistics.loads.joined >= 19 }
            server.open("go")
            return try await group.reduce(into: [Bitmap]()) { $0.append($1) }
        }
        #expect(images.count == 20 && images.allSatisfy { $0 == images[0] && $0.width == 150 })
        #expect(server.requestCount("/chelsea.png") == 1)
        let stats = pipeline.statistics
        #expect(stats.fetches == 1 && stats.decodes == 1 && stats.processorRuns == 1)
    }

    @Test("A server failing with 500 twice is retried, and the third answer is decoded")
    func retriesServerErrors() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/flaky.jpg", LoopbackRoute(body: try Fixture.bytes("rocket.jpg"), failFirst: 2))
        // Backoff of 1 ms on the real clock: the retries themselves are what this test is about.
        let pipeline = pipeline(FetchPolicy(
            timeout: .seconds(3600),
            retry: RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(1), multiplier: 1, jitter: 0),
            clock: SystemLaneClock()))
        let image = try await pipeline.image(for: ImageRequest(url: server.url("/flaky.jpg"),
                                                               targetSize: TargetSize(maxWidth: 64)))
        #expect(image.width == 64)
        #expect(server.requestCount("/flaky.jpg") == 3)
    }

    @Test("Errors name their cause: 404, and an HTML page served as 200")
    func errorsOverHTTP() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/page.jpg", LoopbackRoute(body: Array("<html><body>Sign in</body></html>".utf8)))
        let pipeline = pipeline(testPolicy())
        let missing = server.url("/missing.png")
        await #expect(throws: FetchError.httpStatus(code: 404, url: missing.absoluteString)) {
            try await pipeline.image(for: ImageRequest(url: missing))
        }
        do {
            _ = try await pipeline.image(for: ImageRequest(url: server.url("/page.jpg")))
            Issue.record("an HTML page decoded as an image")
        } catch let error as ImageError {
            guard case .unsupportedFormat = error else { Issue.record("got \(error)"); return }
        }
    }

    @Test("Cancelling the last request for a transfer closes its connection on the server")
    func cancelReachesTheServer() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/huge.png", LoopbackRoute(body: patternBytes(2_000_000), ending: .stall(afterBytes: 20_000)))
        let pipeline = pipeline(testPolicy())
        let request = ImageRequest(url: server.url("/huge.png"), processors: [Greyscale()])
        let results = ResultBox()
        let first = pipeline.load(request, priority: .visible, on: nil) { results.append($0) }
        let second = pipeline.load(request, priority: .prefetch, on: nil) { results.append($0) }
        #expect(await server.waitUntil { $0.contains { if case .stalled = $0 { true } else { false } } })
        let connection = try #require(server.events.connections(requesting: "/huge.png").first)
        first.cancel()
        #expect(!server.events.clientClosed(connection))   // the prefetch still wants it
        second.cancel()
        #expect(await server.waitUntil { $0.clientClosed(connection) })
        #expect(results.errors.count == 2 && results.errors.allSatisfy { $0 is CancellationError })
        #expect(pipeline.stagesInFlight == (fetches: 0, bitmaps: 0))
    }
}
