import Dispatch

/// Runs a queue's items on a dispatch queue, `batch` items per dispatch turn. `WorkQueue.main` uses the main
/// dispatch queue this way.
///
/// Each turn is submitted with the quality of service of the most urgent item ready when the queue asked for it
/// (`visible` → `.userInitiated`, `normal` → `.default`, `prefetch` and `utility` → `.utility`, `background` →
/// `.background`). On Darwin that sets the level a queue without a QoS of its own runs the turn at. On Linux
/// libdispatch runs a block at the level of the global queue it ends up on, whatever the block asks; use
/// ``global(batch:)`` there, which sends each turn to `DispatchQueue.global(qos:)` of that QoS (libdispatch runs
/// `.background` threads at nice 10 and `.utility` at nice 2).
///
/// ```swift
/// let ui = WorkQueue("ui", maxConcurrency: 1, executor: DispatchExecutor(queue: .main))
/// let crunch = WorkQueue("crunch", maxConcurrency: 4, executor: DispatchExecutor.global())
/// ```
public struct DispatchExecutor: WorkExecutor {
    let queue: DispatchQueue?
    let batch: Int

    /// - Parameters:
    ///   - queue: where items run.
    ///   - batch: how many items one dispatch turn may run before yielding to other work on that queue.
    public init(queue: DispatchQueue, batch: Int = 16) {
        self.queue = queue
        self.batch = max(1, batch)
    }

    private init(batch: Int) {
        self.queue = nil
        self.batch = max(1, batch)
    }

    /// Runs items on the dispatch global queue whose QoS matches the queue's most urgent ready item.
    ///
    /// ```swift
    /// let thumbnails = WorkQueue("thumbnails", maxConcurrency: 2, executor: DispatchExecutor.global())
    /// ```
    public static func global(batch: Int = 16) -> DispatchExecutor {
        DispatchExecutor(batch: batch)
    }

    public func schedule(_ runner: WorkRunner) {
        let batch = batch
        let qos = runner.priority.dispatchQoS
        if let queue {
            queue.async(qos: DispatchQoS(qosClass: qos, relativePriority: 0)) { runner.run(maxItems: batch) }
        } else {
            DispatchQueue.global(qos: qos).async { runner.run(maxItems: batch) }
        }
    }
}

extension WorkPriority {
    /// The dispatch quality of service that matches this priority.
    ///
    /// ```swift
    /// DispatchQueue.global(qos: WorkPriority.background.dispatchQoS).async { trimCaches() }
    /// ```
    public var dispatchQoS: DispatchQoS.QoSClass {
        switch self {
        case .visible: .userInitiated
        case .normal: .default
        case .prefetch, .utility: .utility
        case .background: .background
        }
    }
}
