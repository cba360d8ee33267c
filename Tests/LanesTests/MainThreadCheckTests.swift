import Foundation
import Lanes
import LanesTesting
import Testing

@Suite("The cached main-thread check", .timeLimit(.minutes(1)))
struct MainThreadCheckTests {
    @Test("a thread that is not the main thread is told so on every ask, and the main thread's answer is Foundation's")
    func answersPerThread() async throws {
        let answers = await onDedicatedThread { [MainQueue.isMainThread, MainQueue.isMainThread, Thread.isMainThread] }
        #expect(answers == [false, false, false])
        #expect(MainQueue.isMainThread == Thread.isMainThread)
        #expect(MainQueue.isMainThread == Thread.isMainThread)   // the second ask reads the slot
        let onMain = await MainActor.run { (MainQueue.isMainThread, Thread.isMainThread) }
        #expect(onMain.0 == onMain.1)
    }
}
