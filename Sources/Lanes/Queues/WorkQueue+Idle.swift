import Synchronization
import Dispatch

extension WorkQueue {
    // MARK: Waiting

    /// Returns when the queue has no unfinished item.
    ///
    /// ```swift
    /// await queue.idle()
    /// ```
    public func idle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            whenIdle { continuation.resume() }
        }
    }

    /// Blocks the calling thread until the queue has no unfinished item. Refused (with
    /// ``LanesError/wouldDeadlock(_:)``) on the main thread and from an item running on this queue.
    ///
    /// ```swift
    /// try queue.waitUntilIdle()   // from a command-line tool's worker thread
    /// ```
    public func waitUntilIdle() throws(LanesError) {
        if MainQueue.isCurrent {
            throw .wouldDeadlock("waitUntilIdle() on the main thread for queue '\(name)'")
        }
        if CurrentLane.isRunning(on: self) {
            throw .wouldDeadlock("waitUntilIdle() from an item running on queue '\(name)'")
        }
        let semaphore = DispatchSemaphore(value: 0)
        whenIdle { semaphore.signal() }
        semaphore.wait()
    }

    /// Calls `wake` once the queue has no unfinished item: at once if it has none now, otherwise from the critical
    /// section's action that leaves it idle. Either way the retired stack is emptied first: a runner retires its item
    /// before accounting for it, so an idle queue's stack holds all it will.
    private func whenIdle(_ wake: @escaping @Sendable () -> Void) {
        let now = locked { state -> Bool in
            if state.isIdle { return true }
            state.idleWaiters.append(wake)
            return false
        }
        if now {
            releaseRetired()
            wake()
        }
    }

    /// Runs the queue's ready items on the calling thread, as one more runner would (the queue's limit still
    /// holds: nothing runs while its limit's worth of items already runs). Returns how many bodies started. For
    /// LanesTesting's `MainQueuePump.runPending()`, which drains ``main`` from a `@MainActor` test.
    package func runOnCaller(maxItems: Int = .max) -> Int {
        update { state, _ in state.workers += 1 }
        return WorkRunner(queue: self).runCounting(maxItems: maxItems)
    }
}
