import Lanes
import LanesTesting
import Testing

@Suite("Thread pool", .timeLimit(.minutes(5)))
struct ThreadPoolTests {
    @Test("a runner whose queue ran dry takes the next item without a new runner or a thread wake-up",
          .timeLimit(.minutes(5)))
    func lingeringRunnerTakesTheNextItem() async throws {
        // A linger far longer than the test: the second item finds the first item's runner still watching.
        let pool = ThreadPoolExecutor(maxThreads: 4, idleTimeout: 60, linger: .seconds(600))
        let queue = WorkQueue("linger", maxConcurrency: 1, executor: pool)
        #expect(try await queue.add { _ in 1 }.value == 1)
        #expect(queue.counts.runners == 1)
        #expect(try await queue.add { _ in 2 }.value == 2)
        let statistics = pool.statistics
        #expect(statistics.runners == 1)
        #expect(statistics.wakeUps == 0)
        #expect(statistics.threadsStarted == 1)
        // Suspending sends the lingering runner away at once (without that, this would wait out the linger).
        queue.suspend()
        try await waitUntil("every runner to detach") { queue.counts.runners == 0 }
        queue.resume()
        #expect(try await queue.add { _ in 3 }.value == 3)
        #expect(pool.statistics.runners == 2)
        queue.suspend()
    }

    @Test("lowering the limit sends a lingering runner beyond it away", .timeLimit(.minutes(5)))
    func loweredLimitEndsLinger() async throws {
        let pool = ThreadPoolExecutor(maxThreads: 4, idleTimeout: 60, linger: .seconds(600))
        let queue = WorkQueue("linger-limit", maxConcurrency: 2, executor: pool)
        let gate = Gate()
        let blocked = queue.add { _ in gate.wait() }
        #expect(try await queue.add { _ in 2 }.value == 2)
        // One runner holds the blocked item, the other lingers.
        #expect(queue.counts.runners == 2)
        try queue.setMaxConcurrency(1)
        try await waitUntil("one runner left") { queue.counts.runners <= 1 }
        #expect(queue.counts.runners == 1)
        gate.open()
        try await blocked.value
        queue.suspend()
        try await waitUntil("every runner to detach") { queue.counts.runners == 0 }
    }

    @Test("with no linger, a runner detaches as soon as its queue runs dry; the next item gets a new one",
          .timeLimit(.minutes(5)))
    func noLinger() async throws {
        let pool = ThreadPoolExecutor(maxThreads: 2, idleTimeout: 60, linger: .zero)
        let queue = WorkQueue("no-linger", maxConcurrency: 1, executor: pool)
        #expect(try await queue.add { _ in 1 }.value == 1)
        // The runner may still be on its way out right after the item finished; it never stays.
        try await waitUntil("every runner to detach") { queue.counts.runners == 0 }
        #expect(try await queue.add { _ in 2 }.value == 2)
        let statistics = pool.statistics
        #expect(statistics.runners == 2)
        // The second runner woke the parked thread, or started one if the first had not parked yet.
        #expect(statistics.wakeUps + statistics.threadsStarted == 2)
    }
}

@Suite("Thread pool lifetimes", .timeLimit(.minutes(5)))
struct ThreadPoolLifetimeTests {
    @Test("a queue on its own pool is freed once its work is done and its handles are gone, while the pool's thread lives on")
    func queueFreedWhileThreadParks() async throws {
        // An idle timeout far longer than the test: the thread that ran the queue's first runner stays parked.
        let pool = ThreadPoolExecutor(maxThreads: 2, idleTimeout: 600, linger: .zero)
        weak var weakQueue: WorkQueue?
        do {
            let queue = WorkQueue("short-lived", maxConcurrency: 1, executor: pool)
            weakQueue = queue
            #expect(try await queue.add { _ in 42 }.value == 42)
            await queue.idle()
        }
        // The runner detaches a moment after the item's handle resolves: wait for that, with a deadline.
        let deadline = ContinuousClock.now + .seconds(10)
        while weakQueue != nil, ContinuousClock.now < deadline { await Task.yield() }
        #expect(weakQueue == nil)
        #expect(pool.threadCount == 1)
    }
}
