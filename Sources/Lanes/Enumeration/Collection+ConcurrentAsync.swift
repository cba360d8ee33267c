extension RandomAccessCollection where Self: Sendable {
    /// The `async` form of ``concurrentForEach(maxConcurrency:priority:context:_:)``: the loop runs on Lanes' thread
    /// pool (a pool thread takes the caller's part), so no Swift concurrency thread blocks. Cancelling the awaiting
    /// task stops the enumeration, which then throws `CancellationError` (see ``WorkItem/value``).
    ///
    /// ```swift
    /// try await urls.concurrentForEach(maxConcurrency: 4) { url, _ in try prefetch(url) }
    /// ```
    @inlinable
    public func concurrentForEach(
        maxConcurrency: Int? = nil, priority: WorkPriority = .normal,
        _ body: @escaping @Sendable (Element, EnumerationStop) throws -> Void
    ) async throws {
        try await ConcurrentEngine.helpers.add(label: "concurrentForEach", priority: priority) { context in
            try self.concurrentForEach(maxConcurrency: maxConcurrency, priority: priority, context: context, body)
        }.value
    }

    /// The `async` form of ``concurrentMap(maxConcurrency:priority:context:_:)``: results in the collection's order,
    /// computed on Lanes' thread pool without blocking a Swift concurrency thread; cancelling the awaiting task
    /// throws `CancellationError`.
    ///
    /// ```swift
    /// let sizes = try await files.concurrentMap { try fileSize($0) }
    /// ```
    @inlinable
    public func concurrentMap<T: Sendable>(
        maxConcurrency: Int? = nil, priority: WorkPriority = .normal,
        _ transform: @escaping @Sendable (Element) throws -> T
    ) async throws -> [T] {
        try await ConcurrentEngine.helpers.add(label: "concurrentMap", priority: priority) { context in
            try self.concurrentMap(maxConcurrency: maxConcurrency, priority: priority, context: context, transform)
        }.value
    }
}
