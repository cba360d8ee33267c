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
