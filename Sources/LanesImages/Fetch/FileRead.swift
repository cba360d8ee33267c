import Foundation
import Lanes
import LanesLists

/// One `file://` fetch: a read on the file queue at the fetch's priority, and the one completion. Also delivers a
/// refusal (unsupported scheme) the same way, so no completion ever runs inside `fetch`.
final class FileRead: FetchHandle {
    private struct State: Sendable {
        var completion: (@Sendable (Result<Data, FetchError>) -> Void)?
        var item: WorkItem<Void>?
    }

    private let url: URL
    private let maxBytes: Int
    private let state: LockedValue<State>
    /// The read's priority, passed on to its item.
    private let steering: WorkSteering

    init(url: URL, maxBytes: Int, priority: WorkPriority,
         completion: @escaping @Sendable (Result<Data, FetchError>) -> Void) {
        self.url = url
        self.maxBytes = maxBytes
        self.state = LockedValue(State(completion: completion))
        self.steering = WorkSteering(priority: priority)
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
        let priority = steering.priority
        let item = queue.add(label: label, priority: priority) { [self] ctx in
            let result = body(ctx)
            finish(result)
        }
        let stale = state.withLock { state -> Bool in
            guard state.completion != nil else { return true }
            state.item = item
            return false
        }
        if stale {
            item.cancel()
        } else {
            steering.install(WorkStep(item), order: 0, startedAt: priority)
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
        steering.setPriority(priority)
    }

    /// The queue priority of the pending read (nil once it completed): for tests.
    var itemPriority: WorkPriority? {
        state.withLock { $0.item }?.priority
    }
}
