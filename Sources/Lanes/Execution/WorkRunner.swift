import Synchronization

/// A request from a queue to run its items. An executor receives one per wanted thread of work and must call
/// ``run(maxItems:)`` exactly once, on whatever thread it chooses.
///
/// ```swift
/// struct InlineExecutor: WorkExecutor {
///     func schedule(_ runner: WorkRunner) { runner.run() }
/// }
/// ```
public struct WorkRunner: Sendable {
    let queue: WorkQueue

    /// The queue that asked.
    public var queueName: String { queue.name }

    /// Runs ready items one after another, up to `maxItems`, then returns. If work remains, the queue asks its
    /// executor for another runner.
    public func run(maxItems: Int = .max) {
        queue.drain(maxItems: maxItems)
    }
}

/// Where a queue's items run. Lanes' thread pool is the default; `DispatchExecutor` runs on a dispatch queue (the
/// main queue for UI work); LanesTesting's `ManualExecutor` runs items only when a test says so.
public protocol WorkExecutor: Sendable {
    /// Arranges for `runner.run(maxItems:)` to be called once, later or now.
    func schedule(_ runner: WorkRunner)
}

/// The lane the current thread is running an item for, so blocking waits on it can be refused.
enum CurrentLane {
    private static let key = ThreadLocalKey()

    static var queueID: UInt64? {
        get { key.value }
        set { key.value = newValue }
    }

    static func isRunning(on queue: WorkQueue) -> Bool { key.value == queue.id }
}

extension WorkQueue {
    func drain(maxItems: Int) {
        var finished: WorkNode?
        var count = 0
        let outer = CurrentLane.queueID
        CurrentLane.queueID = id
        defer { CurrentLane.queueID = outer }
        while true {
            var action = QueueAction()
            let done = finished.take()
            let next: WorkNode? = locked { state in
                if let done {
                    state.finished(done, ran: true, sync: true)
                    state.collectIdle(into: &action)
                }
                var node: WorkNode?
                if count < maxItems { node = state.pop() }
                if node == nil {
                    state.workers -= 1
                    state.requestRunners(into: &action)
                }
                return node
            }
            perform(action)
            guard let node = next else {
                recheckInbox()
                return
            }
            count += 1
            guard let body = node.start() else {
                // Cancelled between pop and start; it was accounted for as unrun.
                update { state, action in
                    state.unrun(node, sync: node.isSync)
                    state.requestRunners(into: &action)
                }
                continue
            }
            WorkEvents.emit(.started, node: node, queue: name, state: .running)
            switch consume body {
            case .sync(let function):
                // The body is consumed by the call, so what it captured is released before the item completes.
                node.complete(Self.run(consume function, WorkContext(node: node, queue: self)))
                finished = consume node
            case .async(let function):
                let context = WorkContext(node: node, queue: self)
                let task = Task(priority: node.effectivePriority.taskPriority) {
                    let result: Result<any Sendable, any Error>
                    do { result = .success(try await function(context)) } catch { result = .failure(error) }
                    if node.complete(result) { self.nodeFinished(node, ran: true) }
                }
                node.setTask(task)
            case .callback(let function):
                function(WorkContext(node: node, queue: self)) { result in
                    if node.complete(result) { self.nodeFinished(node, ran: true) }
                }
            }
        }
    }
}

extension WorkQueue {
    /// Runs a synchronous body. It is passed owned, so it is dropped when this returns, before the item completes.
    static func run(_ function: consuming any SyncBody, _ context: WorkContext) -> Result<any Sendable, any Error> {
        do { return .success(try function.run(context)) } catch { return .failure(error) }
    }
}

extension WorkPriority {
    var taskPriority: TaskPriority {
        switch self {
        case .background: .background
        case .utility: .utility
        case .prefetch: .low
        case .normal: .medium
        case .visible: .userInitiated
        }
    }
}
