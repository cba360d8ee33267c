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
    @Test("finished items release their bodies and captured values; self-capturing bodies do not leak")
    func noLeaks() async throws {
        let queue = WorkQueue("lifetimes")
        weak var weakTracked: Tracked?
        do {
            let count = 1_000_000
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
