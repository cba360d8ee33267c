extension WorkQueue {
    /// Adds a body that is tried again after a delay when it fails, following `policy` (exponential backoff with
    /// jitter). The returned item succeeds with the first attempt that succeeds, or fails with the last attempt's
    /// error. `attempt` counts from 1.
    ///
    /// ```swift
    /// let feed = network.addRetrying(label: "GET /feed", policy: RetryPolicy(maxAttempts: 4)) { attempt, ctx in
    ///     try fetchFeed(ctx)
    /// }
    /// feed.onMainCompletion { result in showFeed(result) }   // showFeed is @MainActor
    /// ```
    ///
    /// Each attempt is its own item on this queue (labelled "label #n"), so waiting between attempts holds no
    /// concurrency slot. Cancelling the returned item cancels the running attempt and stops the retries; so does
    /// an attempt being cancelled by ``cancelAll()``. The returned item itself lives outside this queue, so
    /// ``idle()`` does not wait for a retry that is only scheduled.
    @discardableResult
    public func addRetrying<Output: Sendable>(
        label: String? = nil, priority: WorkPriority = .normal, policy: RetryPolicy = RetryPolicy(),
        clock: any LaneClock = SystemLaneClock(), _ body: @escaping @Sendable (_ attempt: Int, WorkContext) throws -> Output
    ) -> WorkItem<Output> {
        addRetrying(label: label, priority: priority, policy: policy, clock: clock) { attempt, label, priority in
            WorkItem(label: label, priority: priority) { ctx in try body(attempt, ctx) }
        }
    }

    /// The `async` form of ``addRetrying(label:priority:policy:clock:_:)-5jjq2``.
    ///
    /// ```swift
    /// let user = api.addRetrying(label: "GET /me") { attempt, ctx in try await client.me() }
    /// ```
    @discardableResult
    public func addRetrying<Output: Sendable>(
        label: String? = nil, priority: WorkPriority = .normal, policy: RetryPolicy = RetryPolicy(),
        clock: any LaneClock = SystemLaneClock(),
        _ body: @escaping @Sendable (_ attempt: Int, WorkContext) async throws -> Output
    ) -> WorkItem<Output> {
        addRetrying(label: label, priority: priority, policy: policy, clock: clock) { attempt, label, priority in
            WorkItem(label: label, priority: priority) { ctx in try await body(attempt, ctx) }
        }
    }

    private func addRetrying<Output: Sendable>(
        label: String?, priority: WorkPriority, policy: RetryPolicy, clock: any LaneClock,
        makeAttempt: @escaping @Sendable (_ number: Int, _ label: String, WorkPriority) -> WorkItem<Output>
    ) -> WorkItem<Output> {
        let retry = RetryRun<Output>(queue: self, policy: policy, clock: clock, makeAttempt: makeAttempt)
        let outer = WorkItem<Output>(label: label, priority: priority, callback: { ctx, finish in
            retry.start(context: ctx, finish: finish)
        })
        // The outer item lives on a lane of its own whose body runs inline, so the first attempt is on this queue
        // before `addRetrying` returns, and the outer item never waits for (or holds) a slot here.
        let lane = WorkQueue("lanes.retry", maxConcurrency: 1, executor: InlineExecutor())
        try? lane.enqueue(outer)  // a fresh item cannot be enqueued already
        return outer
    }
}

/// Runs a queue's items at once on the thread that schedules them.
struct InlineExecutor: WorkExecutor {
    func schedule(_ runner: WorkRunner) { runner.run() }
}

/// The state machine behind one retrying item: which attempt runs, the scheduled retry, and whether it is over.
final class RetryRun<Output: Sendable>: Sendable {
    typealias Finish = @Sendable (Result<Output, any Error>) -> Void

    private struct State: Sendable {
        var context: WorkContext?
        var finish: Finish?
        var attempt: WorkNode?
        var retry: ScheduledToken?
        var done = false
    }

    private let queue: WorkQueue
    private let policy: RetryPolicy
    private let clock: any LaneClock
    private let makeAttempt: @Sendable (Int, String, WorkPriority) -> WorkItem<Output>
    private let state = LockedValue(State())

    init(
        queue: WorkQueue, policy: RetryPolicy, clock: any LaneClock,
        makeAttempt: @escaping @Sendable (Int, String, WorkPriority) -> WorkItem<Output>
    ) {
        self.queue = queue
        self.policy = policy
        self.clock = clock
        self.makeAttempt = makeAttempt
    }

    func start(context: WorkContext, finish: @escaping Finish) {
        state.withLock { state in
            state.context = context
            state.finish = finish
        }
        context.onCancel { [self] in end(.failure(CancellationError())) }
        launch(1)
    }

    private func launch(_ number: Int) {
        guard let context = state.withLock({ $0.done ? nil : $0.context }) else { return }
        // Attempts follow the outer item's priority as it is now (a cell may have scrolled into view).
        let attempt = makeAttempt(number, "\(context.label) #\(number)", context.priority)
        let proceed = state.withLock { state -> Bool in
            guard !state.done else { return false }
            state.attempt = attempt.node
            state.retry = nil
            return true
        }
        guard proceed else { return }
        if let limit = policy.attemptTimeout { attempt.timeout(after: limit, clock: clock) }
        attempt.onFinishInline { [self] result in attemptFinished(number, result) }
        try? queue.enqueue(attempt)  // a fresh item cannot be enqueued already
    }

    private func attemptFinished(_ number: Int, _ result: Result<Output, any Error>) {
        if case .failure(let error) = result, error is CancellationError {
            // Someone cancelled the attempt (`cancelAll()` on its queue): the whole item is cancelled.
            state.withLock { $0.context }?.node.cancel()
            return
        }
        guard case .failure(let error) = result, policy.retries(after: error, attempt: number) else {
            end(result)
            return
        }
        let wait = policy.delay(afterAttempt: number)
        let token = clock.schedule(at: clock.deadline(after: wait), leeway: 0) { [self] in launch(number + 1) }
        let keep = state.withLock { state -> Bool in
            guard !state.done else { return false }
            state.attempt = nil
            state.retry = token
            return true
        }
        if !keep { token.cancel() }
    }

    /// Ends the run once: cancels the running attempt or the scheduled retry and reports `result`.
    private func end(_ result: Result<Output, any Error>) {
        let (finish, attempt, retry) = state.withLock { state -> (Finish?, WorkNode?, ScheduledToken?) in
            guard !state.done else { return (nil, nil, nil) }
            state.done = true
            defer { state = State(done: true) }
            return (state.finish, state.attempt, state.retry)
        }
        retry?.cancel()
        attempt?.cancel()
        finish?(result)
    }
}
