import Foundation
import Lanes

/// One `file://` fetch: a read on the file queue at the fetch's priority, and the one completion. Also delivers a
/// refusal (unsupported scheme) the same way, so no completion ever runs inside `fetch`.
final class FileRead: FetchHandle {
    private struct State: Sendable {
        var completion: (@Sendable (Result<Data, FetchError>) -> Void)?
        var item: WorkItem<Void>?
        /// The priority asked for last, which the item follows.
        var priority: WorkPriority
    }

    private let url: URL
    private let maxBytes: Int
    private let state: LockedValue<State>

    init(url: URL, maxBytes: Int, priority: WorkPriority,
         completion: @escaping @Sendable (Result<Data, FetchError>) -> Void) {
        self.url = url
        self.maxBytes = maxBytes
        self.state = LockedValue(State(completion: completion, priority: priority))
    }

    /// Reads the file on `queue`.
    func start(on queue: WorkQueue) {
        let path = url.path
        let limit = maxBytes
        let label = url.absoluteString
        run(on: queue, label: "read \(path)") { ctx in
            FileReader.read(path: path, url: label, maxBytes: limit, isCancelled: { ctx.isCancelled })
        }
    }

    /// Fails with `error` from `queue`.
    func fail(_ error: FetchError, on queue: WorkQueue) {
        run(on: queue, label: "refuse \(url.absoluteString)") { _ in .failure(error) }
    }

    private func run(on queue: WorkQueue, label: String,
                     _ body: @escaping @Sendable (WorkContext) -> Result<Data, FetchError>) {
        let item = queue.add(label: label, priority: state.withLock { $0.priority }) { [self] ctx in
            let result = body(ctx)
            finish(result)
        }
        let (stale, priority) = state.withLock { state -> (Bool, WorkPriority) in
            guard state.completion != nil else { return (true, state.priority) }
            state.item = item
            return (false, state.priority)
        }
        if stale {
            item.cancel()
        } else {
            item.priority = priority   // a change made meanwhile
        }
    }

    private func finish(_ result: Result<Data, FetchError>) {
        let completion = state.withLock { state in
            defer { state.completion = nil; state.item = nil }
            return state.completion
        }
        completion?(result)
    }

    func cancel() {
        let (completion, item) = state.withLock { state in
            defer { state.completion = nil; state.item = nil }
            return (state.completion, state.item)
        }
        item?.cancel()
        completion?(.failure(.cancelled))
    }

    func setPriority(_ priority: WorkPriority) {
        let item = state.withLock { state in
            state.priority = priority
            return state.item
        }
        item?.priority = priority
    }

    /// The queue priority of the pending read (nil once it completed): for tests.
    var itemPriority: WorkPriority? {
        state.withLock { $0.item }?.priority
    }
}
