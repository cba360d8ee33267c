import Lanes

/// An executor that runs nothing until a test says so: each ``runNext()`` runs exactly one item (the queue's
/// highest-priority ready item at that moment) on the calling thread.
///
/// Everything a queue on it does happens on the test's thread: bodies run inside ``runNext()`` and
/// ``runAll(limit:)``, and `WorkQueue.cancelAll()` finishes every cancelled item (resolves its handle, posts its
/// completions to their queues) before it returns, so the completions run at the next `runAll()` of their queue's
/// executor.
///
/// ```swift
/// let manual = ManualExecutor()
/// let queue = WorkQueue("test", maxConcurrency: 1, executor: manual)
/// let a = queue.add(label: "a") { _ in 1 }
/// #expect(a.state == .pending)
/// manual.runNext()
/// #expect(a.state == .succeeded)
/// ```
public final class ManualExecutor: WorkExecutor {
    private let runners = LockedValue<[WorkRunner]>([])

    /// An executor that runs nothing until the test calls ``runNext()`` or ``runAll(limit:)``.
    public init() {}

    public func schedule(_ runner: WorkRunner) {
        runners.withLock { $0.append(runner) }
    }

    /// Finishes a cancel-all's items at once, on the thread that called `cancelAll()`.
    public func finishCancelled(_ sweep: @escaping @Sendable () -> Void) {
        sweep()
    }

    /// How many runners the queues asked for and have not been served (a runner may find nothing left to run: its
    /// item was cancelled meanwhile).
    public var pendingRunners: Int { runners.withLock { $0.count } }

    /// Runs one item's body; returns false when no queue has an item to run. Runners that find nothing to run (their
    /// item was cancelled after the queue asked) are used up on the way and not counted.
    @discardableResult
    public func runNext() -> Bool {
        while let runner = runners.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            if runner.runCounting(maxItems: 1) > 0 { return true }
        }
        return false
    }

    /// Runs items until no queue has one to run (items added meanwhile run too), at most `limit` of them. Returns
    /// how many bodies ran.
    ///
    /// ```swift
    /// queue.add { _ in 1 }
    /// queue.add { _ in 2 }
    /// #expect(manual.runAll() == 2)
    /// ```
    @discardableResult
    public func runAll(limit: Int = 1_000_000) -> Int {
        var count = 0
        while count < limit, runNext() { count += 1 }
        return count
    }
}

extension ManualExecutor {
    /// Runs one item, like ``runNext()``, on a thread of LanesTesting's own and returns at once; the gate opens when
    /// the item returned. For an item that blocks (it waits on a ``Gate`` the test opens later): on a thread of
    /// `DispatchQueue.global()` it would hold one of Swift's global executor threads, which on Linux are the same.
    ///
    /// ```swift
    /// let started = Gate(), release = Gate()
    /// queue.add { _ in started.open(); release.wait() }
    /// let done = manual.runNextOnDedicatedThread()
    /// await started.wait()       // the item is running
    /// release.open()
    /// await done.wait()
    /// ```
    @discardableResult
    public func runNextOnDedicatedThread() -> Gate {
        let done = Gate()
        Task(executorPreference: TestThreads.executor) { [self] in   // starts on the pool
            runNext()
            done.open()
        }
        return done
    }
}
