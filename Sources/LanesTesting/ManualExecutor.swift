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
