import Foundation
import Lanes
import LanesImages
import LanesTesting
import Testing

/// The test server's own guarantees: it is bounded, and stopping it never hangs, whatever its connections are doing.
@Suite("Fetch test server bounds", .timeLimit(.minutes(5)))
struct FetchLoopbackServerTests {
    @Test("requests beyond the limit are refused with a reset, which the fetch reports as a connection error")
    func refusesBeyondLimit() async throws {
        let harness = try FetchHarness(policy: testPolicy(attempts: 1), maxRequests: 1)
        defer { harness.stop() }
        harness.server.route("/a", LoopbackRoute(body: [1]))
        let first = FetchProbe(), second = FetchProbe()
        _ = harness.fetch("/a", into: first)
        #expect(try #require(await first.result()).get() == Data([1]))
        _ = harness.fetch("/a", into: second)
        let error = await second.error()
        guard case .connection? = error else {
            Issue.record("expected a connection error, got \(String(describing: error))")
            return
        }
        #expect(harness.server.events.contains(.refused(connection: 2)))
    }

    @Test("stop() returns promptly with a stalled and a held connection; their fetches fail instead of hanging")
    func stopEndsEverything() async throws {
        let harness = try FetchHarness(policy: testPolicy(attempts: 1))
        harness.server.route("/stall", LoopbackRoute(body: patternBytes(1000), ending: .stall(afterBytes: 10)))
        harness.server.route("/held", LoopbackRoute(body: [1], latch: "never"))
        let stalled = FetchProbe(), held = FetchProbe()
        _ = harness.fetch("/stall", into: stalled)
        _ = harness.fetch("/held", into: held)
        #expect(await harness.server.waitUntil { events in
            events.contains { if case .stalled = $0 { true } else { false } }
                && !events.connections(requesting: "/held").isEmpty
        })
        let start = ContinuousClock.now
        harness.stop()
        #expect(ContinuousClock.now - start < .seconds(10))  // "did not wait for the safety timeout"
        harness.stop()  // idempotent
        for probe in [stalled, held] {
            let error = await probe.error()
            switch error {
            case .connection?, .shortBody?: continue  // the stalled one had announced its length
            default: Issue.record("expected a connection error, got \(String(describing: error))")
            }
        }
    }

    @Test("stop() returns at once while a response is being written to a client that stopped reading")
    func stopDoesNotWaitForAWriterBlockedByItsClient() async throws {
        let server = try LoopbackServer()
        server.route("/big", LoopbackRoute(body: patternBytes(32 << 20)))   // far more than the socket buffers hold
        let client = try LoopbackSocket.connect(port: server.port)
        defer { close(client) }
        #expect(LoopbackSocket.write(client, Array("GET /big HTTP/1.1\r\nHost: x\r\n\r\n".utf8), wake: [], timeout: 60))
        #expect(await server.waitUntil { $0.contains(.headersSent(connection: 1)) })
        // The client reads nothing: the server's write waits for room in the socket's buffer, for good.
        let start = ContinuousClock.now
        server.stop()
        #expect(ContinuousClock.now - start < .seconds(1), "stop() blocked its caller")
        // The writer noticed the stop at once (before the fix it sat in send() for the 300 s safety timeout).
        #expect(await server.waitUntil(timeout: 60) { $0.contains(.clientClosed(connection: 1)) })
    }
}
