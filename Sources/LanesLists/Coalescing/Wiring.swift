import Foundation
import Lanes

/// Starts held back until a consumer is wired to the work that was made for it.
///
/// A ``WorkTable`` makes a key's chain and only then adds the consumer that lends the chain its priority. An item
/// that could start at once (a fetch, a step whose input is already cached) would otherwise start in between at the
/// `.background` its maker gave it, and a transfer or a budget request would begin at the wrong priority. Makers hand
/// such starts to ``start(_:)``; inside a table's wiring they run once the consumer is in place (on the same thread,
/// before the table returns), and anywhere else at once.
package enum Wiring {
    /// The starts held by the wiring under way on this thread (nil: none).
    @TaskLocal private static var held: HeldStarts?

    /// Runs `start` once the wiring under way has attached its consumer, or now when none is.
    package static func start(_ start: @escaping @Sendable () -> Void) {
        if let held { held.append(start) } else { start() }
    }

    /// Enqueues `item` on `queue` once the wiring under way has attached its consumer, or now when none is.
    package static func enqueue<Output>(_ item: WorkItem<Output>, on queue: WorkQueue) {
        // A fresh item, enqueued once: enqueue cannot refuse it.
        start { try? queue.enqueue(item) }
    }

    /// Runs `body` as wiring: starts handed to ``start(_:)`` inside it run when it returns (a nested wiring joins the
    /// outer one, whose end runs them all).
    package static func wire<T>(_ body: () -> T) -> T {
        guard held == nil else { return body() }
        let starts = HeldStarts()
        let result = $held.withValue(starts) { body() }
        starts.runAll()
        return result
    }
}

/// The starts one wiring holds. Only its own thread appends, but a task-local value must be Sendable: a lock.
private final class HeldStarts: Sendable {
    private let starts = LockedValue<[@Sendable () -> Void]>([])

    func append(_ start: @escaping @Sendable () -> Void) { starts.withLock { $0.append(start) } }

    func runAll() {
        for start in starts.withLock({ starts in defer { starts = [] }; return starts }) { start() }
    }
}
