import Foundation
@testable import Lanes
import LanesTesting
import Testing

@Suite("Runner batches", .timeLimit(.minutes(5)))
struct RunnerBatchTests {
    @Test("a runner blocked in a long body strands none of the items it batched: another runner steals them")
    func blockedBodyStrandsNothing() async throws {
        let runners = HeldRunners()
        let queue = WorkQueue("batches", maxConcurrency: 2, executor: runners)
        queue._batchWhenUncontended()
        queue.suspend()
        let started = Gate(), release = Gate()
        let blocker = queue.add(label: "blocker") { _ in
            started.open()
            release.wait()
        }
        let items = (0..<20).map { index in queue.add(label: "item \(index)") { _ in index } }
        queue.resume()
        let blocked = HeldRunners.start(try #require(runners.take()))
        await started.wait()
        // 21 ready for 2 runners: the first takes 10 at once, the blocker and the next 9.
        #expect(queue._batchCounts.batched == 9)
        let second = try #require(runners.take())
        await onDedicatedThread { second.run() }
        for (index, item) in items.enumerated() { #expect(try await item.value == index) }
        #expect(queue._batchCounts.stolen == 9)
        #expect(blocker.state == .running)
        release.open()
        await blocked.wait()
        await queue.idle()
        #expect(queue.counts.running == 0)
    }

    @Test("a visible item added behind a batch of prefetch items starts before them")
    func urgentItemOvertakesBatch() async throws {
        let runners = HeldRunners()
        let queue = WorkQueue("batches", maxConcurrency: 1, executor: runners)
        queue._batchWhenUncontended()
        let order = LockedValue<[String]>([])
        queue.suspend()
        let started = Gate(), release = Gate()
        queue.add(label: "p0", priority: .prefetch) { _ in
            started.open()
            release.wait()
            order.withLock { $0.append("p0") }
        }
        for index in 1...10 {
            queue.add(label: "p\(index)", priority: .prefetch) { _ in order.withLock { $0.append("p\(index)") } }
        }
        queue.resume()
        let done = HeldRunners.start(try #require(runners.take()))
        await started.wait()
        #expect(queue._batchCounts.batched == 10)
        queue.add(label: "visible", priority: .visible) { _ in order.withLock { $0.append("visible") } }
        release.open()
        await done.wait()
        #expect(order.withLock { $0 } == ["p0", "visible"] + (1...10).map { "p\($0)" })
        #expect(queue._batchCounts.givenBack == 10)
    }

    @Test("a suspended queue starts none of the batched items taken before the suspension")
    func suspendStopsBatch() async throws {
        let runners = HeldRunners()
        let queue = WorkQueue("batches", maxConcurrency: 1, executor: runners)
        queue._batchWhenUncontended()
        queue.suspend()
        let started = Gate(), release = Gate()
        queue.add(label: "first") { _ in
            started.open()
            release.wait()
        }
        let rest = (0..<10).map { index in queue.add(label: "item \(index)") { _ in index } }
        queue.resume()
        let done = HeldRunners.start(try #require(runners.take()))
        await started.wait()
        #expect(queue._batchCounts.batched == 10)
        queue.suspend()
        release.open()
        await done.wait()
        #expect(rest.allSatisfy { $0.state == .pending })
        #expect(queue.counts.ready == 10)
        queue.resume()
        let again = try #require(runners.take())
        await onDedicatedThread { again.run() }
        for (index, item) in rest.enumerated() { #expect(try await item.value == index) }
    }

    @Test("no batched item is lost or run twice: concurrent producers, cancel-all, thousands of rounds", .heavy)
    func batchesLoseNothing() async throws {
        let rounds = TestScale.pick(2_000, sanitized: 150)
        let perProducer = 100
        let batched = try await onDedicatedThread { () throws -> Int in
            var batched = 0
            for round in 0..<rounds {
                let queue = WorkQueue("batches stress", maxConcurrency: 4)
                queue._batchWhenUncontended()
                let runs = LockedValue([Int](repeating: 0, count: 2 * perProducer))
                let handles = LockedValue([WorkItem<Void>?](repeating: nil, count: 2 * perProducer))
                DispatchQueue.concurrentPerform(iterations: 3) { producer in
                    guard producer < 2 else {
                        // Cancel at a different moment each round.
                        for _ in 0..<(round % 64) { sched_yield() }
                        if round % 2 == 0 { queue.cancelAll() }
                        return
                    }
                    for index in 0..<perProducer {
                        let slot = producer * perProducer + index
                        let item = queue.add(label: "\(slot)", priority: index % 7 == 0 ? .visible : .normal) { _ in
                            runs.withLock { $0[slot] += 1 }
                        }
                        handles.withLock { $0[slot] = item }
                    }
                }
                try queue.waitUntilIdle()
                let counts = runs.withLock { $0 }
                for (slot, handle) in handles.withLock({ $0 }).enumerated() {
                    let state = handle?.state
                    #expect(counts[slot] <= 1, "item \(slot) ran \(counts[slot]) times")
                    #expect(state?.isFinished == true, "item \(slot) is \(String(describing: state))")
                    if state == .succeeded { #expect(counts[slot] == 1, "item \(slot) succeeded without running") }
                }
                #expect(queue.counts.unfinished == 0)
                batched += queue._batchCounts.batched
            }
            return batched
        }
        #expect(batched > 0)
    }
}
