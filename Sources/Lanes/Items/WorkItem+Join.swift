// Typed joins: an item that consumes the outputs of two or three items (TaskGroup's "await both" as a graph edge).
// Each input is a typed edge with the single `consuming:` edge's ownership: the join owns its inputs.

extension WorkItem {
    /// Creates an item that consumes the outputs of `first` and `second` (a typed join). It starts once both have
    /// succeeded; by default it is cancelled if either fails or is cancelled (with `.skip` it finishes as failed
    /// without running).
    ///
    /// The join owns its inputs as a single typed edge does: cancelling it before they finish cancels each input
    /// that nothing else needs (no other dependent, no awaiting task, no ``keep()``).
    ///
    /// ```swift
    /// let prices = network.add(label: "prices") { _ in [101.5, 102.25, 99.75] }
    /// let events = network.add(label: "events") { _ in ["split", "dividend"] }
    /// let chart = WorkItem(consuming: prices, events, label: "chart") { prices, events, ctx in
    ///     "\(prices.count) prices, \(events.count) events"
    /// }
    /// try renders.enqueue(chart)
    /// ```
    public init<First: Sendable, Second: Sendable>(
        consuming first: WorkItem<First>, _ second: WorkItem<Second>, policy: InputPolicy = .cancel,
        label: String? = nil, priority: WorkPriority = .normal,
        _ body: @escaping @Sendable (First, Second, WorkContext) throws -> Output
    ) {
        let (a, b) = (first.node, second.node)
        self.init(consuming: a, b, policy: policy, label: label, priority: priority, body: .sync(TypedSyncBody {
            context in try body(try a.successValue(as: First.self), try b.successValue(as: Second.self), context)
        }))
    }

    /// Creates an item that consumes the outputs of three items, as the two-input join does.
    ///
    /// ```swift
    /// let header = io.add(label: "header") { _ in "AAPL" }
    /// let prices = io.add(label: "prices") { _ in [101.5, 102.25] }
    /// let news = io.add(label: "news") { _ in ["earnings"] }
    /// let page = WorkItem(consuming: header, prices, news) { header, prices, news, _ in
    ///     "\(header): \(prices.count) prices, \(news.count) stories"
    /// }
    /// try io.enqueue(page)
    /// ```
    public init<First: Sendable, Second: Sendable, Third: Sendable>(
        consuming first: WorkItem<First>, _ second: WorkItem<Second>, _ third: WorkItem<Third>,
        policy: InputPolicy = .cancel, label: String? = nil, priority: WorkPriority = .normal,
        _ body: @escaping @Sendable (First, Second, Third, WorkContext) throws -> Output
    ) {
        let (a, b, c) = (first.node, second.node, third.node)
        self.init(consuming: a, b, c, policy: policy, label: label, priority: priority, body: .sync(TypedSyncBody {
            context in
            try body(
                try a.successValue(as: First.self), try b.successValue(as: Second.self),
                try c.successValue(as: Third.self), context)
        }))
    }
}

extension WorkQueue {
    /// Adds an item that consumes the outputs of `first` and `second` (a typed join, across queues): it runs once
    /// both succeeded, and owns them as ``add(consuming:policy:label:priority:_:)-8jwr5`` owns its input.
    ///
    /// ```swift
    /// let prices = network.add(label: "prices") { _ in [101.5, 102.25, 99.75] }
    /// let events = network.add(label: "events") { _ in ["split"] }
    /// let chart = renders.add(consuming: prices, events, label: "chart") { prices, events, ctx in
    ///     try ctx.checkCancellation()
    ///     return "\(prices.count) prices, \(events.count) events"
    /// }
    /// chart.cancel()   // both inputs stop too, unless something else needs them
    /// ```
    @discardableResult
    public func add<First, Second, Output>(
        consuming first: WorkItem<First>, _ second: WorkItem<Second>, policy: InputPolicy = .cancel,
        label: String? = nil, priority: WorkPriority = .normal,
        _ body: @escaping @Sendable (First, Second, WorkContext) throws -> Output
    ) -> WorkItem<Output> {
        make(WorkItem(consuming: first, second, policy: policy, label: label, priority: priority, body))
    }

    /// Adds an item that consumes the outputs of three items, as the two-input join does.
    ///
    /// ```swift
    /// let header = io.add(label: "header") { _ in "AAPL" }
    /// let prices = io.add(label: "prices") { _ in [101.5, 102.25] }
    /// let news = io.add(label: "news") { _ in ["earnings"] }
    /// let page = io.add(consuming: header, prices, news) { header, prices, news, _ in
    ///     "\(header): \(prices.count) prices, \(news.count) stories"
    /// }
    /// ```
    @discardableResult
    public func add<First, Second, Third, Output>(
        consuming first: WorkItem<First>, _ second: WorkItem<Second>, _ third: WorkItem<Third>,
        policy: InputPolicy = .cancel, label: String? = nil, priority: WorkPriority = .normal,
        _ body: @escaping @Sendable (First, Second, Third, WorkContext) throws -> Output
    ) -> WorkItem<Output> {
        make(WorkItem(consuming: first, second, third, policy: policy, label: label, priority: priority, body))
    }
}
