import Foundation
import Lanes

/// A fetcher that serves bodies held in memory, one per URL, the way a network would — in chunks, on a thread of its
/// own, cancellable, able to stall or fail — for tests, demos and benchmarks that need no sockets.
///
/// Each URL answers as its ``Response`` says (other URLs as `otherwise` says, by default HTTP 404). Before each chunk,
/// and once more before a fetch ends, it calls `pace` with the URL and the offset of what comes next: sleep there to
/// trickle like a slow link, or wait there for a test's gate. ``FetchHandle/cancel()`` ends the fetch at once with
/// ``FetchError/cancelled`` (a stalled one too) and no chunk follows it once `pace` returns. It records every fetch's
/// starting priority (``starts``) and follows priority changes (``priority(of:)``).
///
/// ```swift
/// let fetcher = MemoryFetcher([
///     URL(string: "https://example.com/a.png")!: .body(Data([0x89, 0x50, 0x4E, 0x47])),
///     URL(string: "https://example.com/slow.png")!: .stall(),
///     URL(string: "https://example.com/gone.png")!: .failure(.httpStatus(code: 410, url: "https://example.com/gone.png")),
/// ])
/// let pipeline = ImagePipeline(configuration: ImagePipelineConfiguration(fetcher: fetcher))
/// ```
public final class MemoryFetcher: DataFetching {
    /// How a URL answers: its body (in chunks of `chunkSize` bytes), then how the fetch ends.
    public struct Response: Sendable {
        /// How the fetch ends once the body has been handed out.
        public enum Ending: Sendable {
            /// Successfully.
            case complete
            /// With this error (a transfer that broke off after the body, or failed before any).
            case failure(FetchError)
            /// Never: it holds until cancelled (a server that stopped sending).
            case stall
        }

        /// The bytes handed out.
        public var body: Data
        /// The size of each chunk but the last (at least 1).
        public var chunkSize: Int
        /// What happens after the body.
        public var ending: Ending

        /// A whole body, in chunks of `chunkSize` bytes.
        ///
        /// ```swift
        /// let photo = MemoryFetcher.Response.body(jpeg, chunkSize: 16 << 10)
        /// ```
        public static func body(_ body: Data, chunkSize: Int = 64 << 10) -> Response {
            Response(body: Data(body), chunkSize: max(1, chunkSize), ending: .complete)
        }

        /// A failure, after handing out `sent` first (nothing by default).
        ///
        /// ```swift
        /// let cut = MemoryFetcher.Response.failure(.shortBody(url: "https://example.com/a.png", received: 10,
        ///                                                     expected: 50), after: Data(count: 10))
        /// ```
        public static func failure(_ error: FetchError, after sent: Data = Data()) -> Response {
            Response(body: Data(sent), chunkSize: max(1, sent.count), ending: .failure(error))
        }

        /// A fetch that hands out `sent` and then waits until it is cancelled.
        ///
        /// ```swift
        /// let hung = MemoryFetcher.Response.stall(after: Data(count: 100))
        /// ```
        public static func stall(after sent: Data = Data()) -> Response {
            Response(body: Data(sent), chunkSize: max(1, sent.count), ending: .stall)
        }
    }

    /// A fetch as it started.
    public struct Start: Sendable, Equatable {
        /// The URL fetched.
        public let url: URL
        /// The priority the fetch started at.
        public let priority: WorkPriority
    }

    private let responses: LockedValue<[URL: Response]>
    private let otherwise: Response?
    private let pace: @Sendable (_ url: URL, _ offset: Int) -> Void
    private let log = LockedValue<(starts: [Start], transfers: [URL: Transfer])>(([], [:]))

    /// A fetcher answering each URL of `responses` as given and any other as `otherwise` says (nil: HTTP 404),
    /// calling `pace` before each chunk with its offset and before the end with the body's length.
    ///
    /// ```swift
    /// // Every URL gets the same JPEG at about 6 MB/s: 64 KB chunks 10 ms apart.
    /// let network = MemoryFetcher(otherwise: .body(jpeg)) { _, offset in
    ///     if offset > 0 && offset < jpeg.count { Thread.sleep(forTimeInterval: 0.010) }
    /// }
    /// ```
    public init(
        _ responses: [URL: Response] = [:],
        otherwise: Response? = nil,
        pace: @escaping @Sendable (_ url: URL, _ offset: Int) -> Void = { _, _ in }
    ) {
        self.responses = LockedValue(responses)
        self.otherwise = otherwise
        self.pace = pace
    }

