import Foundation
import Synchronization
@testable import Lanes
import LanesTesting
import Testing

/// An item's output; counts the live ones and whether the last was freed while the test was adding an item.
private final class RetiredOutput: Sendable {
    static let alive = Atomic<Int>(0)
    let freedDuringAdd: LockedValue<Bool>?
    let adding: LockedValue<Bool>?

    init(adding: LockedValue<Bool>? = nil, freedDuringAdd: LockedValue<Bool>? = nil) {
        self.adding = adding
        self.freedDuringAdd = freedDuringAdd
        Self.alive.add(1, ordering: .relaxed)
    }

    deinit {
        Self.alive.subtract(1, ordering: .relaxed)
        if let adding, let freedDuringAdd {
            let value = adding.withLock { $0 }
            freedDuringAdd.withLock { $0 = value }
        }
    }
}

/// A runner hands the node of a synchronous item it ran back to the thread that adds items (``WorkQueue/retire``),
/// so a node is allocated and freed on one thread: glibc's per-thread cache then serves both without its arena lock.
@Suite("Retired nodes", .serialized, .timeLimit(.minutes(2)))
struct RetiredNodeTests {
    @Test("a finished item's node is freed by the thread that adds the next item, not by its runner")
    func freedByTheNextAdd() async throws {
        let runners = HeldRunners()
        let queue = WorkQueue("retire", maxConcurrency: 1, executor: runners)
        let adding = LockedValue(false), freedDuringAdd = LockedValue(false)
        queue.add(label: "A") { _ in RetiredOutput(adding: adding, freedDuringAdd: freedDuringAdd) }
        let started = Gate(), release = Gate()
        queue.add(label: "B") { _ in
            started.open()
            release.wait()
        }
        let done = HeldRunners.start(try #require(runners.take()))
        await started.wait()
        // A ran and nothing holds its handle: its node (and output) waits on the retired stack.
        #expect(RetiredOutput.alive.load(ordering: .relaxed) == 1)
        adding.withLock { $0 = true }
        queue.add(label: "C") { _ in }
        adding.withLock { $0 = false }
        #expect(RetiredOutput.alive.load(ordering: .relaxed) == 0)
        #expect(freedDuringAdd.withLock { $0 })
        release.open()
        await done.wait()
        await queue.idle()
    }

    @Test("a runner frees the nodes itself after retiredLimit in a row that no producer took, and its own from then on")
    func boundedWithoutProducer() async throws {
        let runners = HeldRunners()
        let queue = WorkQueue("retire", maxConcurrency: 1, executor: runners)
        let count = WorkQueue.retiredLimit + 8
        for index in 0..<count { queue.add(label: "\(index)") { _ in RetiredOutput() } }
        let started = Gate(), release = Gate()
        queue.add(label: "last") { _ in
            started.open()
            release.wait()
        }
        let done = HeldRunners.start(try #require(runners.take()))
        await started.wait()
        // The first retiredLimit were freed by the runner at the limit; no producer adds, so the runner freed the 8
        // after it itself, each after the decision that accounted for it (a gate's thousands of dependents).
        #expect(RetiredOutput.alive.load(ordering: .relaxed) == 0)
        release.open()
        await done.wait()
        #expect(RetiredOutput.alive.load(ordering: .relaxed) == 0)
        await queue.idle()
    }

    @Test("a runner that frees its own nodes hands them back again once a producer adds items")
    func handsBackWhenProducersAdd() async throws {
        let runners = HeldRunners()
        let queue = WorkQueue("retire", maxConcurrency: 1, executor: runners)
        for index in 0..<WorkQueue.retiredLimit { queue.add(label: "\(index)") { _ in } }
        let started = Gate(), release = Gate()
        queue.add(label: "held") { _ in
            started.open()
            release.wait()
        }
        let done = HeldRunners.start(try #require(runners.take()))
        await started.wait()
        // The runner filled the stack with no producer emptying it: it frees its own nodes now. A producer adds
        // while it runs "held": at its next decision it finds them in the inbox and hands its nodes back again.
        let startedAgain = Gate(), releaseAgain = Gate()
        queue.add(label: "after") { _ in RetiredOutput() }
        queue.add(label: "held again") { _ in
            startedAgain.open()
            releaseAgain.wait()
        }
        release.open()
        await startedAgain.wait()
        // "after" ran and its node waits on the retired stack for the producer's next add.
        #expect(RetiredOutput.alive.load(ordering: .relaxed) == 1)
        queue.add(label: "empties the stack") { _ in }
        #expect(RetiredOutput.alive.load(ordering: .relaxed) == 0)
        releaseAgain.open()
        await done.wait()
        await queue.idle()
    }

    @Test("idle() returns with no finished node left on the retired stack")
    func idleLeavesNothing() async throws {
        let runners = HeldRunners()
        let queue = WorkQueue("retire", maxConcurrency: 1, executor: runners)
        for index in 0..<5 { queue.add(label: "\(index)") { _ in RetiredOutput() } }
        let runner = try #require(runners.take())
        async let idle: Void = queue.idle()
        let done = HeldRunners.start(runner)
        await idle
        #expect(RetiredOutput.alive.load(ordering: .relaxed) == 0)
        await done.wait()
    }
}
