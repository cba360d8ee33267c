import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Lanes
import LanesImages
import LanesTesting
import Testing

/// Collects the completions of one fetch, and when each came.
final class FetchProbe: Sendable {
    let log = WaitableLog<Result<Data, FetchError>>()
    let times = WaitableLog<ContinuousClock.Instant>()

    var completion: @Sendable (Result<Data, FetchError>) -> Void {
        { [log, times] result in
            times.append(.now)
            log.append(result)
        }
    }

    /// How many times the completion ran.
    var count: Int { log.elements.count }

    /// The first completion, waiting up to `timeout` seconds for it (nil if none came).
    func result(timeout: Double = 180) async -> Result<Data, FetchError>? {
        _ = await log.waitUntil(timeout: timeout) { !$0.isEmpty }
        return log.elements.first
    }

    /// The error of the first completion, or nil if it succeeded or never came.
    func error(timeout: Double = 180) async -> FetchError? {
        guard case .failure(let error)? = await result(timeout: timeout) else { return nil }
        return error
    }
}

/// A loopback server, a fetcher following `policy` and a log of the fetcher's events.
struct FetchHarness {
    let server: LoopbackServer
    let fetcher: DataFetcher
    let events = WaitableLog<FetchEvent>()

    init(policy: FetchPolicy, maxRequests: Int = 16, configuration: URLSessionConfiguration? = nil) throws {
        server = try LoopbackServer(maxRequests: maxRequests)
        let events = self.events
        fetcher = DataFetcher(policy: policy, configuration: configuration, fileQueue: nil) { events.append($0) }
    }

    /// Starts fetching `path` from the server.
    func fetch(_ path: String, priority: WorkPriority = .normal, into probe: FetchProbe) -> any FetchHandle {
        fetcher.fetch(server.url(path), priority: priority, completion: probe.completion)
    }

    /// How many attempts the fetcher started for `path`.
    func attempts(_ path: String) -> Int {
        let url = server.url(path).absoluteString
        return events.elements.filter { if case .attemptStarted(url, _) = $0 { true } else { false } }.count
    }

    /// Waits until the fetcher has scheduled retry attempt `attempt` of `path`; returns its delay.
    func retryScheduled(_ path: String, attempt: Int) async -> Duration? {
        let url = server.url(path).absoluteString
        @Sendable func find(_ events: [FetchEvent]) -> Duration? {
            for case .retryScheduled(url, attempt, let delay, _) in events { return delay }
            return nil
        }
        _ = await events.waitUntil { find($0) != nil }
        return find(events.elements)
    }

    /// Waits until URLSession has reported the end of `count` tasks for `path`.
    func tasksEnded(_ path: String, count: Int = 1) async -> Bool {
        let url = server.url(path).absoluteString
        return await events.waitUntil { events in
            events.filter { if case .taskEnded(url, _) = $0 { true } else { false } }.count >= count
        }
    }

    func stop() { server.stop() }
}

/// A policy for loopback tests: a virtual clock, no jitter, and the given attempts and delays.
///
/// The timeout defaults to an hour of virtual time: it only fires when a test advances the clock, and URLSession's
/// real-time backstop (twice the policy's timeout) must never fire in a test that runs slowly — under
/// ThreadSanitizer on a loaded machine a single test can take minutes.
func testPolicy(
    clock: VirtualClock = VirtualClock(), attempts: Int = 3, initialDelay: Duration = .milliseconds(100),
    timeout: Duration = .seconds(3600), maxBytes: Int = FetchPolicy.defaultMaxBytes,
    deadline: Duration? = nil, minimumRate: TransferRate? = nil
) -> FetchPolicy {
    FetchPolicy(
        timeout: timeout,
        retry: RetryPolicy(maxAttempts: attempts, initialDelay: initialDelay, multiplier: 2, jitter: 0),
        maxBytes: maxBytes, clock: clock, deadline: deadline, minimumRate: minimumRate)
}

/// `count` bytes of a repeating pattern.
func patternBytes(_ count: Int) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        for index in 0..<count { buffer[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
        initialized = count
    }
}
