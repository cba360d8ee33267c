import Foundation
import Lanes
import LanesTesting
import Synchronization
import Testing

/// The engine's races found from outside (issue 13), each pinned by a test that failed before its fix. Runner hooks
/// (debug builds) stop a runner at an exact point of an item's path, so nothing here depends on timing.
@Suite("Engine races", .timeLimit(.minutes(5)))
struct EngineRaceTests {
    /// Runs one `runNext()` of `manual` on a thread of its own (the hooks below block it: a blocked thread of
    /// Dispatch's or Swift's shared pools would starve the tests running beside this one); the gate opens when it
    /// returns.
    private func runNextElsewhere(_ manual: ManualExecutor) -> Gate {
        let done = Gate()
        let runner = Thread {
            manual.runNext()
            done.open()
        }
        runner.start()
        return done
    }

    #if DEBUG
    @Test("an item a runner took before cancelAll() and starts after it does not run its body")
    func takenBeforeCancelAll() async throws {
        let manual = ManualExecutor()
        let queue = WorkQueue("taken", maxConcurrency: 1, executor: manual)
        let taken = Gate(), proceed = Gate()
        queue._setRunnerHooks(RunnerHooks(taken: { _ in
            taken.open()
            proceed.wait()
        }))
        let ran = Atomic<Bool>(false)
        let item = queue.add(label: "taken") { _ in ran.store(true, ordering: .relaxed) }
        let runner = runNextElsewhere(manual)
        await taken.wait()
        // The runner took the item from the queue and has not started it: it is still pending.
        queue.cancelAll()
        #expect(item.isCancelled)
        #expect(item.state == .cancelled)
        proceed.open()
        await runner.wait()
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun, "the body of an item pending at cancelAll() ran")
        await #expect(throws: CancellationError.self) { try await item.value }
        await queue.idle()
        let counts = queue.counts
        #expect(counts.unfinished == 0 && counts.running == 0)
        // The queue goes on.
        queue._setRunnerHooks(nil)
        let later = queue.add { _ in 7 }
        manual.runAll()
        #expect(later.state == .succeeded)
    }

    @Test("a barrier cancelled between its runner's take and start lets the items after it run")
    func barrierCancelledWhileTaken() async throws {
        let manual = ManualExecutor()
        let queue = WorkQueue("taken-barrier", maxConcurrency: 2, executor: manual)
        let taken = Gate(), proceed = Gate()
        queue._setRunnerHooks(RunnerHooks(taken: { label in
            guard label == "barrier" else { return }
            taken.open()
            proceed.wait()
        }))
        let barrier = queue.addBarrier(label: "barrier") { _ in "ran" }
        let after = queue.add(label: "after") { _ in 1 }
        let runner = runNextElsewhere(manual)
        await taken.wait()
        barrier.cancel()
        proceed.open()
        await runner.wait()
        #expect(barrier.state == .cancelled)
        manual.runAll()
        // Before the fix the queue believed the barrier still ran, and nothing after it ever started.
        #expect(after.state == .succeeded)
        #expect(queue.counts.unfinished == 0)
    }
    #endif

    @Test("after cancelAll() a running item that then finishes reads isCancelled, as its state reads .cancelled")
    func isCancelledAgreesWithStateAfterFinish() async throws {
        let queue = WorkQueue("agree", maxConcurrency: 1)
        let started = Gate(), release = Gate()
        let item = queue.add(label: "running") { _ in
            started.open()
            release.wait()
            return 1
        }
        await started.wait()
        queue.cancelAll()
        #expect(item.isCancelled)
        release.open()
        await #expect(throws: CancellationError.self) { try await item.value }
        #expect(item.state == .cancelled)
        // Before the fix the flag was never set on this path, and a finished item answered false.
        #expect(item.isCancelled)
        await queue.idle()
    }

    @Test("isCancelled never reads false for a pending item once cancelAll() returns, while the sweep finishes it")
    func isCancelledDuringSweep() async throws {
        let manual = ManualExecutor()
        var misses = 0
        for trial in 0..<200 {
            let queue = WorkQueue("sweep-\(trial)", maxConcurrency: 1, executor: manual)
            let items = (0..<8).map { _ in queue.add { _ in 0 } }
            queue.cancelAll()
            // The background sweep finishes these meanwhile; every read must say cancelled, before and after.
            for _ in 0..<50 {
                for item in items where !item.isCancelled { misses += 1 }
            }
            await queue.idle()
            #expect(items.allSatisfy { $0.isCancelled && $0.state == .cancelled })
        }
        #expect(misses == 0)
        manual.runAll()
    }

    @Test("a finished item's handle keeps its queue alive (documented); dropping the handle frees the queue")
    func finishedHandleKeepsQueue() async throws {
        weak var weakQueue: WorkQueue?
        var item: WorkItem<Int>?
        do {
            let manual = ManualExecutor()
            let queue = WorkQueue("kept", maxConcurrency: 1, executor: manual)
            weakQueue = queue
            item = queue.add { _ in 1 }
            manual.runAll()
            await queue.idle()
        }
        #expect(item?.state == .succeeded)
        #expect(weakQueue != nil, "the handle no longer keeps its queue: update the Internals article")
        item = nil
        #expect(weakQueue == nil, "a finished item's queue outlived every handle")
    }
}
