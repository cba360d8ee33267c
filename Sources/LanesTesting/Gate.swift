import Dispatch
import Lanes

/// A one-shot gate for ordering steps in tests: work waits on it until the test opens it. Waits from synchronous
/// bodies block their thread; waits from async code suspend.
///
/// ```swift
/// let started = Gate(), release = Gate()
/// let item = queue.add { _ in started.open(); release.wait() }
/// await started.wait()          // the body is running now
/// item.cancel()
/// release.open()
/// ```
public final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var continuations: [CheckedContinuation<Void, Never>] = []
        var semaphores: [DispatchSemaphore] = []
    }

    private let state = LockedValue(State())

    /// A closed gate.
    public init() {}

    /// Whether the gate is open.
    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Opens the gate and releases every waiter, now and later.
    public func open() {
        let (continuations, semaphores) = state.withLock { state in
            state.isOpen = true
            defer { state.continuations = []; state.semaphores = [] }
            return (state.continuations, state.semaphores)
        }
        for continuation in continuations { continuation.resume() }
        for semaphore in semaphores { semaphore.signal() }
    }

    /// Suspends until the gate is open.
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.continuations.append(continuation)
                return false
            }
            if open { continuation.resume() }
        }
    }

    /// Blocks the calling thread until the gate is open. Never call it on the main thread.
    public func wait() {
        let semaphore = DispatchSemaphore(value: 0)
        let open = state.withLock { state -> Bool in
            if state.isOpen { return true }
            state.semaphores.append(semaphore)
            return false
        }
        if !open { semaphore.wait() }
    }
}

/// A thread-safe log for asserting the order in which things happened.
///
/// ```swift
/// let log = Recorder<String>()
/// queue.add { _ in log.append("a") }
/// ```
public final class Recorder<Element: Sendable>: Sendable {
    private let storage = LockedValue<[Element]>([])

    /// An empty log.
    public init() {}

    /// Appends an element.
    public func append(_ element: Element) { storage.withLock { $0.append(element) } }

    /// Everything appended so far, in order.
    public var elements: [Element] { storage.withLock { $0 } }
}
