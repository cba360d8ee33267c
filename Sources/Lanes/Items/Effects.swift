import Synchronization

/// Runs the effects that state transitions decided, outside every lock. Transitions that follow from an effect
/// (a dependent finishing because its dependency was cancelled, and so on) are appended to the same work list, so
/// a chain of any length is handled without recursion.
enum Effects {
    /// Most transitions decide nothing: that case is tested where the list is made, without a call.
    ///
    /// With `runner` (a runner of that queue finishing its item, see ``RunnerBooks/next``): when the effects make
    /// exactly one item of that queue ready, and the queue's inbox is empty or holds that item, the item is returned
    /// instead of listed, for the runner to list in its next decision (one acquisition of the queue lock per link of a
    /// chain, not two). Listing it there, before the inbox, keeps its place: anything then in the inbox was added
    /// after it was ready; an item still in the inbox is listed when the inbox is admitted, in its place.
    @inline(__always)
    @discardableResult
    static func run(_ initial: consuming [Effect], runner: WorkQueue? = nil) -> WorkNode? {
        if initial.isEmpty { return nil }
        return runAll(initial, runner: runner)
    }

    private static func runAll(_ initial: consuming [Effect], runner: WorkQueue?) -> WorkNode? {
        var list = consume initial
        var index = 0
        // Items made ready are handed to their queues in batches (one lock per queue, not per item): a gate with
        // 16,000 dependents releases them all in one critical section.
        // A cascade touches few queues: a short list found by identity beats hashing each node's queue.
        // The first one is kept apart (a chain frees one item at a time: no arrays for it).
        var single: (queue: WorkQueue, node: WorkNode)? = nil
        var ready: [(queue: WorkQueue, nodes: [WorkNode])] = []
        defer {
            if let single { single.queue.nodesBecameReady(CollectionOfOne(single.node)) }
            for batch in ready { batch.queue.nodesBecameReady(batch.nodes) }
        }
        while index < list.count {
            // Moved out (a payload-free placeholder takes its place): copying it would retain every reference it holds.
            var effect = Effect.taken
            swap(&effect, &list[index])
            index += 1
            switch consume effect {
            case .taken:
                break
            case .dependencyFinished(let dependent, let dependency, let success):
                dependent.dependencyFinished(dependency, success: success, into: &list)
            case .becameReady(let node, let queue):
                if single == nil, ready.isEmpty {
                    single = (queue, node)
                } else {
                    if let first = single.take() { ready.append((first.queue, [first.node])) }
                    if let at = ready.firstIndex(where: { $0.queue === queue }) {
                        ready[at].nodes.append(node)
                    } else {
                        ready.append((queue, [node]))
                    }
                }
            case .finishedUnrun(let node, let queue):
                queue.nodeFinished(node, ran: false)
            case .runHandlers(let handlers):
                for handler in handlers { handler() }
            case .resume(let continuations, let outcome):
                for continuation in continuations { continuation.resume(returning: outcome) }
            case .complete(let handlers, let outcome):
                for handler in handlers { handler(outcome) }
            case .cancelTask(let task):
                task.cancel()
            case .lend(let node, let from, let to):
                node.adjustLent(from: from, to: to, into: &list)
            case .dependentLeft(let node, let lent, let owns):
                node.dependentLeft(lent: lent, owns: owns, into: &list)
            case .reprioritize(let node, let queue):
                queue.reprioritize(node)
            case .relayPriority(let node):
                node.relayPriority()
            case .event(let kind, let node, let queue, let state):
                WorkEvents.emit(kind, node: node, queue: queue, state: state)
            }
            // Keep memory flat on long cascades.
            if index > 4096, index * 2 > list.count {
                list.removeFirst(index)
                index = 0
            }
        }
        // Only `single` is set when one item became ready (a second moves it into `ready`).
        guard let runner, let kept = single, kept.queue === runner,
            runner.inbox.isEmpty || kept.node.slot.waitingIndex.load(ordering: .relaxed) == QueueSlot.waitingInInbox
        else { return nil }
        single = nil
        return kept.node
    }
}
