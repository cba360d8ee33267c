import Dispatch
import Foundation
import Lanes
import LanesTesting
import Synchronization
import Testing

struct Boom: Error, Equatable {}

@Suite("Work items", .timeLimit(.minutes(5)))
struct ItemTests {
    @Test("sync, async and callback bodies produce typed values")
    func bodyKinds() async throws {
        let queue = WorkQueue("kinds", maxConcurrency: 2)
        let sync = queue.add(label: "sync") { _ in 6 * 7 }
        let async = queue.add(label: "async") { _ async in
            await Task.yield()
            return "async"
        }
        let callback: WorkItem<[Int]> = queue.add(label: "callback", callback: { _, finish in
            DispatchQueue.global().async { finish(.success([1, 2, 3])) }
        })
        #expect(try await sync.value == 42)
        #expect(try await async.value == "async")
        #expect(try await callback.value == [1, 2, 3])
        #expect(sync.state == .succeeded)
        #expect(callback.label == "callback")
    }

    @Test("a throwing body fails its item with the error")
    func failure() async throws {
        let queue = WorkQueue("fail")
        let item: WorkItem<Int> = queue.add { _ in throw Boom() }
        await #expect(throws: Boom.self) { try await item.value }
        #expect(item.state == .failed)
    }

    @Test("a callback body that calls finish twice keeps the first result")
    func finishOnce() async throws {
        let queue = WorkQueue("once")
        let item: WorkItem<Int> = queue.add(callback: { _, finish in
            finish(.success(1))
            finish(.success(2))
        })
        #expect(try await item.value == 1)
    }

    @Test("completion callbacks run on the queue you choose, the main queue included")
    func completionOnMain() async throws {
        let queue = WorkQueue("work")
        let item = queue.add { _ in "result" }
        let onMain: Bool = await withCheckedContinuation { continuation in
            item.onCompletion(on: .main) { result in
                #expect((try? result.get()) == "result")
                continuation.resume(returning: isMainThread())
            }
        }
        #expect(onMain)
        // Registered after it finished: still called.
        let late: String = await withCheckedContinuation { continuation in
            item.onCompletion(on: queue) { continuation.resume(returning: (try? $0.get()) ?? "") }
        }
        #expect(late == "result")
    }

    @Test("progress reported by the body is visible on the handle")
    func progress() async throws {
        let manual = ManualExecutor()
        let queue = WorkQueue("progress", maxConcurrency: 1, executor: manual)
        let item = queue.add { ctx in
            ctx.reportProgress(completed: 3, of: 4)
        }
        #expect(item.progress == 0)
        manual.runNext()
        #expect(item.progress == 0.75)
    }

    @Test("enqueueing twice is an error")
    func doubleEnqueue() throws {
        let queue = WorkQueue("twice")
        let item = WorkItem(label: "x") { _ in 1 }
        try queue.enqueue(item)
        #expect(throws: LanesError.alreadyEnqueued("x")) { try queue.enqueue(item) }
        #expect(throws: LanesError.alreadyEnqueued("x")) { try WorkQueue("other").enqueue(item) }
    }

    @Test("events report added, started, finished and cancelled with queue and label")
    func events() async throws {
        let log = Recorder<String>()
        let token = WorkEvents.observe { event in
            guard event.queue == "events" else { return }
            log.append("\(event.kind) \(event.label)")
        }
        defer { token.cancel() }
        let manual = ManualExecutor()
        let queue = WorkQueue("events", maxConcurrency: 1, executor: manual)
        queue.add(label: "a") { _ in }
        let b = queue.add(label: "b") { _ in }
        b.cancel()
        manual.runAll()
        #expect(log.elements == ["added a", "added b", "cancelled b", "started a", "finished a"])
    }
}

func isMainThread() -> Bool { MainQueue.isCurrent }
