import Foundation
import Lanes
import LanesImages
import LanesTesting
import Testing

/// A server that announces more than it sends and then closes the connection cleanly (no reset): the transfer failed,
/// whatever the body's encoding or framing. A short body is never handed on as an image.
@Suite("Fetch: a body that ends short is a failed fetch", .timeLimit(.minutes(5)))
struct FetchShortBodyTests {
    static let body = patternBytes(20_000)

    @Test("plain: Content-Length 5,000 bytes more than sent, then a clean close: a short body naming both counts")
    func plainCutShort() async throws {
        let harness = try FetchHarness(policy: testPolicy(attempts: 1))
        defer { harness.stop() }
        harness.server.route("/plain", LoopbackRoute(body: Self.body, ending: .close(afterBytes: 15_000)))
        let probe = FetchProbe()
        _ = harness.fetch("/plain", into: probe)
        let error = try #require(await probe.error())
        #expect(error == .shortBody(url: harness.server.url("/plain").absoluteString, received: 15_000, expected: 20_000))
        #expect(error.description.contains("15000") || error.description.contains("15,000"))
    }

    @Test("gzip: the encoded body cut short, then a clean close: a failed fetch, never the bytes that arrived")
    func gzipCutShort() async throws {
        let encoded = Gzip.stored(Self.body)
        let harness = try FetchHarness(policy: testPolicy(attempts: 1))
        defer { harness.stop() }
        harness.server.route("/gz", LoopbackRoute(
            body: encoded, headers: ["Content-Encoding": "gzip"], ending: .close(afterBytes: encoded.count - 5000)))
        let probe = FetchProbe()
        _ = harness.fetch("/gz", into: probe)
        let error = try #require(await probe.error())
        let url = harness.server.url("/gz").absoluteString
        switch error {
        case .shortBody(url, _, encoded.count), .encodedBodyFailed(url, "gzip"): break
        default: Issue.record("expected a short or undecodable body, got \(error)")
        }
    }

    @Test("chunked: the connection closes inside the chunks (no last chunk): a failed fetch")
    func chunkedCutShort() async throws {
        let harness = try FetchHarness(policy: testPolicy(attempts: 1))
        defer { harness.stop() }
        harness.server.route("/chunked", LoopbackRoute(
            body: Self.body, ending: .close(afterBytes: 12_000), chunkSize: 4096))
        let probe = FetchProbe()
        _ = harness.fetch("/chunked", into: probe)
        let error = try #require(await probe.error())
        let url = harness.server.url("/chunked").absoluteString
        switch error {
        case .shortBody(url, _, _), .connection(url, _): break
        default: Issue.record("expected a short body, got \(error)")
        }
    }
}
