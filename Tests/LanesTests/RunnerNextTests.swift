import Foundation
@testable import Lanes
import LanesTesting
import Testing

/// A runner lists the item its own item made ready (a chain's next link) in its next decision, not through a
/// critical section of its own (`RunnerBooks.next`): the links' order and the queue's promises stay exact.
@Suite("Runner's next item", .timeLimit(.minutes(2)))
struct RunnerNextTests {
    @Test("each link of a chain is listed by the runner that ran the link before it, and the links run in order")
    func chainLinksListedByTheirRunner() async throws {
        let manual = ManualExecutor()
        let queue = WorkQueue("chain", maxConcurrency: 1, executor: manual)
        let listed = LockedValue<[String]>([]), order = LockedValue<[Int]>([])
        queue._setRunnerHooks(RunnerHooks(listsNext: { label in listed.withLock { $0.append(label) } }))
        var previous = queue.add(label: "0") { _ in order.withLock { $0.append(0) } }
        for index in 1..<50 {
            previous = queue.add(label: "\(index)", after: [previous]) { _ in order.withLock { $0.append(index) } }
        }
        #expect(manual.runAll() == 50)
        #expect(order.withLock { $0 } == Array(0..<50))
        #expect(listed.withLock { $0 } == (1..<50).map { "\($0)" })
        await queue.idle()
    }

    @Test("a link listed by its runner keeps its place: a more urgent item, and one of its priority ready before it, run first")
    func keptLinkKeepsItsPlace() async throws {
        let runners = HeldRunners()
        let queue = WorkQueue("chain", maxConcurrency: 1, executor: runners)
        let listed = LockedValue<[String]>([]), order = LockedValue<[String]>([])
        queue._setRunnerHooks(RunnerHooks(listsNext: { label in listed.withLock { $0.append(label) } }))
        let started = Gate(), release = Gate()
        let first = queue.add(label: "A") { _ in
            order.withLock { $0.append("A") }
            started.open()
            release.wait()
        }
        queue.add(label: "B", after: [first]) { _ in order.withLock { $0.append("B") } }
        let runner = try #require(runners.take())
        let done = Gate()
        Thread {
            runner.run()
            done.open()
        }.start()
        await started.wait()
        queue.add(label: "X") { _ in order.withLock { $0.append("X") } }
        queue.add(label: "V", priority: .visible) { _ in order.withLock { $0.append("V") } }
        // Reading the counts admits the inbox: A's end then finds it empty, and its runner keeps B.
        #expect(queue.counts.ready == 2)
        release.open()
        await done.wait()
        await queue.idle()
        #expect(listed.withLock { $0 } == ["B"])
        #expect(order.withLock { $0 } == ["A", "V", "X", "B"])
    }
}
