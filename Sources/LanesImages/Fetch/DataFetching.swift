import Foundation
import Lanes

/// Fetches the bytes at a URL. ``DataFetcher`` is the real one (`file://`, `http://`, `https://`); tests of code that
/// fetches can substitute their own.
///
/// Implementations call `completion` exactly once — also after ``FetchHandle/cancel()``, with
/// ``FetchError/cancelled`` — and never synchronously inside `fetch` itself.
///
/// ```swift
/// let fetcher: any DataFetching = DataFetcher()
/// let handle = fetcher.fetch(URL(string: "https://example.com/cat.png")!, priority: .visible) { result in
///     switch result {
///     case .success(let data): print("got \(data.count) bytes")
///     case .failure(let error): print(error)   // e.g. "https://example.com/cat.png: HTTP status 404 (not found)"
///     }
/// }
/// handle.setPriority(.prefetch)   // the cell scrolled out of view
/// ```
public protocol DataFetching: Sendable {
    /// Starts fetching `url` at `priority` and returns a handle to cancel it or change its priority.
    ///
    /// ```swift
    /// let handle = fetcher.fetch(url, priority: .normal) { result in print(result) }
    /// ```
    func fetch(
        _ url: URL, priority: WorkPriority,
        completion: @escaping @Sendable (Result<Data, FetchError>) -> Void
    ) -> any FetchHandle

    /// Starts fetching `url` like ``fetch(_:priority:completion:)`` but hands the body to `chunks` as it arrives, in
    /// order, instead of keeping it: `completion` then says only how the fetch ended. A fetch that has handed out
    /// chunks is not retried (its consumer cannot take the body again). Chunks may still arrive after a cancel's
    /// completion: ignore them then. The default implementation hands the whole body out as one chunk when it has
    /// arrived.
    ///
    /// ```swift
    /// let decoder = IncrementalDecoder()
    /// let handle = fetcher.fetch(url, priority: .visible, chunks: { chunk in print("\(chunk.count) more bytes") }) {
    ///     result in print(result)
    /// }
    /// ```
    func fetch(
        _ url: URL, priority: WorkPriority, chunks: @escaping @Sendable (Data) -> Void,
        completion: @escaping @Sendable (Result<Void, FetchError>) -> Void
    ) -> any FetchHandle
}

extension DataFetching {
    /// Hands the whole body out as one chunk once it has arrived (fetchers that cannot stream).
    ///
    /// ```swift
    /// let handle = fetcher.fetch(url, priority: .normal, chunks: { _ in }) { result in print(result) }
    /// ```
    public func fetch(
        _ url: URL, priority: WorkPriority, chunks: @escaping @Sendable (Data) -> Void,
        completion: @escaping @Sendable (Result<Void, FetchError>) -> Void
    ) -> any FetchHandle {
        fetch(url, priority: priority) { result in
            if case .success(let data) = result { chunks(data) }
            completion(result.map { _ in () })
        }
    }
}

/// A fetch under way: cancel it, or change its priority while it runs.
///
/// ```swift
/// let handle = fetcher.fetch(url, priority: .prefetch) { result in
///     if case .success(let data) = result { decodeAndShow(data) }
/// }
/// handle.setPriority(.visible)   // the row scrolled into view
/// handle.cancel()                // ...and out again: the transfer stops, the connection closes
/// ```
public protocol FetchHandle: Sendable {
    /// Cancels the transfer and closes its connection (or drops a pending retry). If the fetch had not completed yet,
    /// its completion is called with ``FetchError/cancelled`` before `cancel()` returns. Idempotent; a no-op after
    /// the fetch completed.
    ///
    /// ```swift
    /// handle.cancel()   // the completion has now run with .failure(.cancelled), unless it had run already
    /// ```
    func cancel()

    /// Changes the priority live. ``DataFetcher`` applies it to the running `URLSessionTask` (its `priority`,
    /// a hint the platform may ignore), to any later retry, and to the queue position of a file read.
    ///
    /// ```swift
    /// handle.setPriority(.visible)
    /// ```
    func setPriority(_ priority: WorkPriority)
}

extension WorkPriority {
    /// The `URLSessionTask.priority` (0...1) a fetch at this priority asks for.
    package var sessionTaskPriority: Float {
        switch self {
        case .background: 0.1
        case .utility: 0.25
        case .prefetch: 0.4
        case .normal: 0.5
        case .visible: 0.75
        }
    }
}
