import Foundation
import Lanes
import LanesImages
import LanesTesting
import Testing

/// A fetcher the test drives: it records every fetch, answers from a table, and completes at once or when told.
final class ScriptedFetcher: DataFetching {
    final class Handle: FetchHandle {
        let url: URL
        private let state: LockedValue<HandleState>

        struct HandleState: Sendable {
            var completion: (@Sendable (Result<Data, FetchError>) -> Void)?
            var cancelled = false
            var priorities: [WorkPriority]
        }

        init(url: URL, priority: WorkPriority, completion: @escaping @Sendable (Result<Data, FetchError>) -> Void) {
            self.url = url
            state = LockedValue(HandleState(completion: completion, priorities: [priority]))
        }

        func cancel() {
            let completion = state.withLock { state -> (@Sendable (Result<Data, FetchError>) -> Void)? in
                state.cancelled = true
                defer { state.completion = nil }
                return state.completion
            }
            completion?(.failure(.cancelled))
        }

        func setPriority(_ priority: WorkPriority) {
            state.withLock { $0.priorities.append(priority) }
        }

        /// Completes the transfer (nothing happens if it was cancelled or completed).
        func complete(_ result: Result<Data, FetchError>) {
            let completion = state.withLock { state -> (@Sendable (Result<Data, FetchError>) -> Void)? in
                defer { state.completion = nil }
                return state.completion
            }
            completion?(result)
        }

        var isCancelled: Bool { state.withLock { $0.cancelled } }
        var priorities: [WorkPriority] { state.withLock { $0.priorities } }
    }

    private let responses: [String: Result<Data, FetchError>]
    private let holds: Bool
    private let calls = LockedValue([Handle]())

    /// Answers `responses` by URL string (a missing URL gets HTTP 404). With `holds`, transfers wait for
    /// ``completeAll()``.
    init(_ responses: [String: Result<Data, FetchError>], holds: Bool = false) {
        self.responses = responses
        self.holds = holds
    }

    func fetch(
        _ url: URL, priority: WorkPriority, completion: @escaping @Sendable (Result<Data, FetchError>) -> Void
    ) -> any FetchHandle {
        let handle = Handle(url: url, priority: priority, completion: completion)
        calls.withLock { $0.append(handle) }
        if !holds { handle.complete(answer(for: url)) }
        return handle
    }

    func answer(for url: URL) -> Result<Data, FetchError> {
        responses[url.absoluteString] ?? .failure(.httpStatus(code: 404, url: url.absoluteString))
    }

    /// Completes every held transfer with its answer.
    func completeAll() {
        for handle in handles { handle.complete(answer(for: handle.url)) }
    }

    var handles: [Handle] { calls.withLock { $0 } }
    var fetchCount: Int { calls.withLock { $0.count } }
}

/// A pipeline on a manual executor: nothing runs until the test says so.
func manualPipeline(
    fetcher: ScriptedFetcher, budget: Int = 0, diskCache: DiskCache? = nil, inBands: Bool = true
) -> (ImagePipeline, ManualExecutor) {
    let executor = ManualExecutor()
    var configuration = ImagePipelineConfiguration(
        fetcher: fetcher, diskCache: diskCache, decodedBytesLimit: budget, fetchConcurrency: 4,
        decodeConcurrency: 2, processConcurrency: 2, executor: executor)
    configuration.processesInBands = inBands
    return (ImagePipeline(configuration: configuration), executor)
}

/// Collects results delivered from any thread.
final class ResultBox: Sendable {
    private let results = LockedValue([Result<Bitmap, any Error>]())

    func append(_ result: Result<Bitmap, any Error>) { results.withLock { $0.append(result) } }
    var all: [Result<Bitmap, any Error>] { results.withLock { $0 } }
    var successes: [Bitmap] { all.compactMap { try? $0.get() } }
    var errors: [any Error] {
        all.compactMap { if case .failure(let error) = $0 { error } else { nil } }
    }
}

let photoURL = URL(string: "https://images.test/chelsea.png")!
let otherURL = URL(string: "https://images.test/camera.png")!
let jpegURL = URL(string: "https://images.test/rocket.jpg")!