    /// Answers `url` with `response` from the next fetch on.
    ///
    /// ```swift
    /// let network = MemoryFetcher()
    /// network.serve(.body(Data(count: 10)), for: URL(string: "https://example.com/new.png")!)
    /// ```
    public func serve(_ response: Response, for url: URL) {
        responses.withLock { $0[url] = response }
    }

    /// Every fetch so far, in the order they started, with the priority each started at.
    public var starts: [Start] { log.withLock { $0.starts } }

    /// The priority of the latest fetch of `url` now (it follows ``FetchHandle/setPriority(_:)``), or nil when
    /// `url` was never fetched.
    public func priority(of url: URL) -> WorkPriority? {
        log.withLock { $0.transfers[url] }?.priority
    }

    /// Starts serving `url`: hands its whole body to `completion` at the end.
    public func fetch(
        _ url: URL, priority: WorkPriority, completion: @escaping @Sendable (Result<Data, FetchError>) -> Void
    ) -> any FetchHandle {
        let body = LockedValue(Data())
        return fetch(url, priority: priority, chunks: { chunk in body.withLock { $0.append(chunk) } }) { result in
            completion(result.map { body.withLock { $0 } })
        }
    }

    /// Starts serving `url` chunk by chunk on a thread of its own.
    public func fetch(
        _ url: URL, priority: WorkPriority, chunks: @escaping @Sendable (Data) -> Void,
        completion: @escaping @Sendable (Result<Void, FetchError>) -> Void
    ) -> any FetchHandle {
        let response = responses.withLock { $0[url] } ?? otherwise
            ?? .failure(.httpStatus(code: 404, url: url.absoluteString))
        let transfer = Transfer(priority: priority, completion: completion)
        log.withLock { log in
            log.starts.append(Start(url: url, priority: priority))
            log.transfers[url] = transfer
        }
        let pace = self.pace
        Thread {
            let body = response.body
            for start in stride(from: 0, to: body.count, by: response.chunkSize) {
                pace(url, start)
                guard transfer.isRunning else { return }
                chunks(body.subdata(in: start..<min(body.count, start + response.chunkSize)))
            }
            pace(url, body.count)
            switch response.ending {
            case .complete: transfer.end(.success(()))
            case .failure(let error): transfer.end(.failure(error))
            case .stall: transfer.waitUntilCancelled()
            }
        }.start()
        return transfer
    }
}

/// One fetch of a ``MemoryFetcher``: its completion, called once (by the end of the body or by a cancel), and its
/// priority. A lock-guarded state; the completion runs after the lock is released.
private final class Transfer: FetchHandle {
    private struct State: Sendable {
        var completion: (@Sendable (Result<Void, FetchError>) -> Void)?
        var priority: WorkPriority
    }

    private let state: ConditionGuarded<State>

    init(priority: WorkPriority, completion: @escaping @Sendable (Result<Void, FetchError>) -> Void) {
        state = ConditionGuarded(State(completion: completion, priority: priority))
    }

    var isRunning: Bool { state.withLock { $0.completion != nil } }
    var priority: WorkPriority { state.withLock { $0.priority } }

    func cancel() { end(.failure(.cancelled)) }

    func setPriority(_ priority: WorkPriority) { state.withLock { $0.priority = priority } }

    /// Ends the fetch with `result`, unless it has ended.
    func end(_ result: Result<Void, FetchError>) {
        let completion = state.withLock { state in
            defer { state.completion = nil }
            return state.completion
        }
        completion?(result)
    }

    /// Holds the serving thread until a cancel has ended the fetch.
    func waitUntilCancelled() {
        state.wait { state in state.completion == nil ? () : nil }
    }
}
