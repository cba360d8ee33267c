import Foundation
import Lanes
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches `file://` URLs from disk and `http(s)://` URLs through URLSession, following a ``FetchPolicy``: timeouts,
/// retry with backoff for connection failures, timeouts and HTTP 5xx, a body size limit, live priority, and cancel
/// that stops the transfer and closes its connection.
///
/// ```swift
/// let fetcher = DataFetcher(policy: FetchPolicy(timeout: .seconds(15)))
/// let handle = fetcher.fetch(URL(string: "https://example.com/photo.jpg")!, priority: .visible) { result in
///     if case .success(let data) = result { decodeAndShow(data) }
/// }
/// // later, if the cell scrolls away:
/// handle.cancel()
/// ```
///
/// Completions run on the fetcher's delivery queue (HTTP answers and failures), on the policy clock's thread
/// (timeouts), on the file queue (files), or on the thread that calls ``FetchHandle/cancel()`` — never inside
/// ``fetch(_:priority:completion:)``. Keep them short: hand real work to a `WorkQueue`.
///
/// Each HTTP attempt is one `URLSessionDataTask`. ``FetchPolicy/timeout`` is enforced by the fetcher on the policy's
/// clock (URLSession's own request timeout is set to twice that, as a backstop); cancelling, timing out and
/// exceeding ``FetchPolicy/maxBytes`` cancel the task, which closes its connection.
public final class DataFetcher: DataFetching {
    /// The session configuration used when none is given: ephemeral, and no URL cache (the image pipeline has its own
    /// caches, so bodies are not stored twice).
    ///
    /// ```swift
    /// let configuration = DataFetcher.defaultConfiguration()
    /// configuration.httpMaximumConnectionsPerHost = 4
    /// let fetcher = DataFetcher(configuration: configuration)
    /// ```
    public static func defaultConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }

    /// The queue `file://` reads run on unless another is given: a few at a time, off the caller's thread.
    static let sharedFileQueue = WorkQueue("lanes.fetch.files", maxConcurrency: 4)

    /// The policy every fetch follows.
    ///
    /// ```swift
    /// print(fetcher.policy.retry.maxAttempts)
    /// ```
    public let policy: FetchPolicy
    private let session: SessionOwner
    private let fileQueue: WorkQueue

    /// Creates a fetcher.
    /// - Parameters:
    ///   - policy: timeouts, retries, the body size limit and the clock.
    ///   - configuration: the URLSession configuration (``defaultConfiguration()`` when nil).
    ///   - fileQueue: where `file://` reads run (a shared queue of four lanes when nil); a read is an item there at the
    ///     fetch's priority.
    ///
    /// ```swift
    /// let fetcher = DataFetcher(policy: FetchPolicy(retry: RetryPolicy(maxAttempts: 5)),
    ///                           fileQueue: WorkQueue("disk", maxConcurrency: 2))
    /// ```
    public convenience init(
        policy: FetchPolicy = FetchPolicy(), configuration: URLSessionConfiguration? = nil, fileQueue: WorkQueue? = nil
    ) {
        self.init(policy: policy, configuration: configuration, fileQueue: fileQueue, observer: nil)
    }

    /// Creates a fetcher that reports attempts, retries and the end of each task to `observer` (tests, tracing).
    package init(
        policy: FetchPolicy, configuration: URLSessionConfiguration?, fileQueue: WorkQueue?,
        observer: (@Sendable (FetchEvent) -> Void)?
    ) {
        self.policy = policy
        self.session = SessionOwner(
            policy: policy, configuration: configuration ?? Self.defaultConfiguration(), observer: observer)
        self.fileQueue = fileQueue ?? Self.sharedFileQueue
    }

    /// Starts fetching `url`; see ``DataFetching``.
    ///
    /// ```swift
    /// let handle = fetcher.fetch(URL(fileURLWithPath: "/tmp/cat.png"), priority: .normal) { result in print(result) }
    /// ```
    public func fetch(
        _ url: URL, priority: WorkPriority, completion: @escaping @Sendable (Result<Data, FetchError>) -> Void
    ) -> any FetchHandle {
        switch url.scheme?.lowercased() {
        case "http", "https":
            let transfer = HTTPTransfer(url: url, priority: priority, session: session, completion: completion)
            transfer.start()
            return transfer
        case "file":
            let read = FileRead(url: url, maxBytes: policy.maxBytes, priority: priority, completion: completion)
            read.start(on: fileQueue)
            return read
        case let scheme:
            let refusal = FileRead(url: url, maxBytes: 0, priority: priority, completion: completion)
            refusal.fail(.unsupportedScheme(scheme ?? ""), on: fileQueue)
            return refusal
        }
    }

    /// Starts fetching `url`, handing each chunk of an HTTP body to `chunks` as it arrives, never keeping it (see
    /// ``DataFetching``); a file is read whole and handed out as one chunk.
    ///
    /// ```swift
    /// let handle = fetcher.fetch(url, priority: .visible, chunks: { print("\($0.count) bytes") }) { print($0) }
    /// ```
    public func fetch(
        _ url: URL, priority: WorkPriority, chunks: @escaping @Sendable (Data) -> Void,
        completion: @escaping @Sendable (Result<Void, FetchError>) -> Void
    ) -> any FetchHandle {
        switch url.scheme?.lowercased() {
        case "http", "https":
            let transfer = HTTPTransfer(url: url, priority: priority, session: session, chunks: chunks) { result in
                completion(result.map { _ in () })
            }
            transfer.start()
            return transfer
        default:
            return fetch(url, priority: priority) { result in
                if case .success(let data) = result { chunks(data) }
                completion(result.map { _ in () })
            }
        }
    }

    /// Where `handle`'s priority has reached, for tests: the `URLSessionTask.priority` of an HTTP fetch's running
    /// attempt, and the queue priority of a file read not yet done (as `WorkPriority.sessionTaskPriority`).
    /// Nil between attempts and once the fetch is over.
    package static func appliedPriority(of handle: any FetchHandle) -> Float? {
        if let transfer = handle as? HTTPTransfer { return transfer.taskPriority }
        if let read = handle as? FileRead { return read.itemPriority?.sessionTaskPriority }
        return nil
    }
}

/// The URLSession of a ``DataFetcher`` and what its transfers share. Transfers keep it alive; when the last one and
/// the fetcher are gone it lets the session finish and invalidate (which releases the delegate).
final class SessionOwner: Sendable {
    let session: URLSession
    let router: SessionRouter
    let policy: FetchPolicy
    let observer: (@Sendable (FetchEvent) -> Void)?
    /// Where the effects of session callbacks run (cancels, retries, completions), one after another.
    let delivery = DispatchQueue(label: "lanes.fetch.delivery")

    init(policy: FetchPolicy, configuration: URLSessionConfiguration, observer: (@Sendable (FetchEvent) -> Void)?) {
        self.policy = policy
        self.observer = observer
        self.router = SessionRouter(observer: observer)
        #if canImport(FoundationNetworking)
        let delegateQueue: OperationQueue? = InlineDelegateQueue()
        #else
        let delegateQueue: OperationQueue? = nil
        #endif
        self.session = URLSession(configuration: configuration, delegate: router, delegateQueue: delegateQueue)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }
}
