import Lanes
import LanesTesting
import Synchronization
import Testing

@Suite("Dependencies", .timeLimit(.minutes(5)))
struct DependencyTests {
    @Test("B after A, across queues")
    func plainEdge() async throws {
        let first = WorkQueue("first")
        let second = WorkQueue("second")
        let log = Recorder<String>()
        let gate = Gate()
        let a = first.add(label: "a") { _ in gate.wait(); log.append("a") }
        let b = second.add(label: "b", after: [a]) { _ in log.append("b") }
        #expect(b.state == .pending)
        gate.open()
        try await b.value
        #expect(log.elements == ["a", "b"])
    }

    @Test("a typed edge passes the output along (download → tilt-shift)")
    func typedEdge() async throws {
        let network = WorkQueue("network")
        let filters = WorkQueue("filters")
        let download = network.add(label: "download") { _ in [UInt8](repeating: 3, count: 4) }
        let filtered = filters.add(consuming: download, label: "tilt-shift") { bytes, _ in bytes.map { $0 * 2 } }
        #expect(try await filtered.value == [6, 6, 6, 6])
    }

    @Test("edge policies: typed edges cancel, plain edges run, skip skips")
    func policies() async throws {
        let manual = ManualExecutor()
        let queue = WorkQueue("policies", maxConcurrency: 1, executor: manual)
        let failing: WorkItem<Int> = queue.add(label: "failing") { _ in throw Boom() }
        let typed = queue.add(consuming: failing, label: "typed") { value, _ in value + 1 }
        let ran = Atomic<Bool>(false)
        let plain = queue.add(label: "plain", after: [failing]) { _ in ran.store(true, ordering: .relaxed) }
        let skipped = queue.add(label: "skipped", after: [failing], policy: .skip) { _ in 1 }
        manual.runAll()
        #expect(typed.state == .cancelled)
        #expect(plain.state == .succeeded)
        let didRun = ran.load(ordering: .relaxed)
        #expect(didRun)
        #expect(skipped.state == .failed)
        await #expect(throws: LanesError.dependencyFailed(item: "skipped", dependency: "failing")) {
            try await skipped.value
        }
    }

    @Test("removing a dependency makes the item ready when nothing else holds it")
    func removeDependency() async throws {
        let manual = ManualExecutor()
        let queue = WorkQueue("remove", maxConcurrency: 2, executor: manual)
        let blocker = Gate()
        let slow = WorkQueue("slow").add(label: "slow") { _ in blocker.wait() }
        let other = WorkQueue("other", executor: manual).add(label: "other") { _ in }
        let item = WorkItem(label: "item") { _ in "ran" }
        try item.addDependency(slow)
        try item.addDependency(other)
        try queue.enqueue(item)
        manual.runAll()  // runs `other`; `item` still waits on `slow`
        #expect(item.state == .pending)
        try item.removeDependency(slow)
        manual.runAll()
        #expect(try await item.value == "ran")
        blocker.open()
    }

    @Test("a self-dependency is refused at once")
    func selfDependency() {
        let item = WorkItem(label: "me") { _ in }
        #expect(throws: LanesError.selfDependency("me")) { try item.addDependency(item) }
    }

    @Test("an edge that closes a cycle is refused with an error naming the cycle")
    func cycle() throws {
        let a = WorkItem(label: "a") { _ in }
        let b = WorkItem(label: "b") { _ in }
        let c = WorkItem(label: "c") { _ in }
        try b.addDependency(a)  // b waits on a
        try c.addDependency(b)  // c waits on b
        #expect(throws: LanesError.cycle(["a", "c", "b", "a"])) { try a.addDependency(c) }
        // The refused edge left nothing behind: the graph still runs.
        let manual = ManualExecutor()
        let queue = WorkQueue("cycle", executor: manual)
        try queue.enqueue(a)
        try queue.enqueue(b)
        try queue.enqueue(c)
        manual.runAll()
        #expect(c.state == .succeeded)
    }

    @Test("cancelling a pending dependency cascades through a long chain without recursion")
    func longChainCancel() async throws {
        let queue = WorkQueue("chain")
        let gate = Gate()
        let head = queue.add(label: "head") { _ in gate.wait() }
        var previous: WorkItem<Void> = queue.add(label: "0", after: [head], policy: .cancel) { _ in }
        var items = [previous]
        for index in 1..<50_000 {
            previous = queue.add(label: "\(index)", after: [previous], policy: .cancel) { _ in }
            items.append(previous)
        }
        items[0].cancel()
        #expect(items.last!.state == .cancelled)
        gate.open()
        await queue.idle()
        #expect(items.allSatisfy { $0.state == .cancelled })
    }

    @Test("an item with many dependencies waits for each, lends to each, and removes any of them")
    func manyDependencies() throws {
        let manual = ManualExecutor()
        let queue = WorkQueue("many", maxConcurrency: 1, executor: manual)
        queue.suspend()
        let dependencies = (0..<6).map { index in queue.add(label: "d\(index)", priority: .background) { _ in } }
        let log = Recorder<String>()
        let item = WorkItem(label: "item", priority: .background) { _ in log.append("item") }
        for dependency in dependencies { try item.addDependency(dependency) }
        try item.addDependency(dependencies[4])  // a duplicate edge is ignored
        item.priority = .visible
        #expect(dependencies.allSatisfy { $0.effectivePriority == .visible })
        try item.removeDependency(dependencies[0])  // inline
        try item.removeDependency(dependencies[5])  // overflow
        #expect(dependencies[0].effectivePriority == .background)
        #expect(dependencies[5].effectivePriority == .background)
        #expect(dependencies[3].effectivePriority == .visible)
        let other = WorkQueue("other", executor: manual)
        try other.enqueue(item)
        dependencies[0].cancel()
        dependencies[5].cancel()
        queue.resume()
        manual.runNext()
        #expect(item.state == .pending)
        manual.runAll()
        #expect(item.state == .succeeded)
        #expect(log.elements == ["item"])
    }

    @Test("cancel-all finishes items waiting on dependencies, and the queue goes idle")
    func cancelAllWaiting() async throws {
        let queue = WorkQueue("waiting")
        let gate = Gate()
        let head = WorkQueue("head").add(label: "head") { _ in gate.wait() }
        let waiting = (0..<100).map { index in queue.add(label: "w\(index)", after: [head]) { _ in } }
        queue.cancelAll()
        await queue.idle()
        #expect(waiting.allSatisfy { $0.state == .cancelled })
        let after = queue.add(label: "after", after: [head]) { _ in 7 }
        gate.open()
        #expect(try await after.value == 7)
    }
}
