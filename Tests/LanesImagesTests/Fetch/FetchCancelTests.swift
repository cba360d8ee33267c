import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Lanes
import LanesImages
import LanesTesting
import Testing

@Suite("Fetch cancellation and timeouts", .timeLimit(.minutes(5)))
struct FetchCancelTests {
    @Test("cancel mid-body: .cancelled exactly once, at once, and the server sees the connection close")
    func cancelDuringTransfer() async throws {
        let harness = try FetchHarness(policy: testPolicy())
        defer { harness.stop() }
        harness.server.route("/big", LoopbackRoute(body: patternBytes(1_000_000), ending: .stall(afterBytes: 10_000)))
        let probe = FetchProbe()
        let handle = harness.fetch("/big", into: probe)
        #expect(await harness.server.waitUntil { $0.contains { if case .stalled = $0 { true } else { false } } })
        let connection = try #require(harness.server.events.connections(requesting: "/big").first)

        handle.cancel()
        #expect(probe.log.elements.count == 1)  // delivered inside cancel()
        #expect(await probe.error(timeout: 0) == .cancelled)
        handle.cancel()  // idempotent

        #expect(await harness.server.waitUntil { $0.clientClosed(connection) })
        // URLSession's own end of the task arrives later; it must not complete the fetch again.
        #expect(await harness.tasksEnded("/big"))
        #expect(probe.count == 1)
    }

    @Test("cancel while the response is held: the server sees the connection close before answering")
    func cancelBeforeResponse() async throws {
        let harness = try FetchHarness(policy: testPolicy())
        defer { harness.stop() }
        harness.server.route("/held", LoopbackRoute(body: [1, 2, 3], latch: "go"))
        let probe = FetchProbe()
        let handle = harness.fetch("/held", into: probe)
        #expect(await harness.server.waitUntil { !$0.connections(requesting: "/held").isEmpty })
        handle.cancel()
        #expect(await probe.error(timeout: 0) == .cancelled)
        // Every connection that asked for /held is closed by the client (normally exactly one). The generous wait is
        // for the full ThreadSanitizer run on a loaded machine, where URLSession's own queue can lag by tens of
        // seconds; it costs nothing when the close arrives.
        #expect(await harness.server.waitUntil(timeout: 180) { events in
            events.connections(requesting: "/held").allSatisfy { events.clientClosed($0) }
        })
        #expect(await harness.tasksEnded("/held"))
        #expect(probe.count == 1)
    }

    @Test("cancel during a backoff wait: .cancelled at once, the retry never runs")
    func cancelDuringBackoff() async throws {
        let clock = VirtualClock()
        let harness = try FetchHarness(policy: testPolicy(clock: clock, attempts: 3))
        defer { harness.stop() }
        harness.server.route("/down", LoopbackRoute(body: [1], failFirst: .max))
        let probe = FetchProbe()
        let handle = harness.fetch("/down", into: probe)
        _ = try #require(await harness.retryScheduled("/down", attempt: 2))
        #expect(clock.scheduledCount == 1)  // just the retry (the attempt's timeout timer is gone)

        handle.cancel()
        #expect(await probe.error(timeout: 0) == .cancelled)
        #expect(clock.scheduledCount == 0)
        clock.advance(by: .seconds(60))
        #expect(harness.attempts("/down") == 1)
        #expect(harness.server.requestCount("/down") == 1)
        #expect(probe.count == 1)
    }

    @Test("each of many fetches completes exactly once when cancel races the answer")
    func exactlyOnceUnderRaces() async throws {
        let count = 24
        let configuration = DataFetcher.defaultConfiguration()
        configuration.httpMaximumConnectionsPerHost = count  // all in flight at once (the default is 6)
        let harness = try FetchHarness(policy: testPolicy(), maxRequests: count, configuration: configuration)
        defer { harness.stop() }
        harness.server.route("/race", LoopbackRoute(body: patternBytes(64), latch: "go"))
        let probes = (0..<count).map { _ in FetchProbe() }
        let handles = probes.map { harness.fetch("/race", into: $0) }
        #expect(await harness.server.waitUntil { $0.connections(requesting: "/race").count == count })
        // A third are cancelled before any answer, a third race the answers from other threads, and a third are
        // cancelled once their answer has been delivered (a no-op).
        for index in stride(from: 0, to: count, by: 3) { handles[index].cancel() }
        harness.server.open("go")
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<count where index % 3 != 0 {
                group.addTask {
                    if index % 3 == 2 { _ = await probes[index].log.waitUntil { !$0.isEmpty } }
                    handles[index].cancel()
                }
            }
        }
        // Every task URLSession started has reported its end: no late callback can complete anything now.
        let started = harness.attempts("/race")
        #expect(started == count)
        #expect(await harness.tasksEnded("/race", count: started))
        for (index, probe) in probes.enumerated() {
            #expect(probe.count == 1)
            let result = probe.log.elements.first
            let error: FetchError? = if case .failure(let error)? = result { error } else { nil }
            let succeeded = if case .success? = result { true } else { false }
            switch index % 3 {
            case 0: #expect(error == .cancelled)
            case 2: #expect(succeeded)
            default: #expect(succeeded || error == .cancelled)  // either side of the race, never both
            }
        }
    }

    @Test("nothing arriving for the timeout fails with timedOut and closes the connection (virtual clock)")
    func stallTimesOutOnTheClock() async throws {
        let clock = VirtualClock()
        // A long policy timeout: URLSession's real-time backstop (twice the policy's) must never fire first, even
        // when the test is starved of CPU by the rest of the suite.
        let harness = try FetchHarness(policy: testPolicy(clock: clock, attempts: 1, timeout: .seconds(600)))
        defer { harness.stop() }
        harness.server.route("/stall", LoopbackRoute(body: patternBytes(10_000), ending: .stall(afterBytes: 100)))
        let probe = FetchProbe()
        _ = harness.fetch("/stall", into: probe)
        #expect(await harness.server.waitUntil { $0.contains { if case .stalled = $0 { true } else { false } } })
        let connection = try #require(harness.server.events.connections(requesting: "/stall").first)
        clock.advance(by: .milliseconds(599_999))
        #expect(probe.count == 0)
        clock.advance(by: .milliseconds(1))
        #expect(await probe.error() == .timedOut(url: harness.server.url("/stall").absoluteString))
        #expect(await harness.server.waitUntil { $0.clientClosed(connection) })
    }

    @Test("a stall past a real 0.5 s timeout fails with timedOut in about that time")
    func stallTimesOutForReal() async throws {
        let policy = FetchPolicy(timeout: .milliseconds(500), retry: RetryPolicy(maxAttempts: 1))
        let harness = try FetchHarness(policy: policy)
        defer { harness.stop() }
        harness.server.route("/stall", LoopbackRoute(body: patternBytes(10_000), ending: .stall(afterBytes: 0)))
        let probe = FetchProbe()
        let start = ContinuousClock.now
        _ = harness.fetch("/stall", into: probe)
        #expect(await probe.error(timeout: 30) == .timedOut(url: harness.server.url("/stall").absoluteString))
        let elapsed = try #require(probe.times.elements.first) - start
        // Not before the timeout; the upper bound only says "did not hang" (the machine may be loaded).
        #expect(elapsed >= .milliseconds(450) && elapsed < .seconds(30), "took \(elapsed)")
    }
}
