import Lanes

/// Wiring a list to a content loader: the seeds' table of expensive cells with no app code beyond the binding.
@MainActor
extension ListModel {
    /// Drives `loader` from the list: a row that will display is bound (in its reused cell) at visible priority, a
    /// row that ends display releases its cell's binding, rows entering the preload range are prefetched and rows
    /// leaving it are withdrawn. Work for a row that scrolls just off screen into the preload range continues at
    /// prefetch priority; a prefetched row that comes on screen is promoted at once.
    ///
    /// ```swift
    /// @MainActor final class ChartRow {
    ///     var chart: Chart?
    ///     lazy var content = charts.binding(placeholder: { [unowned self] _ in chart = nil }) { [unowned self] _, result in
    ///         chart = try? result.get()
    ///     }
    /// }
    /// let list = ListModel(rowCount: symbols.count, rowHeight: 1, viewportHeight: 20) { ChartRow() }
    /// list.connect(to: charts, key: { symbols[$0] }, binding: { $0.content })
    /// ```
    public func connect<Key, Value>(
        to loader: ContentLoader<Key, Value>, key: @escaping @MainActor (Int) -> Key,
        binding: @escaping @MainActor (Cell) -> ContentBinding<Key, Value>
    ) {
        observe { event in
            switch event {
            case .willDisplay(let row, let cell): binding(cell).show(key(row), priority: .visible)
            case .didEndDisplay(_, let cell): binding(cell).clear()
            case .enterPreload(let row): loader.prefetch(CollectionOfOne(key(row)))
            case .leavePreload(let row): loader.cancelPrefetch(CollectionOfOne(key(row)))
            }
        }
    }
}
