import Foundation
import Lanes
@testable import LanesImages
import LanesTesting
import Testing

/// The transfer state machine on its own (task references are plain numbers): every path hands the completion out
/// once, with the right result, and asks for the right side effects.
@Suite("Fetch transfer state machine", .timeLimit(.minutes(5)))
struct FetchStateMachineTests {
    typealias Log = Recorder<Result<Data, FetchError>>
    typealias State = TransferState<Int>

    func makeState(
        attempts: Int = 3, maxBytes: Int = 100, attemptTimeout: Duration? = nil,
        minimumRate: TransferRate? = nil, deadline: Duration? = nil, timeout: Duration = .seconds(1),
        log: Recorder<Result<Data, FetchError>>
    ) -> State {
        let retry = RetryPolicy(
            maxAttempts: attempts, initialDelay: .milliseconds(10), jitter: 0, attemptTimeout: attemptTimeout)
        let policy = FetchPolicy(timeout: timeout, retry: retry, maxBytes: maxBytes, clock: VirtualClock(),
                                 deadline: deadline, minimumRate: minimumRate)
        return State(url: "http://host/a", policy: policy) { log.append($0) }
    }

    /// Runs the completion an effect carries, as the transfer does after leaving the lock.
    func deliver(_ effects: TransferEffects<Int>) {
        if let (completion, result) = effects.completion { completion(result) }
    }

    @Test("success hands out the body once; later events do nothing")
    func success() throws {
        let log = Recorder<Result<Data, FetchError>>()
        var state = makeState(log: log)
        let began = state.begin(attempt: 1, taskID: 10, task: 10, now: 0)
        #expect(began)
        deliver(state.response(taskID: 10, status: 200, expectedLength: 3, now: 1))
        deliver(state.received(taskID: 10, Data([1, 2, 3]), now: 2))
        let done = state.completed(taskID: 10, error: nil)
        #expect(done.cancelTask == nil)
        deliver(done)
        deliver(state.cancel())
        deliver(state.completed(taskID: 10, error: .cancelled))
        #expect(log.elements.count == 1)
        #expect(try log.elements.first?.get() == Data([1, 2, 3]))
    }

    @Test("cancel while running stops the task and completes once; its late end is ignored")
    func cancelRunning() {
        let log = Recorder<Result<Data, FetchError>>()
        var state = makeState(log: log)
        _ = state.begin(attempt: 1, taskID: 10, task: 10, now: 0)
        let effects = state.cancel()
        #expect(effects.cancelTask == 10)
        deliver(effects)
        deliver(state.completed(taskID: 10, error: .cancelled))
        deliver(state.cancel())
        #expect(log.elements.count == 1)
        #expect(state.isFinished)
        #expect(failure(of: log.elements.first) == .cancelled)
    }

    @Test("a 503 schedules the next attempt; events of the old task are then ignored; cancel in the wait completes")
    func retryThenCancel() {
        let log = Recorder<Result<Data, FetchError>>()
        var state = makeState(log: log)
        _ = state.begin(attempt: 1, taskID: 10, task: 10, now: 0)
        let failed = state.response(taskID: 10, status: 503, expectedLength: 0, now: 1)
        #expect(failed.cancelTask == 10)
        #expect(failed.completion == nil)
        #expect(failed.retry?.attempt == 2)
        #expect(failed.retry?.delay == .milliseconds(10))
        #expect(state.mayLaunch(2))
        deliver(state.completed(taskID: 10, error: .cancelled))  // the old task's end: ignored
        #expect(log.elements.isEmpty)
        let token = ScheduledToken {}
        let stored = state.storeRetry(attempt: 2, token)
        #expect(stored)
        let cancelled = state.cancel()
        #expect(cancelled.tokens.contains { $0 === token })
        #expect(cancelled.cancelTask == nil)
        deliver(cancelled)
        let relaunched = state.begin(attempt: 2, taskID: 11, task: 11, now: 2)
        #expect(!relaunched)  // the retry firing late finds it over
        #expect(log.elements.count == 1)
    }

    @Test("a 404, too many bytes, and the last failed attempt end the fetch without a retry")
    func finalFailures() {
        let log = Recorder<Result<Data, FetchError>>()
        var notFound = makeState(log: log)
        _ = notFound.begin(attempt: 1, taskID: 1, task: 1, now: 0)
        let effects = notFound.response(taskID: 1, status: 404, expectedLength: 10, now: 0)
        #expect(effects.retry == nil && effects.cancelTask == 1)
        deliver(effects)

        var tooLarge = makeState(maxBytes: 4, log: log)
        _ = tooLarge.begin(attempt: 1, taskID: 2, task: 2, now: 0)
        deliver(tooLarge.response(taskID: 2, status: 200, expectedLength: -1, now: 0))
        deliver(tooLarge.received(taskID: 2, Data([1, 2, 3]), now: 0))
        let over = tooLarge.received(taskID: 2, Data([4, 5]), now: 0)
        #expect(over.cancelTask == 2)
        deliver(over)

        var lastAttempt = makeState(attempts: 1, log: log)
        _ = lastAttempt.begin(attempt: 1, taskID: 3, task: 3, now: 0)
        deliver(lastAttempt.completed(taskID: 3, error: .connection(url: "http://host/a", reason: "reset")))

        let errors = log.elements.compactMap { if case .failure(let error) = $0 { error } else { nil } }
        #expect(errors == [
            .httpStatus(code: 404, url: "http://host/a"), .tooLarge(url: "http://host/a", limit: 4),
            .connection(url: "http://host/a", reason: "reset"),
        ])
    }

    @Test("the timer re-arms while bytes keep arriving and expires after the idle timeout")
    func idleTimeout() {
        let log = Recorder<Result<Data, FetchError>>()
        var state = makeState(attempts: 1, log: log)
        let second: UInt64 = 1_000_000_000
        _ = state.begin(attempt: 1, taskID: 1, task: 1, now: 0)
        deliver(state.response(taskID: 1, status: 200, expectedLength: -1, now: second / 2))
        guard case .rearm(let next) = state.timerFired(taskID: 1, now: second) else {
            Issue.record("expected the timer to re-arm")
            return
        }
        #expect(next == second + second / 2)
        guard case .expired(let effects) = state.timerFired(taskID: 1, now: next) else {
            Issue.record("expected a timeout")
            return
        }
        #expect(effects.cancelTask == 1)
        deliver(effects)
        #expect(failure(of: log.elements.first) == .timedOut(url: "http://host/a"))
        #expect(log.elements.count == 1)
    }

    @Test("retry.attemptTimeout limits a whole attempt even while bytes keep arriving")
    func attemptTimeout() {
        let log = Recorder<Result<Data, FetchError>>()
        var state = makeState(attempts: 1, attemptTimeout: .seconds(2), log: log)
        let half: UInt64 = 500_000_000
        _ = state.begin(attempt: 1, taskID: 1, task: 1, now: 0)
        var now: UInt64 = 0
        while now < 4 * half {
            now += half
            deliver(state.received(taskID: 1, Data([1]), now: now))
            if case .expired(let effects) = state.timerFired(taskID: 1, now: now) { deliver(effects) }
        }
        #expect(state.isFinished)
        #expect(log.elements.count == 1)
        #expect(failure(of: log.elements.first) == .timedOut(url: "http://host/a"))
    }
}

/// The error of a failed result; nil for a success or no result (so an `#expect` on it fails for both).
func failure(of result: Result<Data, FetchError>?) -> FetchError? {
    if case .failure(let error)? = result { return error }
    return nil
}
