import Foundation
import Lanes

/// One work item per key in flight, shared by everyone who asks for the key: the coalescing behind ``ContentLoader``
/// and the image pipeline's stages. The rest is the core's. Each consumer is an item that consumes the key's item
/// (`WorkItem(consuming:)`, never enqueued): it lends the key's item its priority, and when the last consumer is
/// cancelled the key's item — and what it consumes — is cancelled, unless something else needs it or it was kept.
/// The table learns how the key's item ended from the item itself, however it ended (a cancel from outside
/// included), and hands the result to every consumer still present: nobody waits for work that no longer runs.
@usableFromInline package final class WorkTable<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    package typealias Deliver = @Sendable (Result<Value, any Error>) -> Void

    /// What happened to a key's item, for owners that count or cache.
    package enum Event: Sendable {
        /// The item ended with `result` (told on the delivery queue, if any). `current` is false when ``cancelAll()``
        /// ran since the item was made; `delivered` is false when the table no longer waited for it.
        case finished(Key, Result<Value, any Error>, current: Bool, delivered: Bool)
        /// The table stopped waiting for the key's item: its last consumer left, or ``cancelAll()`` ran.
        case withdrawn(Key)
    }

    private struct Consumer: Sendable {
        let item: WorkItem<Value>
        /// nil for consumers that only want the work done (a prefetch).
        let deliver: Deliver?
    }

    private struct Entry: Sendable {
        let item: WorkItem<Value>
        let epoch: UInt64
        /// In arrival order, so results are delivered in that order.
        var consumers: [Consumer] = []
    }

    private struct State: Sendable {
        var entries: [Key: Entry] = [:]
        /// How many times everything was cancelled: an item made in an older epoch was swept away.
        var epoch: UInt64 = 0
    }

    /// Where results are delivered (nil: on the thread that finished the item).
    package let deliveryQueue: WorkQueue?
    private let label: String
    private let state = LockedValue(State())
    private let observe: @Sendable (Event) -> Void
    /// Held while a key's item is made, so two first requests for a key cannot both make one: `make` enqueues (a
    /// fetch starts its transfer at once), and the loser's chain would run before it was cancelled. Recursive because
    /// a stage's `make` asks the same table for its upstream stage; tables are only ever nested one way (a loader's
    /// table, then the pipeline's bitmaps, then its fetches), so the order is fixed. It is held across `make` only
    /// (the owner's code, which builds items and returns), never across a result or a consumer's code, and never
    /// taken where the fast path finds the key in flight.
    private let making = NSRecursiveLock()

    package init(
        label: String = "shared work", deliveryQueue: WorkQueue? = nil,
        observe: @escaping @Sendable (Event) -> Void = { _ in }
    ) {
        self.label = label
        self.deliveryQueue = deliveryQueue
        self.observe = observe
    }

    /// The item in flight for `key`, or the one `make` returns (called outside the state lock, one maker at a time),
    /// and whether this call made it. An item cancelled while it runs is not joined: a new one is made, and the
    /// consumers of the old one receive the cancellation at once.
    package func item(for key: Key, make: (Key) -> WorkItem<Value>) -> (item: WorkItem<Value>, made: Bool) {
        if let item = state.withLock({ $0.entries[key]?.item }), !item.isCancelled { return (item, false) }
        making.lock()
        if let item = state.withLock({ $0.entries[key]?.item }), !item.isCancelled {
            making.unlock()
            return (item, false)
        }
        let made = make(key)
        let (replaced, epoch) = state.withLock { state -> (Entry?, UInt64) in
            defer { state.entries[key] = Entry(item: made, epoch: state.epoch) }
            return (state.entries[key], state.epoch)
        }
        making.unlock()
        if let replaced {
            hop { self.end(key, replaced.epoch, consumers: replaced.consumers, with: .failure(CancellationError())) }
        }
        made.onFinishInline { result in self.finished(key, made, epoch: epoch, with: result) }
        return (made, true)
    }

    /// Adds a consumer of the key's item at `priority`, making the item when none is in flight, and returns it: an
    /// item that consumes the key's item, never enqueued (its priority is lent to the key's item; `leave(_:consumer:)`
    /// withdraws it). `deliver` gets the item's result once, unless the consumer left first; nil only keeps the work
    /// going (a prefetch).
    package func consume(
        _ key: Key, priority: WorkPriority, deliver: Deliver?, make: (Key) -> WorkItem<Value>
    ) -> (consumer: WorkItem<Value>, made: Bool) {
        // Wired before anything made for it starts: a fetch begins at this consumer's priority (``Wiring``).
        let wired: Wired = Wiring.wire { wire(key, priority: priority, deliver: deliver, make: make) }
        // The item ended and its consumers were answered in between: this one is answered alone.
        if !wired.joined, let deliver { wired.item.onFinishInline { result in self.hop { deliver(result) } } }
        return (wired.consumer, wired.made)
    }

    private struct Wired {
        let item: WorkItem<Value>
        let made: Bool
        let consumer: WorkItem<Value>
        /// False when the item ended and its consumers were answered before this one joined.
        let joined: Bool
    }

    private func wire(
        _ key: Key, priority: WorkPriority, deliver: Deliver?, make: (Key) -> WorkItem<Value>
    ) -> Wired {
        let (item, made) = item(for: key, make: make)
        let consumer = WorkItem(consuming: item, label: label, priority: priority) { value, _ in value }
        let joined = state.withLock { state -> Bool in
            guard state.entries[key]?.item == item else { return false }
            state.entries[key]!.consumers.append(Consumer(item: consumer, deliver: deliver))
            return true
        }
        return Wired(item: item, made: made, consumer: consumer, joined: joined)
    }

    /// Withdraws every consumer, atomically with respect to the delivery queue: once this returns no consumer that
    /// was present receives anything, and results still on their way are reported as out of date.
    package func cancelAll() {
        let entries = state.withLock { state in
            state.epoch &+= 1
            defer { state.entries.removeAll() }
            return state.entries
        }
        for (key, entry) in entries {
            for consumer in entry.consumers { consumer.item.cancel() }
            observe(.withdrawn(key))
        }
    }

    /// Whether the key's item has a consumer that only wants the work done (a prefetch).
    package func isPrefetched(_ key: Key) -> Bool {
        state.withLock { $0.entries[key]?.consumers.contains { $0.deliver == nil } ?? false }
    }

    /// Withdraws the key's consumers that only want the work done, as their claims' `cancel()` does.
    package func withdrawPrefetches(_ key: Key) {
        let prefetches = state.withLock { $0.entries[key]?.consumers.filter { $0.deliver == nil } ?? [] }
        for prefetch in prefetches { leave(key, consumer: prefetch.item) }
    }

    /// How many keys have an item in flight.
    package var count: Int { state.withLock { $0.entries.count } }

    /// The priority the key's item runs at (the highest its consumers lend it), or nil when none is in flight.
    package func priority(of key: Key) -> WorkPriority? {
        state.withLock { $0.entries[key]?.item }?.effectivePriority
    }

    // MARK: Internals

    /// Withdraws `consumer`: nothing more is delivered to it, and the key's item is cancelled if nothing else needs it.
    func leave(_ key: Key, consumer: WorkItem<Value>) {
        let withdrawn = state.withLock { state -> Bool? in
            guard var entry = state.entries[key], let index = entry.consumers.firstIndex(where: { $0.item == consumer })
            else { return nil }
            entry.consumers.remove(at: index)
            guard entry.consumers.isEmpty else {
                state.entries[key] = entry
                return false
            }
            state.entries.removeValue(forKey: key)
            return true
        }
        // Cancelling the consumer is what cancels the key's item, in the core, when nothing else needs it.
        consumer.cancel()
        if withdrawn == true { observe(.withdrawn(key)) }
    }

    /// Whether `consumer` still waits for a result that will come.
    func isActive(_ key: Key, consumer: WorkItem<Value>) -> Bool {
        state.withLock { $0.entries[key]?.consumers.contains { $0.item == consumer } ?? false }
    }

    /// Runs `body` where results are delivered. The thread that finished an item takes none of the table's locks when
    /// there is a delivery queue (a low-priority worker holding a lock the main thread waits for would delay it).
    private func hop(_ body: @escaping @Sendable () -> Void) { Delivery.run(on: deliveryQueue, label: label, body) }

    private func finished(_ key: Key, _ item: WorkItem<Value>, epoch: UInt64, with result: Result<Value, any Error>) {
        hop {
            let consumers = self.state.withLock { state -> [Consumer]? in
                guard let entry = state.entries[key], entry.item == item else { return nil }
                state.entries.removeValue(forKey: key)
                return entry.consumers
            }
            self.end(key, epoch, consumers: consumers, with: result)
        }
    }

    private func end(_ key: Key, _ epoch: UInt64, consumers: [Consumer]?, with result: Result<Value, any Error>) {
        let current = state.withLock { $0.epoch == epoch }
        observe(.finished(key, result, current: current, delivered: consumers != nil))
        for consumer in consumers ?? [] { consumer.deliver?(result) }
    }
}
