import Lanes
import Synchronization

/// Binds a cell (or any view) to the content of one key at a time, so a reused cell never shows another row.
///
/// ``show(_:priority:quick:)`` asks the loader for a key; a cached value is handed to `handler` before `show` returns (no
/// empty-cell flicker). Otherwise `placeholder` runs and the value is handed over on the loader's delivery queue, but
/// only if the binding still shows that key: once the cell is reused for another row, or cleared, the old row's
/// result never reaches it (it goes to the cache for next time). Showing another key or clearing withdraws the old
/// request, which cancels the old key's work unless someone else still wants it.
///
/// If the work is cancelled behind the loader's back (its queue's `cancelAll()`), the binding is not left waiting:
/// the placeholder runs again, ``isLoaded`` stays false, and the next ``show(_:priority:quick:)`` of the key loads it
/// again. The handler never receives that cancellation.
///
/// With a quick tier (``ContentLoader/binding(quick:placeholder:handler:)``: a second loader of a cheaper rendering of
/// the same keys, such as a sparkline for a chart or a reduced decode of a photo), a row that cannot get its full
/// content in time shows the quick one first: a cached quick value replaces the placeholder at once, and
/// ``show(_:priority:quick:)`` with `quick: true` loads it at visible priority while the full one waits its turn. The
/// handler gets the quick value and then the full one, never the reverse, and never another key's.
///
/// A binding belongs to the main actor, like the cell that holds it, and its handlers are `@MainActor`: a
/// `@MainActor` cell touches its own state in them directly. Results come through the loader's delivery queue
/// (`WorkQueue.main` by default); a test that injects another delivery queue must run that queue's items on
/// the main actor (a `ManualExecutor` pumped from a `@MainActor` test does) — the hand-over checks it.
///
/// ```swift
/// @MainActor final class ChartCell {
///     var chart: Chart?
///     lazy var content = loader.binding(placeholder: { [unowned self] _ in chart = nil }) { [unowned self] _, result in
///         chart = try? result.get()
///     }
/// }
/// cell.content.show("AAPL")        // will display
/// cell.content.clear()             // did end display
/// ```
@MainActor
public final class ContentBinding<Key: Hashable & Sendable, Value: Sendable> {
    /// Where the content comes from.
    public let loader: ContentLoader<Key, Value>
    /// Where a cheaper rendering of the same keys comes from (nil: no quick tier).
    public let quick: ContentLoader<Key, Value>?
    /// Whether the handler was last given the key's quick rendering (the full one is still on its way).
    public private(set) var isShowingQuick = false
    /// The key shown now, or nil when cleared.
    public private(set) var key: Key?
    /// Whether the result for ``key`` has been handed to the handler.
    public private(set) var isLoaded = false
    /// How urgent the binding's request is.
    public private(set) var priority: WorkPriority = .visible
    /// Results that reached the binding after it had moved on to another key (or was cleared), and were dropped.
    public private(set) var staleDropped = 0

    private let placeholder: @MainActor (Key) -> Void
    private let handler: @MainActor (Key, Result<Value, any Error>) -> Void
    private var request: ContentRequest<Key, Value>?
    private var quickRequest: ContentRequest<Key, Value>?
    private var generation: UInt64 = 0
    /// When a visible request without a quick rendering missed the cache (its wait goes into the loader's
    /// ``CostEstimate/recordWait(seconds:)`` when its content arrives); nil otherwise.
    private var waitingSince: ContinuousClock.Instant?
    /// What the binding hears while it waits for a key's result (an image binding's previews): called with the key
    /// as the binding starts loading it, it returns what stops that, called when the binding stops waiting.
    package var progress: (@MainActor (Key) -> (@MainActor () -> Void)?)?
    private var stopProgress: (@MainActor () -> Void)?

    /// Made by ``ContentLoader/binding(placeholder:handler:)`` (and the image pipeline's `ImageBinding`).
    package init(
        loader: ContentLoader<Key, Value>, quick: ContentLoader<Key, Value>? = nil,
        placeholder: @escaping @MainActor (Key) -> Void,
        handler: @escaping @MainActor (Key, Result<Value, any Error>) -> Void
    ) {
        self.loader = loader
        self.quick = quick
        self.placeholder = placeholder
        self.handler = handler
    }

    isolated deinit { withdraw() }

    /// Shows `key`: a cached result is handed over now; otherwise the placeholder runs (or a cached quick rendering
    /// is handed over instead) and the key is loaded at `priority`. With `quick` and a quick tier, the quick rendering
    /// is loaded too, at visible priority: for a row that cannot get its full content before it leaves the screen.
    /// Showing the key already shown only changes the priority (and may start the quick rendering). Returns whether
    /// the full result was handed over synchronously. A visible show without the quick rendering that misses the
    /// cache records its wait, to its result, into the loader's ``ContentLoader/costs`` (``CostEstimate/wait``).
    ///
    /// ```swift
    /// @MainActor func willDisplay(_ cell: ChartCell, row: Int) { cell.content.show(symbols[row]) }
    /// ```
    @discardableResult
    public func show(_ key: Key, priority: WorkPriority = .visible, quick wantsQuick: Bool = false) -> Bool {
        if self.key == key, isLoaded || request?.isPending == true {
            setPriority(priority)
            if wantsQuick { waitingSince = nil }
            if wantsQuick, !isLoaded { startQuick(key) }
            return isLoaded
        }
        clear()
        self.key = key
        self.priority = priority
        let generation = self.generation
        stopProgress = progress?(key) // before the request starts its work, so that no progress is missed
        // Weakly: a request on its way does not keep the binding (the cell) alive.
        let request = loader.submit(key, priority: priority, countingDelivery: false) { [weak self] result in
            // On the delivery queue (the main queue), or synchronously inside `show`: the main actor either way.
            MainActor.assumeIsolated { self?.receive(result, key: key, generation: generation) }
        }
        // The handler may have shown another key while receiving a cached result.
        guard generation == self.generation, !isLoaded else { return isLoaded }
        self.request = request
        if priority >= .visible, !wantsQuick { waitingSince = .now }
        if let value = quick?.cache[key] {
            isShowingQuick = true
            handler(key, .success(value))   // the quick rendering in hand: no empty cell
        } else {
            placeholder(key)
            if wantsQuick { startQuick(key) }
        }
        return false
    }

