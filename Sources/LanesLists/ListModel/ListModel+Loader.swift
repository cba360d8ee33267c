import Lanes

/// Wiring a list to a content loader: a table of expensive cells with no app code beyond the binding.
@MainActor
extension ListModel {
    /// Drives `loader` from the list: a row that will display is bound (in its reused cell) at visible priority, a
    /// row that ends display releases its cell's binding, rows entering the preload range are prefetched and rows
    /// leaving it are withdrawn. Work for a row that scrolls just off screen into the preload range continues at
    /// prefetch priority; a prefetched row that comes on screen is promoted at once. The adaptive preload is planned
    /// against the loader's ``ContentLoader/costs`` (a visible row that would leave the screen before its work could
    /// be ready loads at `WorkPriority.utility`, behind the rows that can still make it) on the threads its queue lets
    /// prefetch use (its speculative limit, or its width), or on the ``ContentLoader/threads`` a loader made with a
    /// `Make` was given: see ``planPreload(costs:threads:allThreads:)``. Such a row, and every row while the list
    /// brings rows on screen faster than the threads render them or its rows wait longer than a frame for their content
    /// (``wantsQuick(forRow:)``; the bindings record that wait into ``ContentLoader/costs``), also asks its binding's
    /// quick tier, if it has one (``ContentLoader/binding(quick:placeholder:handler:)``), for a cheaper rendering at
    /// visible priority: it shows that first, and the full content when it comes.
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
    ///
    /// With `quick`, the loader of the bindings' quick tier, rows entering the preload range while the list brings
    /// rows faster than the threads render them (``wantsQuick(forRow:)``) are prefetched as quick renderings instead,
    /// at `WorkPriority.normal`: cheap enough to be ready when they come on screen, where the full ones could not be.
    /// The plan then skips none of the rows coming next (``planQuickTier(costs:)``). Such a row, displayed,
    /// asks its binding for the quick rendering and loads its full content at `WorkPriority.normal` when the plan says
    /// it can still be ready before the row leaves (level with the quick renderings of the rows coming next), else at
    /// `WorkPriority.utility` (where time allows), not in front of them.
    public func connect<Key, Value>(
        to loader: ContentLoader<Key, Value>, quick: ContentLoader<Key, Value>? = nil,
        key: @escaping @MainActor (Int) -> Key,
        binding: @escaping @MainActor (Cell) -> ContentBinding<Key, Value>
    ) {
        if let threads = loader.threads {
            planPreload(
                costs: loader.costs, threads: loader.queue?.speculativeLimit?.limit ?? threads, allThreads: threads)
        }
        if let quick { planQuickTier(costs: quick.costs) }
        observe { [unowned self] event in
            switch event {
            case .willDisplay(let row, let cell):
                // A row that cannot get its full content in time asks for the quick tier, if any. Its full content
                // loads at normal when the plan says it can still be ready before the row leaves (level with the quick
                // renderings of the rows coming next, ahead of the rest of the preload), else at utility (where time
                // allows), not in front of the quick renderings.
                let asksQuick = quick != nil && wantsQuick(forRow: row)
                let full = loadPriority(forRow: row)
                let priority = asksQuick ? (full == .visible ? WorkPriority.normal : .utility) : full
                binding(cell).show(key(row), priority: priority, quick: asksQuick)
            case .didEndDisplay(_, let cell): binding(cell).clear()
            case .enterPreload(let row):
                if let quick, wantsQuick(forRow: row) {
                    // Level with the full content of displayed rows that can still make it: cheap, and the only
                    // content the rows coming next can have; at prefetch level it would wait behind those renders
                    // until the rows were on screen.
                    quick.prefetch(CollectionOfOne(key(row)), priority: .normal)
                } else {
                    loader.prefetch(CollectionOfOne(key(row)), priority: preloadPriority)
                }
            case .leavePreload(let row):
                loader.cancelPrefetch(CollectionOfOne(key(row)))
                quick?.cancelPrefetch(CollectionOfOne(key(row)))
            }
        }
    }
}
