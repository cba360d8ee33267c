import Dispatch
import Foundation

/// A log tests can wait on without blocking any thread: appended from any thread; `waitUntil` suspends until a
/// predicate over the elements holds, or gives up after a safety timeout (returning false, so the test fails instead
/// of hanging). The ``LoopbackServer`` records its events in one; fetch tests record completions and fetcher events.
///
/// `@unchecked Sendable`: `storage`, `waiters` and `nextID` are only touched while `lock` is held. Predicates run
/// under the lock (they must be quick and pure); continuations are resumed after it is released.
final class WaitableLog<Element: Sendable>: @unchecked Sendable {
    private struct Waiter {
        let id: Int
        let predicate: @Sendable ([Element]) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private let lock = NSLock()
    private var storage: [Element] = []
    private var waiters: [Waiter] = []
    private var nextID = 0

    func append(_ element: Element) {
        lock.lock()
        storage.append(element)
        var ready: [Waiter] = []
        waiters.removeAll { waiter in
            guard waiter.predicate(storage) else { return false }
            ready.append(waiter)
            return true
        }
        lock.unlock()
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }

    var elements: [Element] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }

    /// Suspends until `predicate` holds for the elements (true), or `timeout` seconds pass (false).
    func waitUntil(timeout: Double = 180, _ predicate: @escaping @Sendable ([Element]) -> Bool) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            lock.lock()
            if predicate(storage) {
                lock.unlock()
                continuation.resume(returning: true)
                return
            }
            let id = nextID
            nextID += 1
            waiters.append(Waiter(id: id, predicate: predicate, continuation: continuation))
            lock.unlock()
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in
                lock.lock()
                let expired = waiters.firstIndex { $0.id == id }.map { waiters.remove(at: $0) }
                lock.unlock()
                expired?.continuation.resume(returning: false)
            }
        }
    }
}
