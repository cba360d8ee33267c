import Lanes
import LanesTesting
import Testing

/// Getting started's join: fetch → parse → {validate → index, thumbnails} → publish, where publish joins index and
/// thumbnails and validate throws. Publish owns its inputs: when it is cancelled, a thumbnail step that has not run
/// and that nothing else needs is cancelled with it; one that already ran stays done; `keep()` makes it run anyway.
/// Each queue has its own manual executor, so the test chooses which runs first.
@Suite("A join owns its inputs", .timeLimit(.minutes(5)))
struct JoinOwnershipTests {
    struct Invalid: Error {}

    struct Graph {
        let io = ManualExecutor(), checks = ManualExecutor(), thumbs = ManualExecutor()
        let ran = Recorder<String>()
        let thumbnails: WorkItem<Int>
        let publish: WorkItem<String>

        init(keepingThumbnails: Bool) throws {
            let ioQueue = WorkQueue("io", maxConcurrency: 1, executor: io)
            let checkQueue = WorkQueue("checks", maxConcurrency: 1, executor: checks)
            let thumbQueue = WorkQueue("thumbnails", maxConcurrency: 1, executor: thumbs)
            let ran = self.ran
            let fetch = ioQueue.add(label: "fetch") { _ in
                ran.append("fetch")
                return "a,b,c"
            }
            let parse = ioQueue.add(consuming: fetch, label: "parse") { text, _ in
                ran.append("parse")
                return text.split(separator: ",").map(String.init)
            }
            let validate = checkQueue.add(consuming: parse, label: "validate") { (_: [String], _) -> [String] in
                ran.append("validate")
                throw Invalid()
            }
            let index = checkQueue.add(consuming: validate, label: "index") { rows, _ in
                ran.append("index")
                return rows.count
            }
            var thumbnails = thumbQueue.add(consuming: parse, label: "thumbnails") { rows, _ in
                ran.append("thumbnails")
                return rows.count
            }
            if keepingThumbnails { thumbnails = thumbnails.keep() }
            self.thumbnails = thumbnails
            publish = WorkItem(consuming: index, thumbnails, label: "publish") { indexed, thumbs, _ in
                ran.append("publish")
                return "\(indexed) rows, \(thumbs) thumbnails"
            }
            try ioQueue.enqueue(publish)
        }

        func settle() { while io.runAll() + checks.runAll() + thumbs.runAll() > 0 {} }
    }

    @Test("validate fails before thumbnails runs: publish is cancelled, and so is thumbnails, which it alone needed")
    func failureFirst() throws {
        let graph = try Graph(keepingThumbnails: false)
        graph.io.runAll()
        graph.checks.runAll()                        // validate throws; index and publish are cancelled
        #expect(graph.publish.state == .cancelled)
        #expect(graph.thumbnails.state == .cancelled)
        graph.settle()
        #expect(graph.ran.elements == ["fetch", "parse", "validate"])
    }

    @Test("thumbnails runs before validate fails: it stays done; publish is cancelled")
    func thumbnailsFirst() throws {
        let graph = try Graph(keepingThumbnails: false)
        graph.io.runAll()
        graph.thumbs.runAll()
        graph.settle()
        #expect(graph.thumbnails.state == .succeeded)
        #expect(graph.publish.state == .cancelled)
        #expect(graph.ran.elements == ["fetch", "parse", "thumbnails", "validate"])
    }

    @Test("keep(): thumbnails runs whatever happens to publish, as an independent branch")
    func keptBranch() throws {
        let graph = try Graph(keepingThumbnails: true)
        graph.io.runAll()
        graph.checks.runAll()
        #expect(graph.publish.state == .cancelled)
        graph.settle()
        #expect(graph.thumbnails.state == .succeeded)
        #expect(graph.ran.elements == ["fetch", "parse", "validate", "thumbnails"])
    }
}
