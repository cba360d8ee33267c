import Lanes
import LanesTesting
import Testing

@Suite("Timeouts and retries")
struct TimeoutRetryTests {
    struct Flaky: Error, Equatable { let attempt: Int }

    @Test("a pending item that times out never runs and fails with timedOut, not cancelled")
    func pendingTimeout() async {
        let clock = VirtualClock()
        let manual = ManualExecutor()
        let queue = WorkQueue("timeout-pending", maxConcurrency: 1, executor: manual)
        let ran = Recorder<Int>()
        let item = queue.add(label: "GET /feed") { _ in ran.append(1) }.timeout(after: .seconds(5), clock: clock)
        clock.advance(by: .milliseconds(4999))
        #expect(item.state == .pending)
        clock.advance(by: .milliseconds(1))
        #expect(item.state == .failed)
        #expect(item.isCancelled)
        await #expect(throws: LanesError.timedOut("GET /feed")) { try await item.value }
        manual.runAll()
        #expect(ran.elements.isEmpty)
        #expect(queue.counts.unfinished == 0)
    }

    @Test("a running item that times out is cancelled (its onCancel runs) and throws timedOut")
    func runningTimeout() async {
        let clock = VirtualClock()
        let queue = WorkQueue("timeout-running", maxConcurrency: 1)
        let started = Gate()
        let item: WorkItem<Int> = queue.add(label: "slow") { ctx in
            let woken = Gate()
            ctx.onCancel { woken.open() }
            started.open()
            woken.wait()
            try ctx.checkCancellation()
            return 1
        }.timeout(after: .seconds(1), clock: clock)
        await started.wait()
        clock.advance(by: .seconds(1))
        let result = await item.result
        #expect(throws: LanesError.timedOut("slow")) { try result.get() }
        #expect(item.state == .failed)
    }

    @Test("an item that finishes in time keeps its value and releases its timer; a plain cancel stays .cancelled")
    func inTimeAndPlainCancel() async throws {
        let clock = VirtualClock()
        let manual = ManualExecutor()
        let queue = WorkQueue("timeout-ok", maxConcurrency: 1, executor: manual)
        let item = queue.add(label: "fast") { _ in 42 }.timeout(after: .seconds(1), clock: clock)
        #expect(clock.scheduledCount == 1)
        manual.runAll()
        #expect(try await item.value == 42)
        #expect(clock.scheduledCount == 0)

        let other = queue.add(label: "cancelled") { _ in 0 }.timeout(after: .seconds(1), clock: clock)
        other.cancel()
        clock.advance(by: .seconds(2))
        #expect(other.state == .cancelled)
        await #expect(throws: CancellationError.self) { try await other.value }
    }

