import Synchronization
extension WorkItem {
    /// The item's value, awaited from Swift concurrency. Throws what the body threw, or Swift's `CancellationError`
    /// when the item was cancelled or the awaiting task was (cancelling the awaiting task cancels the item if no other
    /// task awaits it).
    ///
    /// **Cancellation looks like Swift's.** Every Lanes cancellation is Swift's `CancellationError`: an item's
    /// `value` and `result`, its completion handlers' results, ``WorkContext/checkCancellation()``, the concurrent
    /// enumerations, and (in LanesImages) image requests and memory-budget waits, so one `catch is CancellationError`
    /// handles them all. The item's ``state`` (`.cancelled`) and label tell which one it was.
    ///
    /// ```swift
    /// do {
    ///     let chart = try await renderQueue.add { ctx in try render(series, ctx) }.value
    ///     show(chart)
    /// } catch is CancellationError {
    ///     // the user left the screen
    /// }
    /// ```
    public var value: Output {
        get async throws { try await result.get() }
    }

    /// The item's result, awaited; see ``value`` (a cancelled item's result is `.failure(CancellationError())`).
    public var result: Result<Output, any Error> {
        get async {
            let node = self.node
            let id = node.state.withLock { state -> UInt64 in
                state.nextWaiter += 1
                return state.nextWaiter
            }
            let outcome: Outcome? = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Outcome?, Never>) in
                    node.addWaiter(id, continuation)
                }
            } onCancel: {
                node.abandonWaiter(id)
            }
            switch outcome {
            case nil, .cancelled?: return .failure(CancellationError())
            case let outcome?: return outcome.typed(Output.self, label: node.label)
            }
        }
    }
}

extension WorkItem {
    /// How many tasks are awaiting the item now (for tests that must order steps without sleeping).
    package var awaitingTaskCount: Int { node.state.withLock { $0.waiters.count } }
}

extension WorkNode {
    func addWaiter(_ id: UInt64, _ continuation: CheckedContinuation<Outcome?, Never>) {
        var effects: [Effect] = []
        let immediate = state.withLock { state -> Outcome?? in
            if let outcome = state.outcome { return .some(outcome) }
            if state.abandonedWaiters.remove(id) != nil {
                // The task was cancelled before it could register: it no longer waits.
                cancelIfUnneeded(&state, always: true, into: &effects)
                check(state)
                return .some(nil)
            }
            state.waiters[id] = continuation
            return .none
        }
        Effects.run(consume effects)
        if let immediate { continuation.resume(returning: immediate) }
    }

    /// The awaiting task was cancelled: stop waiting, and cancel the item if nothing else needs it (no other
    /// awaiting task, no dependent that has not left, no `keep()`).
    func abandonWaiter(_ id: UInt64) {
        var effects: [Effect] = []
        let continuation = state.withLock { state -> CheckedContinuation<Outcome?, Never>? in
            guard !state.isFinished else { return nil }
            guard let continuation = state.waiters.removeValue(forKey: id) else {
                state.abandonedWaiters.insert(id)
                return nil
            }
            cancelIfUnneeded(&state, always: true, into: &effects)
            check(state)
            return continuation
        }
        Effects.run(consume effects)
        continuation?.resume(returning: nil)
    }
}
