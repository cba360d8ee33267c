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
}
