import Lanes

/// One requester's claim on a key's content, returned by ``ContentLoader/request(_:priority:deliver:)``. Cancel it
/// when the content is no longer needed; the key's job is cancelled when its last requester cancels. Changing its
/// priority changes the job's priority if this request is the most urgent one.
///
/// ```swift
/// let request = loader.request(symbol, priority: .prefetch) { result in update(result) }
/// request.setPriority(.visible)   // the row scrolled into view
/// request.cancel()              // it scrolled away again
/// ```
public struct ContentRequest<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The key asked for.
    public let key: Key
    /// The request's consumer of the key's work item, in the loader's table (nil when answered from the cache): an
    /// item that consumes the job's item, never enqueued; the core does the rest.
    @usableFromInline let claim: Claim?
    @usableFromInline
    typealias Claim = (table: WorkTable<LoaderJob<Key>, Value>, job: LoaderJob<Key>, item: WorkItem<Value>)

    @usableFromInline init(key: Key, claim: Claim?) {
        self.key = key
        self.claim = claim
    }

    /// Whether the request was answered synchronously from the cache, before
    /// ``ContentLoader/request(_:priority:deliver:)`` returned.
    public var wasAnsweredFromCache: Bool { claim == nil }

    /// Whether the key's job is still in flight for this request (not finished, cancelled or invalidated).
    public var isPending: Bool { claim.map { $0.table.isActive($0.job, consumer: $0.item) } ?? false }

    /// Withdraws the request: its result will not be delivered. The key's job is cancelled if this was the last
    /// request for it. Does nothing once the result was delivered; safe to call more than once.
    ///
    /// ```swift
    /// request.cancel()
    /// ```
    public func cancel() { claim.map { $0.table.leave($0.job, consumer: $0.item) } }

    /// Changes how urgent this request is; the key's job runs at the highest priority of its requests.
    ///
    /// ```swift
    /// request.setPriority(.prefetch)   // scrolled just off screen
    /// ```
    public func setPriority(_ priority: WorkPriority) { claim?.item.priority = priority }

    /// How urgent this request is (its last ``setPriority(_:)``, or the one it was made at); nil when it was answered
    /// from the cache.
    ///
    /// ```swift
    /// if request.priority == .prefetch { request.setPriority(.visible) }
    /// ```
    public var priority: WorkPriority? { claim?.item.priority }
}
