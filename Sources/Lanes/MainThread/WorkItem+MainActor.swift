extension WorkItem {
    /// Calls `handler` with the item's result on the main actor once the item finishes: a ``WorkQueue/main`` item, so
    /// it runs in order with the rest of the main queue. A `@MainActor` class can touch its own state in it with no
    /// `MainActor.assumeIsolated`. A cancelled item reports `CancellationError`, as ``onCompletion(on:_:)``.
    ///
    /// ```swift
    /// @MainActor final class ChartView {
    ///     var chart: Chart?
    ///     func show(_ render: WorkItem<Chart>) {
    ///         render.onMainCompletion { result in self.chart = try? result.get() }
    ///     }
    /// }
    /// ```
    public func onMainCompletion(_ handler: @escaping @MainActor (Result<Output, any Error>) -> Void) {
        onCompletion(on: .main, onMainActor(handler))
    }
}
