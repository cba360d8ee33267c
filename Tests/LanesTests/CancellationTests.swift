import Lanes
import LanesTesting
import Synchronization
import Testing

@Suite("Cancellation", .timeLimit(.minutes(5)))
struct CancellationTests {
    @Test("a cancelled pending item never starts and finishes at once; dependents follow their policy")
    func pendingCancel() async throws {
        let manual = ManualExecutor()
        let queue = WorkQueue("pending", maxConcurrency: 1, executor: manual)
        let ran = Atomic<Bool>(false)
        let item = queue.add(label: "victim") { _ in ran.store(true, ordering: .relaxed) }
        let runs = queue.add(label: "runs", after: [item]) { _ in "ran anyway" }
        let cancels = queue.add(label: "cancels", after: [item], policy: .cancel) { _ in }
        item.cancel()
        #expect(item.state == .cancelled)
        #expect(cancels.state == .cancelled)
        await #expect(throws: CancellationError.self) { try await item.value }
        manual.runAll()
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
        #expect(try await runs.value == "ran anyway")
    }

    @Test("cancelling a running item sets the flag and fires onCancel once; at once if registered late")
    func runningCancel() async throws {
        let queue = WorkQueue("running")
        let started = Gate()
        let handlerRuns = Atomic<Int>(0)
        let lateRuns = Atomic<Int>(0)
        let item: WorkItem<Int> = queue.add { ctx in
            ctx.onCancel { handlerRuns.add(1, ordering: .relaxed) }
            started.open()
            var spins = 0
            while !ctx.isCancelled { spins += 1 }
            ctx.onCancel { lateRuns.add(1, ordering: .relaxed) }
            try ctx.checkCancellation()
            return spins
        }
        await started.wait()
        #expect(item.state == .running)
        item.cancel()
        item.cancel()
        await #expect(throws: CancellationError.self) { try await item.value }
        #expect(item.state == .cancelled)
        #expect(item.isCancelled)
        #expect(handlerRuns.load(ordering: .relaxed) == 1)
        #expect(lateRuns.load(ordering: .relaxed) == 1)
    }

    @Test("cancelAll is atomic: no pending item starts after it returns; later items run")
    func cancelAllAtomic() async throws {
        let queue = WorkQueue("cancel-all", maxConcurrency: 2)
        let gate = Gate()
        let started = Gate()
        let bodies = Atomic<Int>(0)
        let head = queue.add(label: "head") { ctx in
            started.open()
            gate.wait()
            return ctx.isCancelled
        }
        // A chain and a crowd of independent items, all pending behind the head.
        var previous: WorkItem<Void> = queue.add(after: [head]) { _ in bodies.add(1, ordering: .relaxed) }
        var pending = [previous]
        for _ in 0..<2_000 {
            previous = queue.add(after: [previous]) { _ in bodies.add(1, ordering: .relaxed) }
            pending.append(previous)
        }
        let blocker = WorkQueue("blocker").add { _ in gate.wait() }
        for _ in 0..<2_000 {
            pending.append(queue.add(after: [blocker]) { _ in bodies.add(1, ordering: .relaxed) })
        }
        await started.wait()
        queue.cancelAll()
        // Everything that was pending has finished as cancelled by now.
        #expect(pending.allSatisfy { $0.state == .cancelled })
        let after = queue.add { _ in "fresh" }
        gate.open()
        await #expect(throws: CancellationError.self) { try await head.value }  // the running head was flagged
        #expect(try await after.value == "fresh")
        await queue.idle()
        #expect(bodies.load(ordering: .relaxed) == 0)
    }

    @Test("cancelling an item before it is enqueued finishes it; enqueueing it later does nothing")
    func cancelBeforeEnqueue() async throws {
        let ran = Atomic<Bool>(false)
        let item = WorkItem { _ in ran.store(true, ordering: .relaxed) }
        item.cancel()
        #expect(item.state == .cancelled)
        let queue = WorkQueue("late")
        try queue.enqueue(item)
        await queue.idle()
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
    }

    @Test("cancelAll flags running items at once, fires their onCancel, and cancels items held behind barriers")
    func cancelAllRunningAndBarriers() async throws {
        let queue = WorkQueue("cancel-all-running", maxConcurrency: 1)
        let started = Gate()
        let handlerFired = Gate()
        let seenCancelled = Atomic<Bool>(false)
        let release = Gate()
        let running = queue.add(label: "running") { ctx in
            ctx.onCancel { handlerFired.open() }
            started.open()
            release.wait()
            seenCancelled.store(ctx.isCancelled, ordering: .relaxed)
        }
        let bodies = Atomic<Int>(0)
        let barrier = queue.addBarrier(label: "barrier") { _ in bodies.add(1, ordering: .relaxed) }
        let held = queue.add(label: "held", priority: .visible) { _ in bodies.add(1, ordering: .relaxed) }
        await started.wait()
        queue.cancelAll()
        #expect(running.isCancelled)
        #expect(barrier.state == .cancelled)
        #expect(held.state == .cancelled)
        await handlerFired.wait()
        release.open()
        await queue.idle()
        let sawCancel = seenCancelled.load(ordering: .relaxed)
        #expect(sawCancel)
        #expect(bodies.load(ordering: .relaxed) == 0)
        await #expect(throws: CancellationError.self) { try await held.value }
        // The queue works normally afterwards, barriers included.
        let log = Recorder<String>()
        queue.add { _ in log.append("a") }
        queue.addBarrier { _ in log.append("barrier") }
        queue.add { _ in log.append("b") }
        await queue.idle()
        #expect(log.elements == ["a", "barrier", "b"])
    }

