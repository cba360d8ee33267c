import Lanes
import LanesTesting
import Testing

/// `setSpeculativeLimit(_:below:)`: items below a priority never take the whole width, so an urgent item never waits
/// behind them.
@Suite("WorkQueue speculative limit", .timeLimit(.minutes(5)))
struct SpeculativeLimitTests {
    @Test("a visible item starts in the reserved slot while a prefetch runs; the next prefetch waits for it")
    func visibleTakesTheReservedSlot() async {
        let manual = ManualExecutor()
        let queue = WorkQueue("renders", maxConcurrency: 2, executor: manual)
        queue.setSpeculativeLimit(1, below: .normal)
        #expect(queue.speculativeLimit?.limit == 1)
        #expect(queue.speculativeLimit?.priority == .normal)
        let started = Gate(), release = Gate()
        let a = queue.add(label: "prefetch a", priority: .prefetch) { _ in
            started.open()
            release.wait()
        }
        let b = queue.add(label: "prefetch b", priority: .prefetch) { _ in }
        #expect(manual.pendingRunners == 1)          // only one prefetch may run: one runner, not two
        let done = manual.runNextOnDedicatedThread()
        await started.wait()
        #expect(queue.counts.running == 1)
        #expect(!manual.runNext())                   // b is capped: no runner was asked for it
        #expect(b.state == .pending)
        let v = queue.add(label: "visible", priority: .visible) { _ in 1 }
        #expect(manual.runNext())                    // the free slot runs the visible item while a still runs
        #expect(v.state == .succeeded)
        #expect(b.state == .pending)
        #expect(manual.pendingRunners == 0)          // no runner spins on the capped prefetch
        release.open()
        await done.wait()
        manual.runAll()
        #expect(a.state == .succeeded)
        #expect(b.state == .succeeded)
        queue._checkInvariants()
    }

    @Test("a capped prefetch promoted to visible starts at once; removing the cap starts the rest")
    func promotionAndRemoval() async {
        let manual = ManualExecutor()
        let queue = WorkQueue("renders", maxConcurrency: 3, executor: manual)
        queue.setSpeculativeLimit(1, below: .normal)
        let started = Gate(), release = Gate()
        _ = queue.add(label: "a", priority: .prefetch) { _ in
            started.open()
            release.wait()
        }
        let b = queue.add(label: "b", priority: .prefetch) { _ in }
        let c = queue.add(label: "c", priority: .utility) { _ in }
        let done = manual.runNextOnDedicatedThread()
        await started.wait()
        #expect(!manual.runNext())
        b.priority = .visible
        #expect(manual.runNext())
        #expect(b.state == .succeeded)
        #expect(c.state == .pending)
        queue._checkInvariants()
        queue.setSpeculativeLimit(.max, below: .normal)
        #expect(queue.speculativeLimit == nil)
        #expect(manual.runNext())
        #expect(c.state == .succeeded)
        release.open()
        await done.wait()
        await queue.idle()
        queue._checkInvariants()
    }

    @Test("on real threads a queue of width 2 never runs more than one prefetch at once and runs every item")
    func capHoldsOnRealThreads() async {
        let queue = WorkQueue("renders", maxConcurrency: 2)
        queue.setSpeculativeLimit(1, below: .normal)
        let running = LockedValue((now: 0, most: 0))
        var items: [WorkItem<Void>] = []
        for index in 0..<200 {
            items.append(
                queue.add(label: "p\(index)", priority: index.isMultiple(of: 5) ? .visible : .prefetch) { context in
                    guard context.priority < .normal else { return }
                    running.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                    for _ in 0..<2_000 { _ = context.isCancelled }
                    running.withLock { $0.now -= 1 }
                })
        }
        for item in items { _ = await item.result }
        await queue.idle()
        #expect(running.withLock { $0.most } == 1)
        #expect(queue.counts.completed == 200)
        queue._checkInvariants()
    }
}
