import Foundation
import Lanes
import LanesTesting
import Synchronization
import Testing

@Suite("Main queue and Swift concurrency", .timeLimit(.minutes(5)))
struct ConcurrencyBridgeTests {
    @Test("items on WorkQueue.main run on the main thread, serially")
    func mainQueue() async throws {
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 {
                group.addTask { (try? await WorkQueue.main.add { _ in MainQueue.isCurrent }.value) ?? false }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 20)
        #expect(results.allSatisfy { $0 })
        let onMain = try await WorkQueue.main.add { _ in MainActor.assumeIsolated { true } }.value
        #expect(onMain)
    }

    @Test("cancelling the only awaiting task cancels the item")
    func taskCancelCancelsItem() async throws {
        let queue = WorkQueue("bridge")
        let started = Gate()
        let item: WorkItem<Int> = queue.add { ctx in
            started.open()
            while !ctx.isCancelled { Thread.sleep(forTimeInterval: 0.0005) }  // a busy body polling its flag
            return 1
        }
        let waiter = Task { try await item.value }
        await started.wait()
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        await queue.idle()
        #expect(item.state == .cancelled)
    }

    @Test("an item another task still awaits is not cancelled")
    func sharedWaiterKeepsItem() async throws {
        let queue = WorkQueue("shared")
        let release = Gate()
        let item = queue.add { _ in release.wait(); return "done" }
        let first = Task { try await item.value }
        let second = Task { try await item.value }
        // Let both register before cancelling one (deterministic: poll the item, not the clock).
        try await waitUntil("two awaiting tasks") { item.awaitingTaskCount >= 2 }
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(!item.isCancelled)
        release.open()
        #expect(try await second.value == "done")
    }

    @Test("async bodies observe Task.isCancelled when their item is cancelled")
    func asyncBodySeesTaskCancellation() async throws {
        let queue = WorkQueue("async-cancel")
        let started = Gate()
        let item = queue.add { _ async -> Bool in
            started.open()
            // No short deadline here: a starved test process must not turn into a body that gave up waiting (the
            // suite's time limit still ends a real hang).
            try? await waitUntil("the task's cancellation", timeout: .seconds(600)) { Task.isCancelled }
            return Task.isCancelled
        }
        await started.wait()
        item.cancel()
        await queue.idle()
        #expect(item.state == .cancelled)
    }
}
