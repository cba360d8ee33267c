import Lanes

/// One requester's claim on a key's content, returned by ``ContentLoader/request(_:priority:deliver:)``. Cancel it
/// when the content is no longer needed; the key's item is cancelled when its last requester cancels. Changing its
/// priority changes the item's priority if this request is the most urgent one.
///
/// ```swift
/// let request = loader.request(symbol, priority: .prefetch) { result in update(result) }
/// request.setPriority(.visible)   // the row scrolled into view
/// request.cancel()              // it scrolled away again
/// ```
public struct ContentRequest<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// nil when the request was answered synchronously from the cache.
    private let loader: ContentLoader<Key, Value>?
    private let entry: UInt64
    private let requester: UInt64

    /// The key asked for.
    public let key: Key

    init(loader: ContentLoader<Key, Value>?, key: Key, entry: UInt64, requester: UInt64) {
        self.loader = loader
        self.key = key
        self.entry = entry
        self.requester = requester
    }

    /// Whether the request was answered synchronously from the cache, before ``ContentLoader/request(_:priority:deliver:)``
    /// returned.
    public var wasAnsweredFromCache: Bool { loader == nil }

    /// Whether the key's item is still in flight for this request (not finished, cancelled or invalidated).
    public var isPending: Bool { loader?.isPending(key, entry: entry) ?? false }

    /// Withdraws the request: its result will not be delivered. The key's item is cancelled if this was the last
    /// request for it. Does nothing once the result was delivered; safe to call more than once.
    ///
    /// ```swift
    /// request.cancel()
    /// ```
    public func cancel() {
        loader?.cancel(key, entry: entry, requester: requester)
    }

    /// Changes how urgent this request is; the key's item runs at the highest priority of its requests.
    ///
    /// ```swift
    /// request.setPriority(.prefetch)   // scrolled just off screen
    /// ```
    public func setPriority(_ priority: WorkPriority) {
        loader?.setPriority(priority, key: key, entry: entry, requester: requester)
    }
}
