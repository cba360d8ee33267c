import Foundation
import Lanes
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLSession delegate of a ``DataFetcher``: hands each task's callbacks to the ``HTTPTransfer`` that started it.
/// A task is registered before it is resumed and forgotten when it completes, so callbacks of tasks nobody waits for
/// any more (cancelled, timed out, superseded by a retry) go nowhere.
final class SessionRouter: NSObject, URLSessionDataDelegate, Sendable {
    private let transfers = LockedValue<[Int: HTTPTransfer]>([:])
    private let observer: (@Sendable (FetchEvent) -> Void)?

    init(observer: (@Sendable (FetchEvent) -> Void)?) {
        self.observer = observer
    }

    /// Sends the callbacks of task `taskID` to `transfer` until the task completes.
    func register(_ transfer: HTTPTransfer, taskID: Int) {
        transfers.withLock { $0[taskID] = transfer }
    }

    private func transfer(for task: URLSessionTask) -> HTTPTransfer? {
        transfers.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let keep = transfer(for: dataTask)?.received(response, taskID: dataTask.taskIdentifier) ?? false
        // swift-corelibs-foundation ignores the disposition (the transfer cancels the task itself); Darwin honours it.
        completionHandler(keep ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfer(for: dataTask)?.received(data, taskID: dataTask.taskIdentifier)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let id = task.taskIdentifier
        let transfer = transfers.withLock { $0.removeValue(forKey: id) }
        transfer?.completed(taskID: id, error: error)
        if let transfer { observer?(.taskEnded(url: transfer.urlString, taskID: id)) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Checked before it is followed: never to a non-http(s) URL, never in a loop.
        guard let transfer = transfer(for: task) else { return completionHandler(nil) }
        // The Location as the server wrote it: swift-corelibs-foundation turns `file:///etc/passwd` into
        // `http://host/file:///etc/passwd` before asking.
        let location = response.value(forHTTPHeaderField: "Location").map { URL(string: $0, relativeTo: response.url) }
        transfer.redirecting(to: location.map { $0?.absoluteURL } ?? request.url, taskID: task.taskIdentifier) {
            completionHandler($0 ? request : nil)
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse,
        completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
        completionHandler(nil)  // the pipeline has its own caches
    }
}

/// What a ``DataFetcher`` reports to an observer (tests, tracing): attempts, retries, and tasks that ended.
package enum FetchEvent: Sendable, Equatable {
    /// Attempt `attempt` (from 1) of a fetch of `url` started.
    case attemptStarted(url: String, attempt: Int)
    /// Attempt `attempt` will start after `delay`, because the one before failed with `after`.
    case retryScheduled(url: String, attempt: Int, delay: Duration, after: FetchError)
    /// The response head of task `taskID` arrived (reported once the transfer has taken it in and armed its timer).
    case responseReceived(url: String, taskID: Int)
    /// URLSession reported the end of task `taskID` (after the fetch saw it; late for cancelled tasks).
    case taskEnded(url: String, taskID: Int)
}

#if canImport(FoundationNetworking)
/// The delegate queue of a ``DataFetcher``'s session on Linux: runs each delegate callback at once, on the thread that
/// hands it over — swift-corelibs-foundation's own thread, right after libcurl produced the bytes.
///
/// swift-corelibs-foundation hands every body chunk (after any `Content-Encoding` is undone) to the delegate queue
/// with `addOperation` and goes on reading: nothing slows it down. With an ordinary queue, a 1 MB gzip body that
/// inflates to 1 GB was inflated into queued chunks far faster than the delegate counted them, so the byte limit fired
/// only after 0.9 GB were held; a response refused by its `Content-Length` kept being read into the queue until its
/// cancel landed. Run inline, a chunk is counted (and dropped once the fetch is over) before libcurl reads on.
///
/// The callbacks only take the transfer's lock and update its state; anything that calls back into URLSession
/// (cancelling a task) or into the caller (completions) runs later on the session's delivery queue.
final class InlineDelegateQueue: OperationQueue, @unchecked Sendable {
    // @unchecked: no stored state of its own; OperationQueue's is behind its own locks.
    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        block()
    }
}
#endif
