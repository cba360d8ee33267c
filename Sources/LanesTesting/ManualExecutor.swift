import Lanes

/// An executor that runs nothing until a test says so: each ``runNext()`` runs exactly one item (the queue's
/// highest-priority ready item at that moment) on the calling thread.
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

    public init() {}

    public func schedule(_ runner: WorkRunner) {
        runners.withLock { $0.append(runner) }
    }

    /// How many runners the queues asked for and have not been served.
    public var pendingRunners: Int { runners.withLock { $0.count } }

    /// Runs one item; returns false when no queue asked for a runner.
    @discardableResult
    public func runNext() -> Bool {
        let runner = runners.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        guard let runner else { return false }
        runner.run(maxItems: 1)
        return true
    }

    /// Runs items until no queue asks for more (items added meanwhile run too). Returns how many runs happened.
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
