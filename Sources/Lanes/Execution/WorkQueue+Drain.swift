import Synchronization
extension WorkQueue {
    /// The run loop: runs ready items until none is left (or `maxItems` ran). Each turn asks ``nextStep(_:)`` what
    /// to do and does it. A runner given a `linger` (the thread pool's) that finds the queue empty stays attached that
    /// many nanoseconds, watching for new work without the lock, before it detaches: a producer adding items one by
    /// one then hands them to a running thread instead of waking a parked one for each (a wake is a system call and a
    /// context switch, ten times the cost of an item). A runner given a `level` (the pool's) returns the first item
    /// whose priority maps to another level, unstarted, for the caller to hand to a thread of that level. A runner
    /// given `first` starts with that item.
    func drain(
        maxItems: Int, linger: UInt64 = 0, level: ThreadLevel? = nil, ceiling: ThreadLevel = .normal,
        first: WorkNode? = nil, pool: ThreadPoolExecutor? = nil, started: inout Int
    ) -> WorkNode? {
        var books = RunnerBooks(
            maxItems: maxItems, linger: linger, level: level, ceiling: ceiling, first: first, pool: pool)
        let outer = CurrentLane.queueID
        CurrentLane.queueID = id
        defer {
            CurrentLane.queueID = outer
            _ = publishRetiring(&books)
            releaseOwnRetiring(&books)
            releaseRetired()
        }
        while true {
            switch nextStep(&books) {
            case .run(let node):
                books.mayLinger = linger > 0
                books.lingerDeadline = nil
                books.count += 1
                guard let body = node.start() else {
                    // Cancelled between pop and start; accounted for as unrun. A batched item's slot is its batch's.
                    if books.batch == nil { updateRequestingRunners { $0.unrun(node, sync: node.isSync) } }
                    continue
                }
                started += 1
                books.finished = run(node, body, next: &books.next)
                if let done = books.finished { retire(done, into: &books) }
            case .linger(let breaks):
                if !awaitWork(&books, breaks: breaks) { books.mayLinger = false }
            case .handOff(let node):
                return node
            case .detach:
                recheckInbox()
                return nil
            }
        }
    }

    /// Runs a started item's body: a synchronous one here, returning the node for the runner to account for (and in
    /// `next` the one item of this queue its end made ready, if so: see ``RunnerBooks/next``); an `async` one as a
    /// task, a callback one until it calls back (each accounts for itself when it ends).
    private func run(_ node: WorkNode, _ body: consuming Body, next: inout WorkNode?) -> WorkNode? {
        WorkEvents.emit(.started, node: node, queue: self, state: .running)
        switch consume body {
        case .sync(let function):
            // The body is consumed by the call, so what it captured is released before the item completes.
            do {
                let value = try Self.run(consume function, WorkContext(node: node))
                next = node.completeOnRunner(success: value, runner: self)
            } catch {
                next = node.completeOnRunner(failure: error, runner: self)
            }
            return node
        case .async(let function):
            let context = WorkContext(node: node)
            let priority = node.effectivePriority
            // On Lanes' pool the body's jobs run on the pool's threads of the item's level.
            let preferred = executor.taskExecutor(priority: priority)
            let task = Task(executorPreference: preferred, priority: priority.taskPriority) {
                let result: Result<any Sendable, any Error>
                do { result = .success(try await function(context)) } catch { result = .failure(error) }
                if node.complete(result) { self.nodeFinished(node, ran: true) }
            }
            node.setTask(task)
            return nil
        case .callback(let function):
            function(WorkContext(node: node)) { result in
                if node.complete(result) { self.nodeFinished(node, ran: true) }
            }
            return nil
        }
    }

    /// Runs a synchronous body. It is passed owned, so it is dropped when this returns, before the item completes.
    static func run(_ function: consuming any SyncBody, _ context: WorkContext) throws -> any Sendable {
        try function.run(context)
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