    @Test("backoff doubles from the initial delay, caps at the maximum, and jitter spreads it")
    func backoff() {
        let policy = RetryPolicy(
            maxAttempts: 10, initialDelay: .milliseconds(100), multiplier: 2, maxDelay: .seconds(1), jitter: 0)
        let delays = (1...6).map { policy.delay(afterAttempt: $0) }
        #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800),
                           .seconds(1), .seconds(1)])
        var jittered = policy
        jittered.jitter = 0.5
        #expect(jittered.delay(afterAttempt: 2, unit: -1) == .milliseconds(100))
        #expect(jittered.delay(afterAttempt: 2, unit: 1) == .milliseconds(300))
        #expect(jittered.delay(afterAttempt: 5, unit: 1) == .seconds(1))
        for _ in 0..<100 {
            let random = jittered.delay(afterAttempt: 1)
            #expect(random >= .milliseconds(50) && random <= .milliseconds(150))
        }
    }

    @Test("a retrying item runs again after each backoff and succeeds with the first success")
    func retriesUntilSuccess() async throws {
        let clock = VirtualClock()
        let manual = ManualExecutor()
        let network = WorkQueue("retry-net", maxConcurrency: 1, executor: manual)
        let attempts = Recorder<String>()
        let policy = RetryPolicy(maxAttempts: 5, initialDelay: .milliseconds(100), multiplier: 2, jitter: 0)
        let feed = network.addRetrying(label: "GET /feed", policy: policy, clock: clock) { attempt, ctx in
            attempts.append("\(ctx.label)@\(clock.now / 1_000_000)")
            if attempt < 3 { throw Flaky(attempt: attempt) }
            return "feed"
        }
        manual.runAll()
        #expect(attempts.elements == ["GET /feed #1@0"])
        clock.advance(by: .milliseconds(99))
        #expect(manual.runAll() == 0)
        clock.advance(by: .milliseconds(1))
        manual.runAll()
        clock.advance(by: .milliseconds(200))
        manual.runAll()
        #expect(attempts.elements == ["GET /feed #1@0", "GET /feed #2@100", "GET /feed #3@300"])
        #expect(try await feed.value == "feed")
        #expect(feed.state == .succeeded)
        #expect(clock.scheduledCount == 0)
    }

    @Test("retries stop after maxAttempts or when shouldRetry says no, with the last error")
    func retriesGiveUp() async {
        let clock = VirtualClock()
        let manual = ManualExecutor()
        let network = WorkQueue("retry-give-up", maxConcurrency: 1, executor: manual)
        let exhausted = network.addRetrying(
            policy: RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(10), jitter: 0), clock: clock
        ) { attempt, _ -> Int in throw Flaky(attempt: attempt) }
        for _ in 0..<5 {
            manual.runAll()
            clock.advance(by: .seconds(1))
        }
        await #expect(throws: Flaky(attempt: 3)) { try await exhausted.value }

        let refused = network.addRetrying(
            policy: RetryPolicy(maxAttempts: 3, jitter: 0, shouldRetry: { !($0 is Flaky) }), clock: clock
        ) { attempt, _ -> Int in throw Flaky(attempt: attempt) }
        manual.runAll()
        await #expect(throws: Flaky(attempt: 1)) { try await refused.value }
        #expect(clock.scheduledCount == 0)
    }

    @Test("cancelling a retrying item during the backoff stops the retries")
    func cancelStopsRetries() async {
        let clock = VirtualClock()
        let manual = ManualExecutor()
        let network = WorkQueue("retry-cancel", maxConcurrency: 1, executor: manual)
        let attempts = Recorder<Int>()
        let item = network.addRetrying(
            label: "sync", policy: RetryPolicy(maxAttempts: 5, jitter: 0), clock: clock
        ) { attempt, _ -> Int in
            attempts.append(attempt)
            throw Flaky(attempt: attempt)
        }
        manual.runAll()
        #expect(clock.scheduledCount == 1)
        item.cancel()
        #expect(clock.scheduledCount == 0)
        clock.advance(by: .seconds(60))
        manual.runAll()
        #expect(attempts.elements == [1])
        #expect(item.state == .cancelled)
        await #expect(throws: CancellationError.self) { try await item.value }

        // cancelAll() on the attempts' queue cancels the whole item too.
        let second = network.addRetrying(label: "second", clock: clock) { _, _ in 1 }
        network.cancelAll()
        await #expect(throws: CancellationError.self) { try await second.value }
        #expect(second.state == .cancelled)
    }

    @Test("an attempt that times out is retried")
    func attemptTimeout() async throws {
        let clock = VirtualClock()
        let manual = ManualExecutor()
        let network = WorkQueue("retry-timeout", maxConcurrency: 1, executor: manual)
        let policy = RetryPolicy(
            maxAttempts: 2, initialDelay: .milliseconds(10), jitter: 0, attemptTimeout: .seconds(1))
        let item = network.addRetrying(label: "GET", policy: policy, clock: clock) { attempt, _ in attempt }
        clock.advance(by: .seconds(1))  // attempt 1 never got to run: it times out
        #expect(clock.scheduledCount == 1)  // the retry, 10 ms out
        clock.advance(by: .milliseconds(10))
        manual.runAll()
        #expect(try await item.value == 2)
    }
}
