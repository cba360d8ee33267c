import Foundation
import Lanes
@testable import LanesImages
import LanesTesting
import Testing

/// Every fetch ends, and says why: the overall deadline, the minimum rate, `Retry-After`, redirects and short bodies
/// in the transfer state machine, driven without URLSession.
@Suite("Fetch ends: deadline, rate, Retry-After, redirects", .timeLimit(.minutes(5)))
struct FetchEndsStateTests {
    typealias State = TransferState<Int>
    let machine = FetchStateMachineTests()
    let second: UInt64 = 1_000_000_000
    let url = "http://host/a"

    @Test("a body slower than the minimum rate fails with tooSlow once a window passes short, and is not retried")
    func minimumRate() {
        let log = FetchStateMachineTests.Log()
        var state = machine.makeState(attempts: 3, maxBytes: 1 << 20,
                                      minimumRate: TransferRate(bytesPerSecond: 100, window: .seconds(10)),
                                      timeout: .seconds(60), log: log)
        _ = state.begin(attempt: 1, taskID: 1, task: 1, now: 0)
        machine.deliver(state.response(taskID: 1, status: 200, expectedLength: -1, now: 0))
        #expect(state.deadline == 10 * second)  // the window ends before the idle timeout
        // First window: 1,000 bytes in 10 s, exactly the rate: re-armed for the next window.
        for tick in 1...10 { machine.deliver(state.received(taskID: 1, Data(count: 100), now: UInt64(tick) * second)) }
        guard case .rearm(let next) = state.timerFired(taskID: 1, now: 10 * second) else {
            Issue.record("expected the rate check to pass")
            return
        }
        #expect(next == 20 * second)
        // Second window: 10 bytes a second (a 223 KB body would take six hours).
        for tick in 11...20 { machine.deliver(state.received(taskID: 1, Data(count: 10), now: UInt64(tick) * second)) }
        guard case .expired(let effects) = state.timerFired(taskID: 1, now: next) else {
            Issue.record("expected tooSlow")
            return
        }
        #expect(effects.retry == nil)
        #expect(effects.cancelTask == 1)
        machine.deliver(effects)
        #expect(failure(of: log.elements.first) == .tooSlow(url: url, bytesPerSecond: 100))
        #expect(FetchError.tooSlow(url: url, bytesPerSecond: 100).description.contains("too slowly"))
    }

    @Test("the overall deadline ends a fetch whose bytes keep trickling in, across attempts")
    func overallDeadline() {
        let log = FetchStateMachineTests.Log()
        var state = machine.makeState(attempts: 5, maxBytes: 1 << 20, deadline: .seconds(30), timeout: .seconds(10),
                                      log: log)
        _ = state.begin(attempt: 1, taskID: 1, task: 1, now: 0)
        // Attempt 1 fails with a 503 at 20 s: attempt 2 is scheduled.
        let failed = state.response(taskID: 1, status: 503, expectedLength: 0, now: 20 * second)
        #expect(failed.retry?.attempt == 2)
        _ = state.begin(attempt: 2, taskID: 2, task: 2, now: 21 * second)
        machine.deliver(state.response(taskID: 2, status: 200, expectedLength: -1, now: 21 * second))
        var now = 21 * second
        while now < 29 * second {
            now += second
            machine.deliver(state.received(taskID: 2, Data(count: 1), now: now))
        }
        #expect(state.deadline == 30 * second)  // not the idle timeout at 39 s
        guard case .expired(let effects) = state.timerFired(taskID: 2, now: 30 * second) else {
            Issue.record("expected the deadline to end the fetch")
            return
        }
        #expect(effects.retry == nil)
        machine.deliver(effects)
        #expect(state.isFinished)
        #expect(failure(of: log.elements.first) == .deadlineExceeded(url: url, seconds: 30))
        #expect(log.elements.count == 1)
    }

    @Test("no retry is scheduled to start after the deadline: the attempt's own error ends the fetch")
    func retryPastTheDeadline() {
        let log = FetchStateMachineTests.Log()
        var state = machine.makeState(attempts: 5, deadline: .seconds(30), log: log)
        _ = state.begin(attempt: 1, taskID: 1, task: 1, now: 0)
        let effects = state.response(taskID: 1, status: 503, expectedLength: 0, retryAfter: .seconds(20),
                                     now: 15 * second)
        #expect(effects.retry == nil)
        machine.deliver(effects)
        #expect(failure(of: log.elements.first) == .httpStatus(code: 503, url: url))
    }

