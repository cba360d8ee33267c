import Lanes
import LanesTesting
import Synchronization
import Testing

@Suite("Queues", .timeLimit(.minutes(5)))
struct QueueTests {
    @Test("the concurrency limit is honoured exactly, and can change while running")
    func limitHonoured() async throws {
        let queue = WorkQueue("width", maxConcurrency: 3)
        let running = Atomic<Int>(0)
        let peak = Atomic<Int>(0)
        let release = Gate()
        let items = (0..<12).map { index in
            queue.add(label: "w\(index)") { _ in
                let now = running.add(1, ordering: .relaxed).newValue
                peak.max(now, ordering: .relaxed)
                release.wait()
                running.subtract(1, ordering: .relaxed)
            }
        }
        // Wait (without sleeping) until three bodies are inside (the queue counts an item running from the moment
        // a runner takes it, a little before its body starts).
        try await waitUntil("three bodies running") { running.load(ordering: .relaxed) >= 3 }
        #expect(queue.counts.running == 3)
        #expect(queue.counts.ready == 9)
        try queue.setMaxConcurrency(5)
        try await waitUntil("five bodies running") { running.load(ordering: .relaxed) >= 5 }
        #expect(queue.counts.running == 5)
        #expect(queue.counts.ready == 7)
        release.open()
        for item in items { try await item.value }
        #expect(peak.load(ordering: .relaxed) == 5)
        // A handle resolves as its item finishes; the queue's books close a moment later, which idle() waits for.
        await queue.idle()
        #expect(queue.counts.unfinished == 0)
    }

    @Test("an invalid limit is an error, not a crash")
    func invalidLimit() {
        let queue = WorkQueue("limits", maxConcurrency: 2)
        #expect(throws: LanesError.invalidLimit(0)) { try queue.setMaxConcurrency(0) }
        #expect(queue.maxConcurrency == 2)
        #expect(WorkQueue("clamped", maxConcurrency: -4).maxConcurrency == 1)
    }

    @Test("limit 1 is a serial FIFO lane")
    func serialFIFO() async throws {
        let manual = ManualExecutor()
        let queue = WorkQueue("serial", maxConcurrency: 1, executor: manual)
        let log = Recorder<Int>()
        for index in 0..<20 { queue.add { _ in log.append(index) } }
        #expect(manual.pendingRunners == 1)
        manual.runAll()
        #expect(log.elements == Array(0..<20))
        await queue.idle()
    }

    @Test("a serial lane on the thread pool never overlaps and keeps order")
    func serialOnPool() async throws {
        let queue = WorkQueue("serial-pool", maxConcurrency: 1)
        let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let log = Recorder<Int>()
        for index in 0..<500 {
            queue.add { _ in
                if inside.add(1, ordering: .relaxed).newValue > 1 { overlaps.add(1, ordering: .relaxed) }
                log.append(index)
                inside.subtract(1, ordering: .relaxed)
            }
        }
        await queue.idle()
        #expect(overlaps.load(ordering: .relaxed) == 0)
        #expect(log.elements == Array(0..<500))
    }

    @Test("suspend stops new starts; resume starts them")
    func suspendResume() async throws {
        let manual = ManualExecutor()
        let queue = WorkQueue("suspend", maxConcurrency: 2, executor: manual)
        queue.suspend()
        let item = queue.add { _ in 7 }
        #expect(manual.pendingRunners == 0)
        manual.runAll()
        #expect(item.state == .pending)
        #expect(queue.isSuspended)
        queue.resume()
        manual.runAll()
        #expect(item.state == .succeeded)
        #expect(try await item.value == 7)
    }

    @Test("a barrier runs alone, after everything before it and before everything after it")
    func barrier() async throws {
        let queue = WorkQueue("barrier", maxConcurrency: 4)
        let log = Recorder<String>()
        let running = Atomic<Int>(0)
        let aloneViolations = Atomic<Int>(0)
        let gate = Gate()
        for index in 0..<6 {
            queue.add(label: "before\(index)") { _ in
                running.add(1, ordering: .relaxed)
                gate.wait()
                log.append("before")
                running.subtract(1, ordering: .relaxed)
            }
        }
        queue.addBarrier(label: "barrier") { _ in
            if running.load(ordering: .relaxed) != 0 { aloneViolations.add(1, ordering: .relaxed) }
            log.append("barrier")
        }
        for index in 0..<6 {
            queue.add(label: "after\(index)", priority: .visible) { _ in
                running.add(1, ordering: .relaxed)
                log.append("after")
                running.subtract(1, ordering: .relaxed)
            }
        }
        gate.open()
        await queue.idle()
        let expected = Array(repeating: "before", count: 6) + ["barrier"] + Array(repeating: "after", count: 6)
        #expect(log.elements == expected)
        #expect(aloneViolations.load(ordering: .relaxed) == 0)
    }

    @Test("a cancelled pending barrier still orders what is around it")
    func cancelledBarrier() async throws {
        let manual = ManualExecutor()
        let queue = WorkQueue("barrier-cancel", maxConcurrency: 2, executor: manual)
        let log = Recorder<String>()
        queue.add { _ in log.append("a") }
        let barrier = queue.addBarrier { _ in log.append("barrier") }
        queue.add { _ in log.append("b") }
        barrier.cancel()
        manual.runAll()
        #expect(log.elements == ["a", "b"])
        #expect(barrier.state == .cancelled)
    }

    @Test("idle() returns once every item has finished; waitUntilIdle blocks a worker thread")
    func idleAndBlockingWait() async throws {
        let queue = WorkQueue("idle", maxConcurrency: 2)
        let done = Atomic<Int>(0)
        for _ in 0..<100 { queue.add { _ in done.add(1, ordering: .relaxed) } }
        await queue.idle()
        #expect(done.load(ordering: .relaxed) == 100)
        let other = WorkQueue("waiter", maxConcurrency: 1)
        for _ in 0..<50 { queue.add { _ in done.add(1, ordering: .relaxed) } }
        let waited = other.add { _ in
            try queue.waitUntilIdle()
            return done.load(ordering: .relaxed)
        }
        #expect(try await waited.value == 150)
    }

    @Test("a blocking wait on the lane it runs on is refused instead of deadlocking")
    func reentrantWaitRefused() async throws {
        let queue = WorkQueue("self-wait", maxConcurrency: 1)
        let item = queue.add { _ in try queue.waitUntilIdle() }
        await #expect(throws: LanesError.self) { try await item.value }
    }
}
