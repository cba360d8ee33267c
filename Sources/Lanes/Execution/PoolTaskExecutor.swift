/// Runs Swift tasks' jobs on a Lanes pool's threads of one level: the task executor (SE-0417) behind `async` item
/// bodies, and what ``WorkQueue/taskExecutor(priority:)`` hands out.
final class PoolTaskExecutor: TaskExecutor {
    let pool: ThreadPoolExecutor
    let level: ThreadLevel

    init(pool: ThreadPoolExecutor, level: ThreadLevel) {
        self.pool = pool
        self.level = level
    }

    func enqueue(_ job: consuming ExecutorJob) {
        pool.submit(.job(UnownedJob(job), self), level: level)
    }
}

extension ThreadPoolExecutor {
    /// A task executor whose jobs run on this pool's threads at the level of `priority` (never nil).
    ///
    /// ```swift
    /// let pool = ThreadPoolExecutor(maxThreads: 8, idleTimeout: 5)
    /// let task = Task(executorPreference: pool.taskExecutor(priority: .background)) { await reindex() }
    /// ```
    public func taskExecutor(priority: WorkPriority) -> (any TaskExecutor)? {
        PoolTaskExecutor(pool: self, level: level(for: priority))
    }
}

extension WorkQueue {
    /// A task executor (SE-0417) that runs Swift tasks on this queue's threads at the operating-system level of
    /// `priority`, the way the queue runs its own `async` bodies; nil when the queue's executor has no threads of its
    /// own (a dispatch queue, a manual executor). It does not count against the queue's concurrency limit.
    ///
    /// ```swift
    /// let indexing = WorkQueue("indexing", maxConcurrency: 2)
    /// if let executor = indexing.taskExecutor(priority: .background) {
    ///     await withTaskExecutorPreference(executor) {
    ///         await rebuildIndex()   // runs on a Lanes thread at the background level
    ///     }
    /// }
    /// ```
    public func taskExecutor(priority: WorkPriority = .normal) -> (any TaskExecutor)? {
        executor.taskExecutor(priority: priority)
    }
}
