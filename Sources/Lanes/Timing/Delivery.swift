/// How time-based helpers (and the lists' shared work) hand a callback to the queue the user chose.
package enum Delivery {
    /// Runs `action` on `queue` as a `.visible` item labelled `label`, or at once on the calling thread when `queue`
    /// is nil. `settled` runs once the delivery is over, however it ended (the item may be cancelled by
    /// `cancelAll()` before it runs).
    package static func run(
        on queue: WorkQueue?, label: String, _ action: @escaping @Sendable () -> Void,
        settled: (@Sendable () -> Void)? = nil
    ) {
        guard let queue else {
            action()
            settled?()
            return
        }
        let item = WorkItem<Void>(label: label, priority: .visible) { _ in action() }
        if let settled { item.node.onFinish { _ in settled() } }
        try? queue.enqueue(item)  // a fresh item cannot be enqueued already
    }
}
