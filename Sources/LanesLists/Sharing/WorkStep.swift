import Lanes

/// A way to steer one step of shared work from outside: cancel it, change its priority. A step is whatever the work
/// waits on now — a queued or running work item, another piece of shared work, a memory reservation, a transfer.
///
/// ```swift
/// let item = decoding.add(priority: job.priority) { context in try decode(data, context) }
/// job.install(WorkStep(item), order: 1, startedAt: item.priority)
/// ```
public struct WorkStep: Sendable {
    /// Cancels the step (idempotent).
    public let cancel: @Sendable () -> Void
    /// Changes the step's priority, live.
    public let setPriority: @Sendable (WorkPriority) -> Void

    /// A step that cannot be steered (it has already finished).
    public static let done = WorkStep(cancel: {}, setPriority: { _ in })

    /// A step steered by two closures.
    ///
    /// ```swift
    /// let step = WorkStep(cancel: { transfer.cancel() }, setPriority: { transfer.priority = $0 })
    /// ```
    public init(cancel: @escaping @Sendable () -> Void, setPriority: @escaping @Sendable (WorkPriority) -> Void) {
        self.cancel = cancel
        self.setPriority = setPriority
    }

    /// Steers a work item: cancelling it, re-prioritising it in its queue.
    ///
    /// ```swift
    /// let step = WorkStep(queue.add(priority: .prefetch) { _ in try render() })
    /// ```
    public init<Output>(_ item: WorkItem<Output>) {
        self.cancel = { item.cancel() }
        self.setPriority = { item.priority = $0 }
    }

    /// Steers a subscription to other shared work: leaving it, changing this consumer's priority.
    ///
    /// ```swift
    /// let upstream = fetches.subscribe(url, priority: job.priority, deliver: { _ in }, start: startDownload)
    /// job.install(WorkStep(upstream.subscription), order: 0, startedAt: job.priority)
    /// ```
    public init(_ subscription: SharedSubscription) {
        self.cancel = { subscription.cancel() }
        self.setPriority = { subscription.setPriority($0) }
    }
}
