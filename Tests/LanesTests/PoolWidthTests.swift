import Synchronization
@testable import Lanes
import LanesTesting
import Testing

/// The pool's width (``PoolWidth``): at most `width` runners per level take items at once; the others start when one
/// ends or when the monitor sees a running one blocked. The monitor is ticked by hand here (a pool made without a
/// monitor interval), so nothing starts behind the test's back.
@Suite("Pool width", .timeLimit(.minutes(5)))
struct PoolWidthTests {
    @Test("with width 1, a second item starts only once the monitor has seen the first one's body blocked")
    func secondItemWaitsForTheMonitor() async throws {
        let pool = ThreadPoolExecutor(maxThreads: 8, idleTimeout: 60, width: .runners(1), monitorInterval: nil)
        let queue = WorkQueue("width-1", maxConcurrency: 2, executor: pool)
        let gate = Gate(), firstStarted = Gate()
        let secondStarted = Atomic<Bool>(false)
        let first = queue.add { _ in
            firstStarted.open()
            gate.wait()
        }
        await firstStarted.wait()
        let second = queue.add { _ in secondStarted.store(true, ordering: .releasing) }
        try await waitUntil("the second runner waits for the width") { pool.widthBooks.held == 1 }
        let startedEarly = secondStarted.load(ordering: .acquiring)
        #expect(!startedEarly)
        #expect(pool.widthBooks.running == [0, 0, 1])
        // Only the monitor can start it: the first body never ends while the gate is shut.
        try await waitUntil("the monitor starts the second runner") {
            pool.checkBlockedRunners()
            return secondStarted.load(ordering: .acquiring)
        }
        try await second.value
        #expect(pool.statistics.runnersHeld == 1)
        #expect(pool.statistics.runnersStartedByMonitor == 1)
        gate.open()
        try await first.value
        queue.suspend()
    }

    @Test("with width 1 and no blocked body, never more than one body of a wide queue runs at once")
    func widthBoundsRunningBodies() async throws {
        let pool = ThreadPoolExecutor(maxThreads: 8, idleTimeout: 60, width: .runners(1), monitorInterval: nil)
        let queue = WorkQueue("width-bound", maxConcurrency: 4, executor: pool)
        let running = Atomic<Int>(0), most = Atomic<Int>(0), ran = Atomic<Int>(0)
        let handles = (0..<400).map { _ in
            queue.add { _ in
                let now = running.add(1, ordering: .relaxed).newValue
                _ = most.max(now, ordering: .relaxed)
                for _ in 0..<200 { _ = ran.load(ordering: .relaxed) }
                running.subtract(1, ordering: .relaxed)
                ran.add(1, ordering: .relaxed)
            }
        }
        for handle in handles { try await handle.value }
        #expect(ran.load(ordering: .relaxed) == 400)
        #expect(most.load(ordering: .relaxed) == 1)
        queue.suspend()
    }

    @Test("a visible item starts while background runners hold the whole width")
    func visibleItemPassesBackgroundRunners() async throws {
        let pool = ThreadPoolExecutor(maxThreads: 8, idleTimeout: 60, width: .runners(1), monitorInterval: nil)
        let background = WorkQueue("width-bg", maxConcurrency: 2, executor: pool)
        let visible = WorkQueue("width-visible", maxConcurrency: 1, executor: pool)
        let gate = Gate(), started = Gate()
        let held = background.add(priority: .background) { _ in
            started.open()
            gate.wait()
        }
        await started.wait()
        let waiting = background.add(priority: .background) { _ in }
        try await waitUntil("the second background runner waits") { pool.widthBooks.held == 1 }
        // Never ticked: the visible item starts on its own level's width, past the waiting background runner.
        #expect(try await visible.add(priority: .visible) { _ in 42 }.value == 42)
        #expect(pool.widthBooks.held == 1)
        gate.open()
        try await held.value
        try await waiting.value
        background.suspend()
        visible.suspend()
    }

    @Test("more gated bodies than the width all start (the pool's own monitor), and all finish once the gate opens")
    func gatedBodiesBeyondTheWidthAllStart() async throws {
        let pool = ThreadPoolExecutor(maxThreads: 16, idleTimeout: 60, width: .runners(2))
        let queue = WorkQueue("width-gated", maxConcurrency: 8, executor: pool)
        let gate = Gate(), started = Atomic<Int>(0)
        let handles = (0..<8).map { _ in
            queue.add { _ in
                started.add(1, ordering: .relaxed)
                gate.wait()
            }
        }
        try await waitUntil("all eight bodies started") { started.load(ordering: .relaxed) == 8 }
        // A body blocked at the gate never ends, so without the monitor only two would ever start.
        #expect(pool.statistics.runnersStartedByMonitor >= 1)
        gate.open()
        for handle in handles { try await handle.value }
        queue.suspend()
    }
}

@Suite("Pool width: turns", .timeLimit(.minutes(5)))
struct PoolWidthTurnTests {
    @Test("a queue that never runs dry gives its place to another queue's waiting runner after a quantum")
    func busyQueueGivesWay() async throws {
        let pool = ThreadPoolExecutor(maxThreads: 8, idleTimeout: 60, width: .runners(1), monitorInterval: nil)
        let busy = WorkQueue("width-busy", maxConcurrency: 1, executor: pool)
        let other = WorkQueue("width-other", maxConcurrency: 1, executor: pool)
        let otherRan = Atomic<Bool>(false), busyItems = Atomic<Int>(0)
        let cap = 5_000_000
        // Each busy item adds the next until the other queue's item ran (or the cap): the busy queue never runs dry.
        @Sendable func next() {
            busy.add { _ in
                let count = busyItems.add(1, ordering: .relaxed).newValue
                if !otherRan.load(ordering: .acquiring), count < cap { next() }
            }
        }
        next()
        try await waitUntil("the busy queue is running") { busyItems.load(ordering: .relaxed) > 100 }
        try await other.add { _ in otherRan.store(true, ordering: .releasing) }.value
        // Without turns, the other item would wait for the busy queue's cap; it got a turn long before.
        #expect(busyItems.load(ordering: .relaxed) < cap)
        await busy.idle()
        busy.suspend()
        other.suspend()
    }
}
