import Foundation
import Lanes
import LanesImages
import LanesTesting
import Testing

/// Every failure class over a real connection ends with its own one-line message, and the ones that cannot get better
/// are not retried.
@Suite("Fetch ends over HTTP: messages for every failure class", .timeLimit(.minutes(5)))
struct FetchEndsHTTPTests {
    @Test("a redirect to file:///etc/passwd is refused and named, not reported as HTTP 404")
    func redirectToFile() async throws {
        let harness = try FetchHarness(policy: testPolicy(attempts: 3))
        defer { harness.stop() }
        harness.server.route("/r", LoopbackRoute(status: 302, headers: ["Location": "file:///etc/passwd"]))
        let probe = FetchProbe()
        _ = harness.fetch("/r", into: probe)
        let error = try #require(await probe.error())
        #expect(error == .redirectRefused(url: harness.server.url("/r").absoluteString, location: "file:///etc/passwd"))
        #expect(error.description.contains("redirected to file:///etc/passwd"))
        #expect(harness.server.requestCount("/r") == 1)
    }

    @Test("a redirect loop fails once with redirectLoop: one request per hop, no retries")
    func redirectLoop() async throws {
        let harness = try FetchHarness(policy: testPolicy(attempts: 3))
        defer { harness.stop() }
        harness.server.route("/a", LoopbackRoute(status: 302, headers: ["Location": harness.server.url("/b").absoluteString]))
        harness.server.route("/b", LoopbackRoute(status: 302, headers: ["Location": harness.server.url("/a").absoluteString]))
        let probe = FetchProbe()
        _ = harness.fetch("/a", into: probe)
        let error = try #require(await probe.error())
        #expect(error == .redirectLoop(url: harness.server.url("/a").absoluteString))
        #expect(error.description.hasSuffix("too many redirects (a redirect loop)"))
        #expect(harness.server.requestCount("/a") == 1)  // was 3 attempts × a dozen hops
        #expect(harness.server.requestCount("/b") == 1)
    }

    @Test("an answer that is not HTTP says so")
    func notHTTP() async throws {
        let harness = try FetchHarness(policy: testPolicy(attempts: 3))
        defer { harness.stop() }
        harness.server.route("/ssh", LoopbackRoute(raw: Array("SSH-2.0-OpenSSH_9.2\r\nprotocol mismatch\r\n".utf8)))
        let probe = FetchProbe()
        _ = harness.fetch("/ssh", into: probe)
        let error = try #require(await probe.error())
        #expect(error == .notHTTP(url: harness.server.url("/ssh").absoluteString), "\(error)")
        #expect(harness.server.requestCount("/ssh") == 1)
    }

    @Test("a body slower than the minimum rate fails with tooSlow when its window ends, and closes the connection")
    func tooSlow() async throws {
        let clock = VirtualClock()
        let rate = TransferRate(bytesPerSecond: 1024, window: .seconds(20))
        let harness = try FetchHarness(policy: testPolicy(clock: clock, attempts: 3, minimumRate: rate))
        defer { harness.stop() }
        harness.server.route("/slow", LoopbackRoute(body: patternBytes(223_000), ending: .stall(afterBytes: 10)))
        let probe = FetchProbe()
        _ = harness.fetch("/slow", into: probe)
        #expect(await harness.server.waitUntil { $0.contains(.stalled(connection: 1)) })
        // The fetcher has the response head, so its rate window is running (and its timer armed for the window's end).
        #expect(await harness.events.waitUntil { $0.contains { if case .responseReceived = $0 { true } else { false } } })
        clock.advance(by: .seconds(20))
        let error = try #require(await probe.error())
        #expect(error == .tooSlow(url: harness.server.url("/slow").absoluteString, bytesPerSecond: 1024))
        #expect(await harness.server.waitUntil { $0.clientClosed(1) })
        #expect(harness.server.requestCount("/slow") == 1)
    }

    @Test("the overall deadline ends a stalled fetch even with a long idle timeout and retries left")
    func deadline() async throws {
        let clock = VirtualClock()
        let harness = try FetchHarness(policy: testPolicy(clock: clock, attempts: 5, deadline: .seconds(45)))
        defer { harness.stop() }
        harness.server.route("/stall", LoopbackRoute(body: patternBytes(1000), ending: .stall(afterBytes: 10)))
        let probe = FetchProbe()
        _ = harness.fetch("/stall", into: probe)
        #expect(await harness.server.waitUntil { $0.contains(.stalled(connection: 1)) })
        clock.advance(by: .seconds(45))
        let error = try #require(await probe.error())
        #expect(error == .deadlineExceeded(url: harness.server.url("/stall").absoluteString, seconds: 45))
        #expect(error.description.hasSuffix("gave up after 45 s (the fetch's time limit)"))
        #expect(await harness.server.waitUntil { $0.clientClosed(1) })
    }

    @Test("a deflate-encoded body is counted as it inflates: 16 KB inflating to 16 MB fails at a 1 MB limit")
    func inflatedBodyIsCounted() async throws {
        // A zlib stream of 16 MB of zeros: the IDAT data of an encoded all-zero image.
        let zeros = Bitmap(width: 2048, height: 2048, pixels: [UInt8](repeating: 0, count: 2048 * 2048 * 4))
        let stream = HostilePNGTests.chunkData(
            "IDAT", in: try [UInt8](ImageEncoder().encode(zeros, as: .png(compressionLevel: 9))))
        #expect(stream.count < 100_000)
        let harness = try FetchHarness(policy: testPolicy(attempts: 3, maxBytes: 1 << 20))
        defer { harness.stop() }
        harness.server.route("/bomb", LoopbackRoute(body: stream, headers: ["Content-Encoding": "deflate"]))
        let probe = FetchProbe()
        _ = harness.fetch("/bomb", into: probe)
        #expect(await probe.error() == .tooLarge(url: harness.server.url("/bomb").absoluteString, limit: 1 << 20))
        #expect(harness.server.requestCount("/bomb") == 1)
    }

    @Test("a response refused by its Content-Length closes its connection, though the body never ends")
    func refusedResponseStopsReading() async throws {
        let harness = try FetchHarness(policy: testPolicy(attempts: 3, maxBytes: 1 << 20))
        defer { harness.stop() }
        // Announces 2 GB, then sends zeros as fast as they are taken, for ever: only closing the connection ends it.
        harness.server.route("/huge", LoopbackRoute(body: [0], headers: ["Content-Length": "2000000000"],
                                                    sendsContentLength: false, ending: .endless))
        let probe = FetchProbe()
        _ = harness.fetch("/huge", into: probe)
        #expect(await probe.error() == .tooLarge(url: harness.server.url("/huge").absoluteString, limit: 1 << 20))
        #expect(await harness.server.waitUntil(timeout: 60) { $0.clientClosed(1) })
        #expect(harness.server.requestCount("/huge") == 1)
    }

    @Test("Retry-After on a 503 sets the wait before the next attempt")
    func retryAfter() async throws {
        let clock = VirtualClock()
        let harness = try FetchHarness(policy: testPolicy(clock: clock, attempts: 2))
        defer { harness.stop() }
        harness.server.route("/busy", LoopbackRoute(status: 503, body: Array("busy".utf8), headers: ["Retry-After": "7"]))
        let probe = FetchProbe()
        _ = harness.fetch("/busy", into: probe)
        #expect(await harness.retryScheduled("/busy", attempt: 2) == .seconds(7))
        clock.advance(by: .seconds(7))
        #expect(await probe.error() == .httpStatus(code: 503, url: harness.server.url("/busy").absoluteString))
        #expect(harness.server.requestCount("/busy") == 2)
    }
}
