import Foundation
import Lanes
import LanesImages
import LanesTesting
import Testing

@Suite("Fetch over HTTP: answers and errors", .timeLimit(.minutes(5)))
struct FetchHTTPTests {
    @Test("a 200 with a body delivers exactly those bytes, in one request")
    func success() async throws {
        let harness = try FetchHarness(policy: testPolicy())
        defer { harness.stop() }
        let body = patternBytes(300_000)
        harness.server.route("/photo.jpg", LoopbackRoute(body: body))
        let probe = FetchProbe()
        _ = harness.fetch("/photo.jpg", into: probe)
        let result = try #require(await probe.result())
        #expect(try result.get() == Data(body))
        #expect(harness.server.requestCount("/photo.jpg") == 1)
        #expect(probe.count == 1)
    }

    @Test("a 404 fails with the status and the URL, without a retry")
    func notFound() async throws {
        let harness = try FetchHarness(policy: testPolicy(attempts: 3))
        defer { harness.stop() }
        harness.server.route("/missing.png", LoopbackRoute(status: 404, body: Array("nope".utf8)))
        let probe = FetchProbe()
        _ = harness.fetch("/missing.png", into: probe)
        let error = await probe.error()
        let url = harness.server.url("/missing.png").absoluteString
        #expect(error == .httpStatus(code: 404, url: url))
        #expect(error?.description == "\(url): the server answered HTTP status 404 (not found)")
        #expect(harness.server.requestCount("/missing.png") == 1)
        #expect(harness.attempts("/missing.png") == 1)
        #expect(!harness.events.elements.contains { if case .retryScheduled = $0 { true } else { false } })
    }

    @Test("an empty 200 fails with emptyBody")
    func emptyBody() async throws {
        let harness = try FetchHarness(policy: testPolicy())
        defer { harness.stop() }
        harness.server.route("/empty", LoopbackRoute(body: []))
        let probe = FetchProbe()
        _ = harness.fetch("/empty", into: probe)
        #expect(await probe.error() == .emptyBody(url: harness.server.url("/empty").absoluteString))
        #expect(harness.server.requestCount("/empty") == 1)
    }

    @Test("a Content-Length above maxBytes fails with tooLarge as soon as the head arrives")
    func tooLargeByLength() async throws {
        let harness = try FetchHarness(policy: testPolicy(maxBytes: 1000))
        defer { harness.stop() }
        // The body never comes: only the declared length can end this fetch.
        harness.server.route("/huge", LoopbackRoute(body: patternBytes(5000), ending: .stall(afterBytes: 0)))
        let probe = FetchProbe()
        _ = harness.fetch("/huge", into: probe)
        #expect(await probe.error() == .tooLarge(url: harness.server.url("/huge").absoluteString, limit: 1000))
        let connection = try #require(harness.server.events.connections(requesting: "/huge").first)
        #expect(await harness.server.waitUntil { $0.clientClosed(connection) })
    }

    @Test("a body without a length fails with tooLarge once the bytes counted pass maxBytes, without waiting for the rest")
    func tooLargeWhileStreaming() async throws {
        let harness = try FetchHarness(policy: testPolicy(maxBytes: 64 * 1024))
        defer { harness.stop() }
        // 256 KiB arrive, then nothing: the fetch must stop on the count, not at the end of a body that never ends.
        harness.server.route("/stream", LoopbackRoute(
            body: patternBytes(256 * 1024), sendsContentLength: false, ending: .stall(afterBytes: 256 * 1024)))
        let probe = FetchProbe()
        _ = harness.fetch("/stream", into: probe)
        #expect(await probe.error() == .tooLarge(url: harness.server.url("/stream").absoluteString, limit: 64 * 1024))
        let connection = try #require(harness.server.events.connections(requesting: "/stream").first)
        #expect(await harness.server.waitUntil { $0.clientClosed(connection) })
        #expect(harness.server.requestCount("/stream") == 1)
    }

    @Test("an unsupported scheme fails with unsupportedScheme, later, never inside fetch")
    func unsupportedScheme() async throws {
        let files = ManualExecutor()
        let fetcher = DataFetcher(fileQueue: WorkQueue("files", maxConcurrency: 1, executor: files))
        let probe = FetchProbe()
        _ = fetcher.fetch(URL(string: "ftp://example.com/a.png")!, priority: .normal, completion: probe.completion)
        #expect(probe.count == 0)
        files.runAll()
        #expect(await probe.error() == .unsupportedScheme("ftp"))
        #expect(FetchError.unsupportedScheme("ftp").description
            == "unsupported URL scheme 'ftp': only file, http and https URLs can be fetched")
    }
}
