import Foundation
import Lanes
import LanesImages
import LanesTesting
import Testing

@Suite("Fetch priority", .timeLimit(.minutes(5)))
struct FetchPriorityTests {
    @Test("setPriority reaches the running URLSessionTask, live")
    func httpTaskPriority() async throws {
        // Real-clock retries with a tiny backoff: in a full, loaded (TSan) run an attempt has been seen to end early;
        // the next attempt must carry the priority too, so the test follows whichever attempt is running.
        let policy = FetchPolicy(
            timeout: .seconds(3600), retry: RetryPolicy(maxAttempts: 5, initialDelay: .milliseconds(1), jitter: 0))
        let harness = try FetchHarness(policy: policy)
        defer { harness.stop() }
        harness.server.route("/held", LoopbackRoute(body: [7, 7, 7], latch: "go"))
        let probe = FetchProbe()
        let handle = harness.fetch("/held", priority: .prefetch, into: probe)
        #expect(await harness.server.waitUntil { !$0.connections(requesting: "/held").isEmpty })
        #expect(await harness.events.waitUntil { _ in DataFetcher.appliedPriority(of: handle) != nil })
        #expect(DataFetcher.appliedPriority(of: handle) == WorkPriority.prefetch.sessionTaskPriority)
        handle.setPriority(.visible)
        #expect(DataFetcher.appliedPriority(of: handle) == WorkPriority.visible.sessionTaskPriority)
        handle.setPriority(.background)
        #expect(DataFetcher.appliedPriority(of: handle) == WorkPriority.background.sessionTaskPriority)
        harness.server.open("go")
        #expect(try #require(await probe.result()).get() == Data([7, 7, 7]))
        #expect(DataFetcher.appliedPriority(of: handle) == nil)
        handle.setPriority(.visible)  // after the end: nothing to do, nothing breaks
    }

    @Test("the task levels rise with the work priority")
    func levelsAreOrdered() {
        let levels = WorkPriority.allCases.map(\.sessionTaskPriority)
        #expect(levels == levels.sorted())
        #expect(Set(levels).count == levels.count)
        #expect(levels.allSatisfy { (0...1).contains($0) })
        #expect(WorkPriority.normal.sessionTaskPriority == 0.5)  // URLSessionTask.defaultPriority
    }

    @Test("a promoted file read overtakes the reads queued before it")
    func fileReadPriority() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lanes-fetch-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let urls = try (0..<3).map { index in
            let url = directory.appendingPathComponent("\(index).png")
            try Data([UInt8(index + 1)]).write(to: url)
            return url
        }
        let files = ManualExecutor()
        let fetcher = DataFetcher(fileQueue: WorkQueue("files", maxConcurrency: 1, executor: files))
        let order = Recorder<Int>()
        let handles = urls.enumerated().map { index, url in
            fetcher.fetch(url, priority: .utility) { _ in order.append(index) }
        }
        #expect(DataFetcher.appliedPriority(of: handles[2]) == WorkPriority.utility.sessionTaskPriority)
        handles[2].setPriority(.visible)
        #expect(DataFetcher.appliedPriority(of: handles[2]) == WorkPriority.visible.sessionTaskPriority)
        files.runAll()
        #expect(order.elements == [2, 0, 1])
    }
}
