import Foundation
import Lanes
import LanesImages
import LanesTesting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Backoff waits run on a `VirtualClock`: no retry happens until the test moves the clock, so each step is checked
/// before the next one can start.
@Suite("Fetch retries with backoff on the policy's clock", .timeLimit(.minutes(5)))
struct FetchRetryTests {
    @Test("500, 500, then 200: succeeds on the third request, each retry waiting for its backoff on the clock")
    func recoversAfterServerErrors() async throws {
        let clock = VirtualClock()
        let harness = try FetchHarness(policy: testPolicy(clock: clock, attempts: 3, initialDelay: .milliseconds(100)))
        defer { harness.stop() }
        let body = patternBytes(2000)
        harness.server.route("/flaky", LoopbackRoute(body: body, failFirst: 2))
        let probe = FetchProbe()
        _ = harness.fetch("/flaky", into: probe)

        #expect(await harness.retryScheduled("/flaky", attempt: 2) == .milliseconds(100))
        #expect(harness.server.requestCount("/flaky") == 1)  // nothing more until the clock moves
        clock.advance(by: .milliseconds(99))
        #expect(harness.attempts("/flaky") == 1)
        clock.advance(by: .milliseconds(1))
        #expect(harness.attempts("/flaky") == 2)

        #expect(await harness.retryScheduled("/flaky", attempt: 3) == .milliseconds(200))
        #expect(harness.server.requestCount("/flaky") == 2)
        clock.advance(by: .milliseconds(200))

        let result = try #require(await probe.result())
        #expect(try result.get() == Data(body))
        #expect(harness.server.requestCount("/flaky") == 3)
        #expect(probe.count == 1)
    }

    @Test("500 every time: fails with HTTP 500 after maxAttempts requests")
    func givesUpAfterMaxAttempts() async throws {
        let clock = VirtualClock()
        let harness = try FetchHarness(policy: testPolicy(clock: clock, attempts: 3))
        defer { harness.stop() }
        harness.server.route("/down", LoopbackRoute(body: [1], failFirst: .max))
        let probe = FetchProbe()
        _ = harness.fetch("/down", into: probe)
        for attempt in 2...3 {
            let delay = try #require(await harness.retryScheduled("/down", attempt: attempt))
            clock.advance(by: delay)
        }
        #expect(await probe.error() == .httpStatus(code: 500, url: harness.server.url("/down").absoluteString))
        #expect(harness.server.requestCount("/down") == 3)
        #expect(harness.attempts("/down") == 3)
    }

    @Test("a reset mid-body is a short body (how much of how much), retried as configured")
    func resetMidBody() async throws {
        let clock = VirtualClock()
        let harness = try FetchHarness(policy: testPolicy(clock: clock, attempts: 2))
        defer { harness.stop() }
        harness.server.route("/cut", LoopbackRoute(body: patternBytes(100_000), ending: .reset(afterBytes: 1000)))
        let probe = FetchProbe()
        _ = harness.fetch("/cut", into: probe)
        let delay = try #require(await harness.retryScheduled("/cut", attempt: 2))
        clock.advance(by: delay)
        let error = try #require(await probe.error())
        guard case .shortBody(let url, let received, let expected) = error else {
            Issue.record("expected a short body, got \(error)")
            return
        }
        #expect(url == harness.server.url("/cut").absoluteString)
        #expect(received <= 1000 && expected == 100_000)
        #expect(error.description.hasPrefix("\(url): the connection closed after "))
        #expect(harness.server.requestCount("/cut") == 2)
        #expect(harness.server.events.filter { if case .reset = $0 { true } else { false } }.count == 2)
    }

    @Test("a refused connection is a connection error, retried as configured")
    func connectionRefused() async throws {
        // A port that was just free: bind, read the number, close.
        let (fd, port) = try LoopbackSocket.makeListener()
        close(fd)
        let clock = VirtualClock()
        let events = WaitableLog<FetchEvent>()
        let fetcher = DataFetcher(policy: testPolicy(clock: clock, attempts: 2), configuration: nil, fileQueue: nil) {
            events.append($0)
        }
        let url = URL(string: "http://127.0.0.1:\(port)/nothing")!
        let probe = FetchProbe()
        _ = fetcher.fetch(url, priority: .normal, completion: probe.completion)
        #expect(await events.waitUntil { $0.contains { if case .retryScheduled = $0 { true } else { false } } })
        clock.advance(by: .milliseconds(100))
        let error = try #require(await probe.error())
        guard case .connection(url.absoluteString, let reason) = error else {
            Issue.record("expected a connection error, got \(error)")
            return
        }
        #expect(reason.contains("could not connect"), "\(reason)")
        #expect(events.elements.filter { if case .attemptStarted = $0 { true } else { false } }.count == 2)
    }
}
