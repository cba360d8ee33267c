import Synchronization
/// What a running body knows about its item: cancellation, progress, and where it runs.
///
/// Long loops check for cancellation, so cancelled work stops promptly:
///
/// ```swift
/// queue.add(label: "filter") { ctx in
///     for row in 0..<height {
///         try ctx.checkCancellation()
///         filterRow(row)
///         ctx.reportProgress(Double(row + 1) / Double(height))
///     }
/// }
/// ```
public struct WorkContext: Sendable {
    // Only the node: its queue is reached through it (one reference fewer to count per item).
    let node: WorkNode

    init(node: WorkNode) {
        self.node = node
    }

    /// The queue the item runs on.
    var queue: WorkQueue { node.runningQueue }

    /// Whether the item was cancelled. Cheap: two atomic loads.
    public var isCancelled: Bool {
        node.cancelFlag.load(ordering: .acquiring) || node.queueCancelledAll
    }

    /// Throws Swift's `CancellationError` if the item was cancelled: the error every Lanes cancellation is, so one
    /// `catch is CancellationError` handles them all (see ``LanesError``).
    ///
    /// ```swift
    /// let sum = queue.add(label: "sum") { ctx in
    ///     var total = 0
    ///     for value in 0..<1_000_000 {
    ///         if value % 10_000 == 0 { try ctx.checkCancellation() }
    ///         total += value
    ///     }
    ///     return total
    /// }
    /// ```
    public func checkCancellation() throws(CancellationError) {
        if isCancelled { throw CancellationError() }
    }

    /// Runs `handler` once when the item is cancelled, at once if it already is. Use it to cancel an underlying
    /// transfer or to wake a wait.
    ///
    /// ```swift
    /// queue.add(label: "download") { ctx in
    ///     let transfer = session.dataTask(with: url) { data, response, error in /* ... */ }
    ///     ctx.onCancel { transfer.cancel() }
    ///     transfer.resume()
    /// }
    /// ```
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        node.onCancel(handler)
    }

    /// Runs `handler` with the item's effective priority each time it changes (its own priority is set, a waiting
    /// consumer lends it more or takes its loan back), until the item finishes: how work driven outside the queues —
    /// a transfer, a wait for memory — follows the priority of those who wait for it. `startedAt` is the priority
    /// the work was started at (read from ``priority``): if the item's priority moved since, `handler` runs at once.
    /// Calls are made one at a time, outside every lock, and the last one carries the latest priority.
    ///
    /// ```swift
    /// let fetch = network.add(label: "fetch", callback: { (ctx: WorkContext, finish) in
    ///     let startedAt = ctx.priority
    ///     let transfer = session.dataTask(with: url) { data, _, error in
    ///         finish(data.map(Result.success) ?? .failure(error ?? URLError(.unknown)))
    ///     }
    ///     transfer.priority = startedAt == .visible ? 1 : 0.5
    ///     ctx.onPriorityChange(since: startedAt) { transfer.priority = $0 == .visible ? 1 : 0.5 }
    ///     ctx.onCancel { transfer.cancel() }
    ///     transfer.resume()
    /// })
    /// ```
    public func onPriorityChange(since startedAt: WorkPriority, _ handler: @escaping @Sendable (WorkPriority) -> Void) {
        node.onPriorityChange(since: startedAt, handler)
    }

    /// Records progress as a fraction from 0 to 1; read it with ``WorkItem/progress``.
    public func reportProgress(_ fraction: Double) {
        let clamped = fraction.isNaN ? 0 : min(1, max(0, fraction))
        node.progressBits.store(clamped.bitPattern, ordering: .relaxed)
    }

    /// Records progress as a count of done units out of a total.
    public func reportProgress(completed: Int, of total: Int) {
        reportProgress(total > 0 ? Double(completed) / Double(total) : 0)
    }

    /// The item's label.
    public var label: String { node.label }

    /// The queue the item runs on.
    public var queueName: String { queue.name }

    /// The item's effective priority (its own, or higher if a waiting dependent lends it more).
    public var priority: WorkPriority { node.effectivePriority }
}
