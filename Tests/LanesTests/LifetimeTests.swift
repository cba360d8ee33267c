import Lanes
import LanesTesting
import Synchronization
import Testing

/// Counts live instances.
final class Tracked: Sendable {
    static let alive = Atomic<Int>(0)
    init() { Self.alive.add(1, ordering: .relaxed) }
    deinit { Self.alive.subtract(1, ordering: .relaxed) }
}

final class Box<Value: Sendable>: Sendable {
    let value = Mutex<Value?>(nil)
}

@Suite("Lifetimes", .serialized, .timeLimit(.minutes(10)))
struct LifetimeTests {
    /// A million items, a hundred thousand under ThreadSanitizer: a loop with no suspension point, run on
    /// LanesTesting's threads (`.heavy`), not on Swift's global executor.
    @Test("finished items release their bodies and captured values; self-capturing bodies do not leak", .heavy)
    func noLeaks() async throws {
        let queue = WorkQueue("lifetimes")
        weak var weakTracked: Tracked?
        do {
            let count = TestScale.pick(1_000_000, sanitized: 100_000)
            for index in 0..<count {
                let tracked = Tracked()
                if index == 0 { weakTracked = tracked }
                let box = Box<WorkItem<Int>>()
                let item = WorkItem { _ in
                    // The body captures its own item (the seeds' retain-cycle warning).
                    _ = box.value.withLock { $0?.label }
                    _ = tracked
                    return index
                }
                box.value.withLock { $0 = item }
                try queue.enqueue(item)
            }
            await queue.idle()
        }
        #expect(weakTracked == nil)
        #expect(Tracked.alive.load(ordering: .relaxed) == 0)
    }
}
