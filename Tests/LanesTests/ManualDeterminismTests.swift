import Lanes
import LanesTesting
import Testing

/// With every queue on a `ManualExecutor`, nothing happens off the test's thread: not even `cancelAll()`'s
/// bookkeeping. Each test would fail if a step ran on a background thread (the counts would be short, at random).
@Suite("Manual executors are deterministic", .timeLimit(.minutes(5)))
struct ManualDeterminismTests {
    @Test("after cancelAll() every handle is resolved and every completion runs at the completion queue's next runAll()")
    func cancelAllPostsThroughManualQueues() {
        for round in 0..<200 {
            let work = ManualExecutor()
            let ui = ManualExecutor()
            let queue = WorkQueue("work-\(round)", maxConcurrency: 2, executor: work)
            let uiQueue = WorkQueue("ui-\(round)", maxConcurrency: 1, executor: ui)
            let handled = Recorder<String>()
            let items = (0..<5).map { index in queue.add(label: "item \(index)") { _ in index } }
            for item in items {
                item.onCompletion(on: uiQueue) { result in
                    handled.append(result.isCancellation ? "cancelled" : "ran")
                }
            }
            queue.cancelAll()
            #expect(items.allSatisfy { $0.state == .cancelled })
            #expect(queue.counts.unfinished == 0)
            #expect(ui.runAll() == 5)
            #expect(handled.elements == Array(repeating: "cancelled", count: 5), "round \(round)")
            #expect(work.runAll() == 0)
        }
    }

    @Test("runAll() and runNext() count bodies that ran, not runners")
    func countsItems() {
        let manual = ManualExecutor()
        let queue = WorkQueue("counts", maxConcurrency: 2, executor: manual)
        let ran = Recorder<Int>()
        let first = queue.add { _ in ran.append(1) }
        let second = queue.add { _ in ran.append(2) }
        #expect(manual.pendingRunners == 2)
        first.cancel()
        second.cancel()
        #expect(manual.runNext() == false)  // two runners, no body
        #expect(manual.runAll() == 0)
        for value in 0..<3 { queue.add { _ in ran.append(value) } }
        #expect(manual.runAll() == 3)
        #expect(ran.elements == [0, 1, 2])
    }

    @Test("MainQueuePump.runPending() runs WorkQueue.main deliveries inside a @MainActor test, in order")
    @MainActor func pumpsTheMainQueue() {
        let background = ManualExecutor()
        let queue = WorkQueue("pumped", maxConcurrency: 1, executor: background)
        let screen = MainScreen()
        let chart = queue.add(label: "chart") { _ in "chart" }
        chart.onMainCompletion { screen.shown.append((try? $0.get()) ?? "failed") }
        WorkQueue.main.add(label: "after", priority: .visible) { _ in MainActor.assumeIsolated { screen.shown.append("later") } }
        background.runAll()
        #expect(screen.shown.isEmpty)  // the completion waits for the main queue's turn
        let ran = MainQueuePump.runPending()
        #expect(ran >= 2)
        #expect(screen.shown == ["later", "chart"])  // the plain item was queued first
        let cancelled = queue.add(label: "cancelled") { _ in "never" }
        cancelled.onMainCompletion { screen.shown.append($0.isCancellation ? "cancelled" : "ran") }
        queue.cancelAll()
        MainQueuePump.runPending()
        #expect(screen.shown.last == "cancelled")
    }

    @MainActor final class MainScreen {
        var shown: [String] = []
    }
}

extension Result {
    /// Whether the result is Lanes' cancellation.
    fileprivate var isCancellation: Bool {
        if case .failure(let error) = self { return error is CancellationError }
        return false
    }
}