    /// Loads the quick rendering of `key` at visible priority, unless one is shown or on its way.
    private func startQuick(_ key: Key) {
        guard let quick, !isShowingQuick, quickRequest == nil else { return }
        let generation = self.generation
        let request = quick.submit(key, priority: .visible, countingDelivery: false) { [weak self] result in
            MainActor.assumeIsolated { self?.receiveQuick(result, key: key, generation: generation) }
        }
        if generation == self.generation, !isShowingQuick, !isLoaded { quickRequest = request } else { request.cancel() }
    }

    /// A quick rendering arrived: shown while the full content has not come (never after it, never another key's).
    private func receiveQuick(_ result: Result<Value, any Error>, key: Key, generation: UInt64) {
        quickRequest = nil
        guard generation == self.generation, self.key == key, !isLoaded, !isShowingQuick,
              case .success = result else { return }
        isShowingQuick = true
        handler(key, result)
    }

    /// Changes the priority of the binding's request (a row moving between visible and preloaded).
    ///
    /// ```swift
    /// cell.content.setPriority(.prefetch)
    /// ```
    public func setPriority(_ priority: WorkPriority) {
        if priority < .visible { waitingSince = nil }
        self.priority = priority
        request?.setPriority(priority)
    }

    /// Stops showing anything: withdraws the request (cancelling the work if nobody else wants it). Call it when the
    /// cell ends display or is about to be reused.
    ///
    /// ```swift
    /// @MainActor func didEndDisplay(_ cell: ChartCell) { cell.content.clear() }
    /// ```
    public func clear() {
        withdraw()
        key = nil
        isLoaded = false
        isShowingQuick = false
        waitingSince = nil
        generation &+= 1
    }

    /// Withdraws the request (the work is cancelled if nobody else wants it) and stops hearing its progress.
    private func withdraw() {
        request?.cancel()
        request = nil
        quickRequest?.cancel()
        quickRequest = nil
        stopProgress?()
        stopProgress = nil
    }

    /// A result arrived on the delivery queue (or synchronously from the cache).
    private func receive(_ result: Result<Value, any Error>, key: Key, generation: UInt64) {
        guard generation == self.generation else {
            // The binding moved on after the result was on its way: it is not this cell's any more.
            staleDropped += 1
            loader.counters.count(\.staleDropped)
            return
        }
        guard self.key == key else {
            // Cannot happen (the generation changes with the key); counted so a benchmark can prove it.
            loader.counters.count(\.wrongCellDeliveries)
            return
        }
        withdraw()
        if case .failure(let error) = result, error is CancellationError {
            // The work was cancelled behind the loader's back: back to the placeholder (a quick rendering shown
            // stays); the next show loads again.
            if !isShowingQuick { placeholder(key) }
            return
        }
        isLoaded = true
        isShowingQuick = false
        if let since = waitingSince {
            waitingSince = nil
            loader.costs.recordWait(seconds: Double((ContinuousClock.now - since).laneNanoseconds) / 1e9)
        }
        loader.counters.count(\.deliveries)
        handler(key, result)
    }
}

extension ContentLoader {
    /// Makes a binding to this loader (see ``ContentBinding``).
    /// - Parameters:
    ///   - quick: a loader of a cheaper rendering of the same keys (nil: none), shown while the full one loads when
    ///     it is cached or when the row asks for it (``ContentBinding/show(_:priority:quick:)``).
    ///   - placeholder: resets the cell when ``ContentBinding/show(_:priority:quick:)`` is given a key whose value is not
    ///     cached (show a spinner or nothing). It is required: a cell reused for another row must never keep showing
    ///     the old row's content while the new row's loads.
    ///   - handler: receives the key's result on the main actor: from the delivery queue, or synchronously inside
    ///     `show`.
    ///
    /// ```swift
    /// let content = loader.binding(placeholder: { _ in cell.chart = nil }) { symbol, result in
    ///     cell.chart = try? result.get()
    /// }
    /// content.show("AAPL")
    /// ```
    ///
    /// ```swift
    /// let sparklines = ContentLoader(queue: decoding, cache: CostLimitedCache<String, Chart>(costLimit: 1 << 20)) { _, _ in Chart() }
    /// let fast = loader.binding(quick: sparklines, placeholder: { _ in cell.chart = nil }) { _, result in
    ///     cell.chart = try? result.get()   // the sparkline first for a row scrolling fast, then the full chart
    /// }
    /// ```
    @MainActor
    public func binding(
        quick: ContentLoader<Key, Value>? = nil,
        placeholder: @escaping @MainActor (Key) -> Void,
        handler: @escaping @MainActor (Key, Result<Value, any Error>) -> Void
    ) -> ContentBinding<Key, Value> {
        ContentBinding(loader: self, quick: quick, placeholder: placeholder, handler: handler)
    }
}