    @Test("Retry-After is honoured, up to maxRetryAfter")
    func retryAfter() {
        let log = FetchStateMachineTests.Log()
        var state = machine.makeState(attempts: 3, log: log)
        _ = state.begin(attempt: 1, taskID: 1, task: 1, now: 0)
        let first = state.response(taskID: 1, status: 503, expectedLength: 0, retryAfter: .seconds(7), now: 0)
        #expect(first.retry?.delay == .seconds(7))
        _ = state.begin(attempt: 2, taskID: 2, task: 2, now: 7 * second)
        let second = state.response(taskID: 2, status: 503, expectedLength: 0, retryAfter: .seconds(3600), now: 0)
        #expect(second.retry?.delay == .seconds(30))  // the default cap
        #expect(RetryAfter.parse("120") == .seconds(120))
        #expect(RetryAfter.parse("soon") == nil)
        #expect(RetryAfter.parse("-5") == nil)
        let now = Date(timeIntervalSince1970: 1_784_000_000)
        let later = Date(timeIntervalSince1970: 1_784_000_045)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        #expect(RetryAfter.parse(formatter.string(from: later), now: now) == .seconds(45))
    }

    @Test("4xx answers (429 too) are never retried; 5xx are")
    func clientErrorsAreFinal() {
        for (code, retried) in [(400, false), (404, false), (429, false), (500, true), (503, true)] {
            let log = FetchStateMachineTests.Log()
            var state = machine.makeState(attempts: 3, log: log)
            _ = state.begin(attempt: 1, taskID: 1, task: 1, now: 0)
            let effects = state.response(taskID: 1, status: code, expectedLength: 0, retryAfter: .seconds(1), now: 0)
            #expect((effects.retry != nil) == retried, "HTTP \(code)")
        }
    }

    @Test("a redirect to a non-http(s) URL is refused and named; loops and long chains end the fetch unretried")
    func redirects() throws {
        let passwd = try #require(URL(string: "file:///etc/passwd"))
        var log = FetchStateMachineTests.Log()
        var state = machine.makeState(attempts: 3, log: log)
        _ = state.begin(attempt: 1, taskID: 1, task: 1, now: 0)
        let refused = state.redirect(taskID: 1, to: passwd, now: 0)
        #expect(!refused.follow)
        #expect(refused.effects.retry == nil)
        machine.deliver(refused.effects)
        let error = try #require(failure(of: log.elements.first))
        #expect(error == .redirectRefused(url: url, location: "file:///etc/passwd"))
        #expect(error.description.contains("file:///etc/passwd") && error.description.contains("not an http(s) URL"))

        log = FetchStateMachineTests.Log()
        state = machine.makeState(attempts: 3, log: log)
        _ = state.begin(attempt: 1, taskID: 1, task: 1, now: 0)
        let b = try #require(URL(string: "http://host/b")), c = try #require(URL(string: "http://host/c"))
        #expect(state.redirect(taskID: 1, to: b, now: 0).follow)
        #expect(state.redirect(taskID: 1, to: c, now: 0).follow)
        let loop = state.redirect(taskID: 1, to: b, now: 0)
        #expect(!loop.follow && loop.effects.retry == nil)
        machine.deliver(loop.effects)
        #expect(failure(of: log.elements.first) == .redirectLoop(url: url))

        log = FetchStateMachineTests.Log()
        state = machine.makeState(attempts: 3, log: log)
        _ = state.begin(attempt: 1, taskID: 1, task: 1, now: 0)
        var followed = 0
        for hop in 0..<20 {
            let step = state.redirect(taskID: 1, to: URL(string: "http://host/hop\(hop)"), now: 0)
            machine.deliver(step.effects)
            guard step.follow else { break }
            followed += 1
        }
        #expect(followed == 10)  // FetchPolicy.maxRedirects
        #expect(failure(of: log.elements.first) == .redirectLoop(url: url))
    }

    @Test("a body cut short of its Content-Length is a short body (retried), whatever URLSession reported")
    func shortBody() {
        for reported in [FetchError?.none, .connection(url: url, reason: "URL loading error -1")] {
            let log = FetchStateMachineTests.Log()
            var state = machine.makeState(attempts: 2, log: log)
            _ = state.begin(attempt: 1, taskID: 1, task: 1, now: 0)
            machine.deliver(state.response(taskID: 1, status: 200, expectedLength: 50, now: 0))
            machine.deliver(state.received(taskID: 1, Data(count: 20), now: 0))
            let effects = state.completed(taskID: 1, error: reported, now: 0)
            #expect(effects.retry?.after == .shortBody(url: url, received: 20, expected: 50))
            _ = state.begin(attempt: 2, taskID: 2, task: 2, now: 0)
            machine.deliver(state.response(taskID: 2, status: 200, expectedLength: 50, now: 0))
            machine.deliver(state.received(taskID: 2, Data(count: 30), now: 0))
            machine.deliver(state.completed(taskID: 2, error: reported, now: 0))
            let error = failure(of: log.elements.first)
            #expect(error == .shortBody(url: url, received: 30, expected: 50))
            #expect(error?.description == "\(url): the connection closed after 30 of the 50 bytes announced (20 missing)")
        }
    }
}
