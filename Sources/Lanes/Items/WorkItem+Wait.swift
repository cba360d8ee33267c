import Dispatch

extension WorkItem {
    /// Blocks the calling thread until the item finishes and returns its value (OperationQueue's
    /// `waitUntilFinished()`, with the result). Throws what the body threw, `CancellationError` if the item was
    /// cancelled, or ``LanesError/wouldDeadlock(_:)`` without waiting where waiting could never end or must not
    /// happen: on the main thread (or main queue), and from an item running on the same queue as this one (it may
    /// hold the very slot this item waits for; ``WorkQueue/waitUntilIdle()`` is refused alike). An item that is
    /// never enqueued is never waited for in vain only if someone enqueues it: enqueue it first.
    ///
    /// ```swift
    /// let parsed = parsing.add(label: "parse") { _ in [3, 1, 2].sorted() }
    /// let numbers = try parsed.wait()   // from a command-line tool's worker thread
    /// ```
    public func wait() throws -> Output {
        try waitForResult().get()
    }

    /// Blocks like ``wait()`` and returns the item's result rather than throwing it (only the refusal throws).
    ///
    /// ```swift
    /// let answer = work.add { _ in 6 * 7 }
    /// if case .success(let value) = try answer.waitForResult() { print(value) }
    /// ```
    public func waitForResult() throws(LanesError) -> Result<Output, any Error> {
        if MainQueue.isCurrent {
            throw .wouldDeadlock("wait() on the main thread for item '\(label)'")
        }
        if let queue = node.state.withLock({ $0.queue }), CurrentLane.isRunning(on: queue) {
            throw .wouldDeadlock("wait() for item '\(label)' from an item running on its queue '\(queue.name)'")
        }
        let finished = DispatchSemaphore(value: 0)
        let outcome = LockedValue<Outcome?>(nil)
        node.onFinish { result in
            outcome.withLock { $0 = result }
            finished.signal()
        }
        finished.wait()
        return outcome.withLock { $0 }!.typed(Output.self, label: label)
    }
}

extension Sequence where Element: WorkDependency & Sendable {
    /// The items as they finish, first finished first (TaskGroup's `for await` over its children, for items): each
    /// is yielded once it has finished, so its `result` is ready without waiting. The sequence ends after the last
    /// one. Ending the loop early cancels nothing: cancel the items that are no longer wanted.
    ///
    /// ```swift
    /// let thumbnails = (1...3).map { page in renders.add(label: "page \(page)") { _ in page * 100 } }
    /// for await item in thumbnails.inCompletionOrder() {
    ///     if case .success(let pixels) = await item.result { print(item.label, pixels) }
    /// }
    /// ```
    public func inCompletionOrder() -> AsyncStream<Element> {
        let items = Array(self)
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .unbounded)
        let left = LockedValue(items.count)
        if items.isEmpty { continuation.finish() }
        for item in items {
            item._workDependency.node.onFinish { _ in
                continuation.yield(item)
                if left.withLock({ left in
                    left -= 1
                    return left == 0
                }) { continuation.finish() }
            }
        }
        return stream
    }
}
