extension WorkItem {
    /// Calls `handler` with the item's result on the thread that finishes it (at once if it has finished), without
    /// hopping to a queue. For short bookkeeping inside Lanes' own modules (releasing a reservation, finishing a
    /// pipeline stage); user-facing completions go through ``onCompletion(on:_:)``.
    ///
    /// ```swift
    /// item.onFinishInline { _ in reservation.release() }
    /// ```
    package func onFinishInline(_ handler: @escaping @Sendable (Result<Output, any Error>) -> Void) {
        let label = node.label
        node.onFinish { outcome in handler(outcome.typed(Output.self, label: label)) }
    }
}