    @Test("cancelAll reaches running items that registered no handler: flagged at once, finish cancelled, late handlers run")
    func cancelAllRunningWithoutHandlers() async throws {
        let queue = WorkQueue("cancel-all-plain", maxConcurrency: 2)
        let started = Gate()
        let release = Gate()
        let lateHandler = Atomic<Int>(0)
        let seenCancelled = Atomic<Bool>(false)
        let plain = queue.add(label: "plain") { ctx in
            started.open()
            release.wait()
            seenCancelled.store(ctx.isCancelled, ordering: .relaxed)
            ctx.onCancel { lateHandler.add(1, ordering: .relaxed) }  // after the cancel-all: runs at once
            let ranAtOnce = lateHandler.load(ordering: .relaxed)
            #expect(ranAtOnce == 1)
        }
        await started.wait()
        #expect(plain.state == .running)
        queue.cancelAll()
        #expect(plain.isCancelled)
        #expect(plain.state == .cancelled)
        release.open()
        await queue.idle()
        let sawCancel = seenCancelled.load(ordering: .relaxed)
        #expect(sawCancel)
        let late = lateHandler.load(ordering: .relaxed)
        #expect(late == 1)
        #expect(plain.state == .cancelled)
        await #expect(throws: CancellationError.self) { try await plain.value }
        // A handler registered while running, then a cancel-all: fired once; items added afterwards run normally.
        let fired = Gate()
        let count = Atomic<Int>(0)
        let again = Gate()
        let release2 = Gate()
        let second = queue.add(label: "second") { ctx in
            ctx.onCancel { count.add(1, ordering: .relaxed); fired.open() }
            again.open()
            release2.wait()
        }
        await again.wait()
        queue.cancelAll()
        await fired.wait()
        release2.open()
        await queue.idle()
        let fires = count.load(ordering: .relaxed)
        #expect(fires == 1)
        #expect(second.state == .cancelled)
        #expect(try await queue.add(label: "after") { _ in 3 }.value == 3)
    }
}

@Suite("Cancellation looks like Swift's", .timeLimit(.minutes(5)))
struct SwiftCancellationTests {
    @Test("catch is CancellationError catches an awaited item that was cancelled, or whose awaiting task was")
    func awaitedCancellation() async throws {
        let manual = ManualExecutor()
        let queue = WorkQueue("swift", maxConcurrency: 1, executor: manual)
        let cancelled = queue.add(label: "cancelled") { _ in 1 }
        cancelled.cancel()
        var caught = false
        do { _ = try await cancelled.value } catch is CancellationError { caught = true }
        #expect(caught)
        if case .failure(let error) = await cancelled.result { #expect(error is CancellationError) } else { Issue.record("succeeded") }

        // The awaiting task is cancelled (before or after it registers): the item, awaited by nobody else, is too.
        let awaited = queue.add(label: "awaited") { _ in 2 }
        let task = Task { () -> Bool in
            do { _ = try await awaited.value } catch is CancellationError { return true } catch {}
            return false
        }
        task.cancel()
        #expect(await task.value)
        #expect(awaited.state == .cancelled)
        manual.runAll()
    }

    @Test("every Lanes cancellation is CancellationError: a synchronous check, a completion's result, an enumeration")
    func oneErrorForEveryCancellation() throws {
        let manual = ManualExecutor()
        let delivery = ManualExecutor()
        let queue = WorkQueue("one error", maxConcurrency: 1, executor: manual)
        let deliveries = WorkQueue("one error delivery", maxConcurrency: 1, executor: delivery)
        let caught = Recorder<String>()
        let handle = Recorder<WorkItem<Int>>()
        let item = queue.add(label: "chart") { ctx in
            handle.elements[0].cancel()
            do { try ctx.checkCancellation() } catch { caught.append("check \(type(of: error))") }
            do {
                try (0..<100).concurrentForEach(context: ctx) { _, _ in }
            } catch { caught.append("enumeration \(type(of: error))") }
            return 1
        }
        handle.append(item)
        item.onCompletion(on: deliveries) { result in
            do { _ = try result.get() } catch is CancellationError { caught.append("completion CancellationError") } catch {}
        }
        #expect(manual.runAll() == 1)
        #expect(delivery.runAll() == 1)
        #expect(caught.elements == ["check CancellationError", "enumeration CancellationError", "completion CancellationError"])
        #expect(item.state == .cancelled && item.label == "chart")  // what was cancelled: the handle tells
    }
}
