import Dispatch
import Foundation
import Lanes
import LanesTesting
import Testing

/// A barrier for `count` threads that blocks them (a thread, not a task, waits) until all have arrived, or gives up
/// after `timeout`: false then. Only threads that are not Swift's global executor's can all wait at once when `count`
/// is larger than that executor's width (one thread per core).
private final class ThreadBarrier: Sendable {
    private let count: Int
    private let arrived = LockedValue(0)
    private let release = DispatchSemaphore(value: 0)

    init(count: Int) { self.count = count }

    func arriveAndWait(timeout: Double = 120) -> Bool {
        let last = arrived.withLock { arrived -> Bool in
            arrived += 1
            return arrived == count
        }
        if last {
            for _ in 1..<count { release.signal() }
            return true
        }
        return release.wait(timeout: .now() + timeout) == .success
    }
}

/// More bodies than Swift's global executor has threads, each blocking its thread until all are blocked.
private let crowd = ProcessInfo.processInfo.activeProcessorCount + 1
private let heavyBarrier = ThreadBarrier(count: crowd)

/// LanesTesting's own threads: `onDedicatedThread` and the `.heavy` trait run test code off Swift's global executor,
/// in the test's own task.
@Suite("LanesTesting's test threads", .timeLimit(.minutes(5)))
struct TestThreadsTests {
    @Test("more blocked dedicated-thread bodies than the global executor has threads all run at once")
    func dedicatedThreadsAreNotTheGlobalExecutors() async {
        let barrier = ThreadBarrier(count: crowd)
        let met = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<crowd { group.addTask { await onDedicatedThread { barrier.arriveAndWait() } } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(met == Array(repeating: true, count: crowd))
    }

    @Test("an issue recorded on a dedicated thread belongs to the test that ran it")
    func issuesInsideCountForTheTest() async throws {
        await withKnownIssue("recorded on a dedicated thread") {
            await onDedicatedThread { () -> Void in Issue.record("recorded on a dedicated thread") }
        } matching: { issue in
            issue.comments.contains("recorded on a dedicated thread")
        }
        let value = try await onDedicatedThread { () throws -> Int in
            #expect(Test.current != nil)
            return 42
        }
        #expect(value == 42)
        await #expect(throws: CancellationError.self) {
            try await onDedicatedThread { () throws(CancellationError) in throw CancellationError() }
        }
    }

    @Test("the cases of a heavy test run on LanesTesting's threads, all at once", .heavy, arguments: 0..<crowd)
    func heavyCasesRunOffTheGlobalExecutor(index: Int) {
        #expect(heavyBarrier.arriveAndWait(), "case \(index) never met the others")
        #expect(Test.current != nil)
    }
}
