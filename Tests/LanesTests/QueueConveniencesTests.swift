import Lanes
import LanesTesting
import Testing

/// What OperationQueue and TaskGroup users reach for: a typed join, a blocking wait, items as they complete, and the
/// list of a queue's pending items.
@Suite("OperationQueue and TaskGroup conveniences", .timeLimit(.minutes(5)))
struct QueueConveniencesTests {
    @Test("a typed join runs once both inputs succeeded, with both values")
    func joinRunsWithBothValues() throws {
        let manual = ManualExecutor()
        let queue = WorkQueue("join", maxConcurrency: 1, executor: manual)
        let prices = queue.add(label: "prices") { _ in [101.5, 102.25] }
        let events = queue.add(label: "events") { _ in ["split"] }
        let chart = queue.add(consuming: prices, events, label: "chart") { prices, events, _ in
            "\(prices.count) prices, \(events.count) events"
        }
        let page = WorkItem(consuming: prices, events, chart, label: "page") { _, _, chart, _ in "page: " + chart }
        try queue.enqueue(page)
        #expect(manual.runAll() == 4)
        #expect(chart.state == .succeeded && page.state == .succeeded)
        let result = try #require(try? page.waitForResult().get())
        #expect(result == "page: 2 prices, 1 events")
    }

    @Test("a join owns its inputs: cancelling it cancels them; a failed input cancels it, or with .skip fails it")
    func joinOwnsItsInputs() {
        let manual = ManualExecutor()
        let queue = WorkQueue("join-own", maxConcurrency: 1, executor: manual)
        let a = queue.add(label: "a") { _ in 1 }
        let b = queue.add(label: "b") { _ in 2 }
        let sum = queue.add(consuming: a, b) { x, y, _ in x + y }
        sum.cancel()
        #expect(a.state == .cancelled && b.state == .cancelled)

        struct Broken: Error {}
        let good = queue.add(label: "good") { _ in 1 }
        let bad = queue.add(label: "bad") { _ -> Int in throw Broken() }
        let cancelled = queue.add(consuming: good, bad) { x, y, _ in x + y }
        let skipped = queue.add(consuming: good, bad, policy: .skip) { x, y, _ in x + y }
        #expect(manual.runAll() == 2)  // only the inputs ran
        #expect(cancelled.state == .cancelled)
        #expect(skipped.state == .failed)
    }

    @Test("wait() blocks a worker until the item finishes and returns its value or throws its error")
    func waitReturnsTheValue() async throws {
        let work = WorkQueue("wait-work", maxConcurrency: 1)
        let waiter = WorkQueue("wait-waiter", maxConcurrency: 1)
        let gate = Gate()
        let slow = work.add(label: "slow") { _ in
            gate.wait()
            return 42
        }
        let waited = waiter.add(label: "waiter") { _ in try slow.wait() }
        gate.open()
        #expect(try await waited.value == 42)

        work.suspend()   // so the item cannot start (and finish) before the cancel below
        let cancelled = work.add(label: "cancelled") { _ in 1 }
        cancelled.cancel()
        work.resume()
        let caught = waiter.add(label: "catch") { _ -> Bool in
            do { _ = try cancelled.wait() } catch is CancellationError { return true }
            return false
        }
        #expect(try await caught.value)
    }

    @Test("wait() is refused where it would deadlock: from an item on the same queue, and on the main actor")
    func waitRefusals() async throws {
        let queue = WorkQueue("wait-refused", maxConcurrency: 1)
        let later = WorkItem(label: "later") { _ in 1 }
        let refused = queue.add(label: "refuser") { _ -> String in
            try queue.enqueue(later)
            do { _ = try later.wait() } catch LanesError.wouldDeadlock(let reason) { return reason }
            return "waited"
        }
        #expect(try await refused.value.contains("from an item running on its queue"))
        #expect(try await later.value == 1)
        let onMain = await MainActor.run { () -> Bool in
            do { _ = try later.waitForResult() } catch { return true }
            return false
        }
        #expect(onMain)
    }

    @Test("inCompletionOrder() yields items as they finish, first finished first, and ends after the last")
    func completionOrder() async {
        let manual = ManualExecutor()
        let queue = WorkQueue("order", maxConcurrency: 1, executor: manual)
        let a = queue.add(label: "a") { _ in 1 }
        let b = queue.add(label: "b", priority: .visible) { _ in 2 }
        let c = queue.add(label: "c") { _ in 3 }
        let stream = [a, b, c].inCompletionOrder()
        manual.runAll()
        var labels: [String] = []
        for await item in stream { labels.append(item.label) }
        #expect(labels == ["b", "a", "c"])
        var none = 0
        for await _ in [WorkItem<Int>]().inCompletionOrder() { none += 1 }
        #expect(none == 0)
    }

    @Test("pendingItems lists unstarted items in start order, then held and waiting ones; its handles act on the items")
    func pendingItemsList() {
        let manual = ManualExecutor()
        let queue = WorkQueue("pending", maxConcurrency: 1, executor: manual)
        let a = queue.add(label: "a") { _ in 1 }
        let b = queue.add(label: "b", priority: .visible) { _ in 2 }
        let c = queue.add(label: "c", after: [a]) { _ in 3 }
        let prefetch = queue.add(label: "prefetch", priority: .prefetch) { _ in 4 }
        #expect(queue.pendingItems.map(\.label) == ["b", "a", "prefetch", "c"])
        #expect(queue.pendingItems.first?.id == b.id)
        manual.runNext()
        #expect(queue.pendingItems.map(\.label) == ["a", "prefetch", "c"])
        for item in queue.pendingItems where item.priority < .normal { item.cancel() }
        #expect(prefetch.state == .cancelled)
        #expect(manual.runAll() == 2)
        #expect(queue.pendingItems.isEmpty && c.state == .succeeded)
    }
}
