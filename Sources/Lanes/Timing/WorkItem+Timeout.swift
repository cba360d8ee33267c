extension WorkItem {
    /// Cancels the item if it has not finished `limit` from now, and makes it fail with
    /// ``LanesError/timedOut(_:)`` rather than `CancellationError`. A timed-out item is cancelled like any
    /// other (a pending body never starts; a running body sees ``WorkContext/isCancelled`` and its `onCancel`
    /// handlers run) and finishes in the ``WorkState/failed`` state. Returns the item, so it chains after `add`.
    ///
    /// ```swift
    /// let page = network.add(label: "GET /feed") { ctx in try fetchFeed(ctx) }
    ///     .timeout(after: .seconds(10))
    /// do { show(try await page.value) } catch LanesError.timedOut { showOfflineBanner() }
    /// ```
    ///
    /// The time counts from the call, so it includes any time the item waits in its queue. The timer is released
    /// as soon as the item finishes.
    @discardableResult
    public func timeout(after limit: Duration, clock: any LaneClock = SystemLaneClock()) -> WorkItem<Output> {
        let node = self.node
        let token = clock.schedule(at: clock.deadline(after: limit), leeway: 0) { node.cancelForTimeout() }
        node.onFinish { _ in token.cancel() }
        return self
    }
}

extension WorkNode {
    /// Cancels the node, recording that it timed out (unless it was already cancelled or finished).
    func cancelForTimeout() {
        state.withLock { state in
            if !state.cancelRequested, !state.isFinished { state.timedOut = true }
        }
        cancel()
    }
}
