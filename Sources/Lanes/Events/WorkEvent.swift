import Dispatch
import Synchronization

/// One thing that happened to a work item. Traces and monitors are built on the stream of these.
///
/// ```swift
/// let token = WorkEvents.observe { event in
///     if event.kind == .cancelled { print("cancelled", event.label) }
/// }
/// defer { token.cancel() }
/// ```
public struct WorkEvent: Sendable {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// The item was put in a queue.
        case added
        /// Its body started.
        case started
        /// It finished (succeeded, failed or was skipped) after being enqueued.
        case finished
        /// It was cancelled.
        case cancelled
    }

    /// What happened to the item.
    public let kind: Kind
    /// Monotonic time in nanoseconds (`DispatchTime.now().uptimeNanoseconds`).
    public let time: UInt64
    /// The name of the queue the item belongs to ("" when it has none yet).
    public let queue: String
    /// The identity of that queue (0 when it has none yet): names need not be unique, so in-package observers that
    /// follow one queue (``ResponsivenessMonitor``) match on this.
    let queueID: UInt64
    /// The item's label.
    public let label: String
    /// A process-unique number for the item.
    public let itemID: UInt64
    /// A small number for the thread the event happened on (stable for the thread's life).
    public let thread: UInt64
    /// The state the item reached (for `.finished` and `.cancelled`).
    public let state: WorkState
}

/// The process-wide event stream. It costs one atomic load per event when nobody observes.
public enum WorkEvents {
    /// An observation; cancel it (or let it go) to stop receiving events.
    public final class Token: Sendable {
        let id: UInt64
        init(id: UInt64) { self.id = id }
        /// Stops the observation. Safe to call more than once.
        public func cancel() { WorkEvents.remove(id) }
        deinit { WorkEvents.remove(id) }
    }

    private static let registry = LockedValue<(next: UInt64, observers: [(UInt64, @Sendable (WorkEvent) -> Void)])>((1, []))
    private static let listening = Atomic<Int>(0)

    /// Calls `handler` for every event, on the thread where it happens, until the token is cancelled or released.
    /// Handlers must be quick and must not block.
    public static func observe(_ handler: @escaping @Sendable (WorkEvent) -> Void) -> Token {
        let id = registry.withLock { state in
            let id = state.next
            state.next += 1
            state.observers.append((id, handler))
            return id
        }
        listening.add(1, ordering: .releasing)
        return Token(id: id)
    }

    static func remove(_ id: UInt64) {
        let removed = registry.withLock { state -> Bool in
            guard let index = state.observers.firstIndex(where: { $0.0 == id }) else { return false }
            state.observers.remove(at: index)
            return true
        }
        if removed { listening.subtract(1, ordering: .releasing) }
    }

    @inline(__always)
    static var isObserved: Bool { listening.load(ordering: .relaxed) > 0 }

    static func emit(_ kind: WorkEvent.Kind, node: WorkNode, queue: WorkQueue?, state: WorkState) {
        guard isObserved else { return }
        let event = WorkEvent(
            kind: kind, time: DispatchTime.now().uptimeNanoseconds, queue: queue?.name ?? "", queueID: queue?.id ?? 0,
            label: node.label, itemID: node.id, thread: ThreadID.current, state: state)
        let observers = registry.withLock { $0.observers }
        for (_, handler) in observers { handler(event) }
    }
}

/// Small, stable per-thread numbers for events and traces.
enum ThreadID {
    private static let counter = Atomic<UInt64>(0)
    private static let key = ThreadLocalKey()

    static var current: UInt64 {
        if let value = key.value { return value }
        let value = counter.add(1, ordering: .relaxed).newValue
        key.value = value
        return value
    }
}
