import Foundation
import Lanes
import LanesTesting
import Testing

// The main thread's own answer is checked where the main thread runs main-queue work: the child-process tests of
// MainThreadTests drain through MainQueueDriver, whose precondition asks MainQueue.isMainThread. The time limit is the
// suites' usual five minutes: under ThreadSanitizer a test may wait two minutes for a thread of the test pool while
// the stress suites run.
@Suite("The cached main-thread check", .timeLimit(.minutes(5)))
struct MainThreadCheckTests {
    @Test("a thread that is not the main thread is told so on every ask, and the test thread's answer is Foundation's")
    func answersPerThread() async throws {
        let answers = await onDedicatedThread { [MainQueue.isMainThread, MainQueue.isMainThread, Thread.isMainThread] }
        #expect(answers == [false, false, false])
        #expect(MainQueue.isMainThread == Thread.isMainThread)
        #expect(MainQueue.isMainThread == Thread.isMainThread)   // the second ask reads the slot
    }
}
