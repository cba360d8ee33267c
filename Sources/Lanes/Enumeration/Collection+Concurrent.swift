/// Concurrent enumeration on Lanes' thread pool. The calling thread takes part in the work; small or cheap
/// enumerations run inline, so they cost what a plain loop does.
extension RandomAccessCollection where Self: Sendable {
    /// Calls `body` for every element, concurrently, and returns when all calls have returned. The body may ask
    /// for an early stop through its ``EnumerationStop``; elements not started by then are skipped.
    /// - Parameters:
    ///   - maxConcurrency: how many threads may run bodies at once, the caller included (default: one per core).
    ///   - priority: the priority of the helper items on the pool.
    ///   - context: the running item's context, when called from a work item: cancelling the item stops the
    ///     enumeration, which then throws `CancellationError`. Cancelling the calling Swift task does too.
    ///   - body: called once per element, from several threads at once.
    /// - Throws: the first error a body threw (the others stop), or `CancellationError`.
    ///
    /// ```swift
    /// queue.add(label: "thumbnails") { ctx in
    ///     try photos.concurrentForEach(context: ctx) { photo, stop in
    ///         if photo.isCorrupt { stop.stop() } else { try writeThumbnail(photo) }
    ///     }
    /// }
    /// ```
    ///
    /// From an `async` function, the `async` overload is chosen; it runs the loop on the pool without blocking.
    @inlinable
    public func concurrentForEach(
        maxConcurrency: Int? = nil, priority: WorkPriority = .normal, context: WorkContext? = nil,
        _ body: @escaping @Sendable (Element, EnumerationStop) throws -> Void
    ) throws {
        let stop = EnumerationStop()
        let outcome = ConcurrentEngine.run(
            count: count, maxConcurrency: maxConcurrency, priority: priority, context: context,
            label: context?.label ?? "concurrentForEach", stop: stop
        ) { range in
            let body = body
            return self.runChunk(range, while: { !stop.isStopped }) { element, _ in try body(element, stop) }
        }
        if let error = outcome.error { throw error }
    }

    /// Returns `transform` applied to every element, in the collection's order, computed concurrently.
    /// - Parameters:
    ///   - maxConcurrency: how many threads may run transforms at once, the caller included (default: one per
    ///     core).
    ///   - priority: the priority of the helper items on the pool.
    ///   - context: the running item's context, when called from a work item; cancelling it (or the calling
    ///     Swift task) throws `CancellationError`.
    ///   - transform: called once per element, from several threads at once.
    /// - Throws: the first error a transform threw (the others stop), or `CancellationError`.
    ///
    /// ```swift
    /// let thumbnails = try photos.concurrentMap { photo in try thumbnail(photo) }
    /// ```
    @inlinable
    public func concurrentMap<T: Sendable>(
        maxConcurrency: Int? = nil, priority: WorkPriority = .normal, context: WorkContext? = nil,
        _ transform: @escaping @Sendable (Element) throws -> T
    ) throws -> [T] {
        let total = count
        return try [T](unsafeUninitializedCapacity: total) { buffer, initialized in
            guard total > 0 else { return }
            let output = EnumerationOutput(buffer.baseAddress)
            let stop = EnumerationStop()
            let outcome = ConcurrentEngine.run(
                count: total, maxConcurrency: maxConcurrency, priority: priority, context: context,
                label: context?.label ?? "concurrentMap", stop: stop
            ) { range in
                // Chunks are short (about 50 µs), so errors and cancellation are checked between chunks only.
                let transform = transform
                let destination = output.base!
                return self.runChunk(range, while: { true }) { element, offset in
                    (destination + offset).initialize(to: try transform(element))
                }
            }
            if outcome.isComplete {
                initialized = total
                return
            }
            for range in outcome.finished { output.deinitialize(range) }
            initialized = 0
            throw outcome.error ?? CancellationError()
        }
    }
}

extension RandomAccessCollection {
    /// Calls `body` with each element of `range` (offsets from the start) and its offset, in order, while `proceed`
    /// holds: one chunk of a concurrent enumeration. Contiguous storage (arrays) gets a loop over a buffer the
    /// optimiser can keep in registers.
    @inlinable
    func runChunk(
        _ range: Range<Int>, while proceed: () -> Bool, _ body: (Element, Int) throws -> Void
    ) -> ChunkResult {
        var offset = range.lowerBound
        do {
            let contiguous: Void? = try withContiguousStorageIfAvailable { buffer in
                let base = buffer.baseAddress!
                while offset < range.upperBound, proceed() {
                    try body(base[offset], offset)
                    offset += 1
                }
            }
            if contiguous == nil {
                var index = self.index(startIndex, offsetBy: range.lowerBound)
                while offset < range.upperBound, proceed() {
                    try body(self[index], offset)
                    formIndex(after: &index)
                    offset += 1
                }
            }
            return ChunkResult(completed: offset - range.lowerBound, error: nil)
        } catch {
            return ChunkResult(completed: offset - range.lowerBound, error: error)
        }
    }
}

/// The output buffer of `concurrentMap`, written from several threads.
@usableFromInline
struct EnumerationOutput<T>: @unchecked Sendable {
    // @unchecked Sendable: every offset is written by exactly one chunk, on one thread; the caller reads the buffer
    // only after the run's last chunk has been counted (an acquiring-and-releasing atomic decrement followed by a
    // semaphore signal), which orders every write before the read.
    @usableFromInline let base: UnsafeMutablePointer<T>?

    @inlinable
    init(_ base: UnsafeMutablePointer<T>?) { self.base = base }

    @inlinable
    func deinitialize(_ range: Range<Int>) {
        guard let base, !range.isEmpty else { return }
        (base + range.lowerBound).deinitialize(count: range.count)
    }
}
