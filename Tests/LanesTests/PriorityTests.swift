import Dispatch
import Lanes
import LanesTesting
import Testing

@Suite("Priorities", .timeLimit(.minutes(5)))
struct PriorityTests {
    @Test("higher levels run first; FIFO within a level")
    func ordering() {
        let manual = ManualExecutor()
        let queue = WorkQueue("order", maxConcurrency: 1, executor: manual)
        let log = Recorder<String>()
        queue.suspend()
        queue.add(priority: .background) { _ in log.append("bg") }
        queue.add(priority: .normal) { _ in log.append("n1") }
        queue.add(priority: .visible) { _ in log.append("v1") }
        queue.add(priority: .prefetch) { _ in log.append("p") }
        queue.add(priority: .normal) { _ in log.append("n2") }
        queue.add(priority: .visible) { _ in log.append("v2") }
        queue.add(priority: .utility) { _ in log.append("u") }
        queue.resume()
        manual.runAll()
        #expect(log.elements == ["v1", "v2", "n1", "n2", "p", "u", "bg"])
    }

    @Test("re-prioritising a pending item takes effect at once")
    func reprioritise() {
        let manual = ManualExecutor()
        let queue = WorkQueue("reprioritise", maxConcurrency: 1, executor: manual)
        let log = Recorder<String>()
        let a = queue.add(label: "a", priority: .prefetch) { _ in log.append("a") }
        queue.add(label: "b") { _ in log.append("b") }
        let c = queue.add(label: "c", priority: .visible) { _ in log.append("c") }
        a.priority = .visible   // a prefetched row became visible
        c.priority = .background  // c scrolled far away
        manual.runAll()
        #expect(log.elements == ["a", "b", "c"])
        #expect(a.priority == .visible)
    }

    @Test("a re-prioritised item's result is released once it ran: the idle queue keeps no stale entry of it")
    func reprioritisedResultReleased() {
        final class Payload: Sendable {}
        final class Watch: @unchecked Sendable {
            // @unchecked Sendable: written before the item runs and read after `runAll()` returned, on this thread.
            weak var payload: Payload?
        }
        let manual = ManualExecutor()
        let queue = WorkQueue("reprioritised result", maxConcurrency: 1, executor: manual)
        let watch = Watch()
        do {
            let item = queue.add(label: "load", priority: .prefetch) { _ in
                let payload = Payload()
                watch.payload = payload
                return payload
            }
            item.priority = .visible   // its entry in the prefetch bucket goes stale; a new one is listed
            #expect(manual.runAll() == 1)
            #expect(watch.payload != nil)   // the item holds its result while someone holds the item
        }
        #expect(watch.payload == nil)   // nothing but the queue's stale entry could hold it now
        withExtendedLifetime(queue) {}
    }

    @Test("an item waiting on dependencies lends its priority to them, and takes it back")
    func inheritance() async throws {
        let manual = ManualExecutor()
        let downloads = WorkQueue("downloads", maxConcurrency: 1, executor: manual)
        let renders = WorkQueue("renders", maxConcurrency: 1, executor: manual)
        let log = Recorder<String>()
        downloads.suspend()
        let other = downloads.add(label: "other", priority: .normal) { _ in log.append("other") }
        let download = downloads.add(label: "download", priority: .prefetch) { _ in log.append("download") }
        let render = renders.add(label: "render", priority: .prefetch, after: [download]) { _ in log.append("render") }
        #expect(download.effectivePriority == .prefetch)
        render.priority = .visible   // the cell became visible: the download it waits for is raised
        #expect(download.effectivePriority == .visible)
        #expect(download.priority == .prefetch)
        render.priority = .prefetch
        #expect(download.effectivePriority == .prefetch)
        render.priority = .visible
        downloads.resume()
        manual.runAll()
        #expect(log.elements == ["download", "render", "other"])
        _ = other
    }

    @Test("lending follows a chain of dependencies")
    func transitiveInheritance() {
        let a = WorkItem(label: "a", priority: .background) { _ in }
        let b = WorkItem(label: "b", priority: .background) { _ in }
        let c = WorkItem(label: "c", priority: .utility) { _ in }
        try? b.addDependency(a)
        try? c.addDependency(b)
        #expect(a.effectivePriority == .utility)
        c.priority = .visible
        #expect(b.effectivePriority == .visible)
        #expect(a.effectivePriority == .visible)
        c.cancel()   // c no longer needs them
        #expect(a.effectivePriority == .background)
    }
}

@Suite("Priority handlers", .timeLimit(.minutes(5)))
struct PriorityHandlerTests {
    @Test("onPriorityChange passes on every change: own, lent and taken back; at once if it moved since the start; none after the end")
    func followsChanges() {
        let manual = ManualExecutor()
        let transfers = WorkQueue("transfers", maxConcurrency: 1, executor: manual)
        let seen = Recorder<WorkPriority>()
        let finish = LockedValue<(@Sendable (Result<Int, any Error>) -> Void)?>(nil)
        let transfer = transfers.add(label: "transfer", priority: .prefetch, callback: { (context: WorkContext, done) in
            context.onPriorityChange(since: .utility) { seen.append($0) }   // it moved since: told at once
            finish.withLock { $0 = done }
        })
        manual.runAll()
        #expect(seen.elements == [.prefetch])
        transfer.priority = .normal
        let consumer = WorkItem(consuming: transfer, priority: .visible) { value, _ in value }
        #expect(seen.elements == [.prefetch, .normal, .visible])
        consumer.priority = .utility   // the consumer's loan drops below the item's own priority
        #expect(seen.elements == [.prefetch, .normal, .visible, .normal])
        finish.withLock { $0 }?(.success(1))
        transfer.priority = .visible
        #expect(seen.elements == [.prefetch, .normal, .visible, .normal])
        #expect(transfer.state == .succeeded)
    }

    @Test("changes from many threads leave the handler at the latest priority")
    func raceConverges() async {
        let manual = ManualExecutor()
        let queue = WorkQueue("racing", maxConcurrency: 1, executor: manual)
        let latest = LockedValue<WorkPriority?>(nil)
        let finish = LockedValue<(@Sendable (Result<Void, any Error>) -> Void)?>(nil)
        let item = queue.add(label: "held", priority: .background, callback: { (context: WorkContext, done) in
            context.onPriorityChange(since: context.priority) { priority in latest.withLock { $0 = priority } }
            finish.withLock { $0 = done }
        })
        manual.runAll()
        #expect(latest.withLock { $0 } == nil)   // nothing moved yet
        await onDedicatedThread {
            DispatchQueue.concurrentPerform(iterations: TestScale.pick(400, sanitized: 100)) { index in
                item.priority = WorkPriority.allCases[index % WorkPriority.allCases.count]
            }
        }
        #expect(latest.withLock { $0 } == item.effectivePriority)
        item.priority = item.priority == .visible ? .background : .visible
        #expect(latest.withLock { $0 } == item.effectivePriority)
        finish.withLock { $0 }?(.success(()))
        #expect(item.state == .succeeded)
    }
}
