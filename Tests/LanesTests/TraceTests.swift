import Foundation
import Lanes
import LanesAppSupport
import LanesTesting
import Testing

/// A trace file loaded back with JSONSerialization.
private struct LoadedTrace {
    let root: [String: Any]
    let events: [[String: Any]]

    init(_ data: Data) throws {
        root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        events = try #require(root["traceEvents"] as? [[String: Any]])
    }

    func arguments(_ event: [String: Any]) -> [String: Any] { event["args"] as? [String: Any] ?? [:] }

    /// The tid of the track named `name` in process `pid`.
    func track(named name: String, pid: Int) -> Int? {
        events.first { $0["ph"] as? String == "M" && $0["name"] as? String == "thread_name"
            && $0["pid"] as? Int == pid && arguments($0)["name"] as? String == name }?["tid"] as? Int
    }

    /// Complete slices in process `pid` for items of `queue`.
    func slices(pid: Int, queue: String) -> [[String: Any]] {
        events.filter { $0["ph"] as? String == "X" && $0["pid"] as? Int == pid && arguments($0)["queue"] as? String == queue }
    }
}

@Suite("Traces", .timeLimit(.minutes(5)))
struct TraceTests {
    @Test("a trace file loads back with tracks, one slice per item, an instant per cancel, and exact labels")
    func roundTrip() async throws {
        let suffix = UUID().uuidString.prefix(8)
        let alphaName = "alpha-\(suffix)", betaName = "beta \"\(suffix)\""
        let tricky = "say \"hi\" \\ back\nslash\ttab \u{1} ünïcödé 🚀"
        let manual = ManualExecutor()
        let alpha = WorkQueue(alphaName, maxConcurrency: 1, executor: manual)
        let beta = WorkQueue(betaName, maxConcurrency: 1, executor: manual)
        let recorder = TraceRecorder()
        recorder.start()
        let a1 = alpha.add(label: "a1") { _ in 1 }
        let a2 = alpha.add(label: tricky) { _ in 2 }
        let b1 = beta.add(label: "b1") { _ in 3 }
        let b2 = beta.add(label: "b2 cancelled") { _ in 4 }
        b2.cancel()
        manual.runAll()
        recorder.recordInstant(name: "hitch 48 ms", category: "hitch")
        recorder.stop()
        #expect(try await [a1.value, a2.value, b1.value] == [1, 2, 3])
        #expect(!recorder.isRecording)

        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lanes-trace-\(suffix).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try recorder.write(to: url)
        let trace = try LoadedTrace(Data(contentsOf: url))

        #expect(trace.root["displayTimeUnit"] as? String == "ms")
        let processes = trace.events.filter { $0["name"] as? String == "process_name" }
            .compactMap { trace.arguments($0)["name"] as? String }
        #expect(processes.contains("queues") && processes.contains("threads"))
        let alphaTrack = try #require(trace.track(named: alphaName, pid: 1))
        let betaTrack = try #require(trace.track(named: betaName, pid: 1))
        #expect(alphaTrack != betaTrack)

        let alphaSlices = trace.slices(pid: 1, queue: alphaName)
        #expect(alphaSlices.compactMap { $0["name"] as? String }.sorted() == ["a1", tricky].sorted())
        #expect(alphaSlices.allSatisfy { $0["tid"] as? Int == alphaTrack })
        #expect(alphaSlices.allSatisfy { ($0["dur"] as? Double ?? -1) >= 0 && ($0["ts"] as? Double ?? -1) >= 0 })
        #expect(alphaSlices.allSatisfy { trace.arguments($0)["state"] as? String == "succeeded" })
        let betaSlices = trace.slices(pid: 1, queue: betaName)
        #expect(betaSlices.compactMap { $0["name"] as? String } == ["b1"])
        // Each item also has a slice on the thread that ran it (this test's thread, through the manual executor).
        #expect(trace.slices(pid: 2, queue: alphaName).count == 2)

        let cancels = trace.events.filter { $0["ph"] as? String == "i" && $0["cat"] as? String == "cancel" }
            .filter { trace.arguments($0)["queue"] as? String == betaName }
        #expect(cancels.count == 1)
        #expect((cancels.first?["name"] as? String)?.contains("b2 cancelled") == true)
        #expect(cancels.first?["tid"] as? Int == betaTrack)
        let hitch = trace.events.first { $0["ph"] as? String == "i" && $0["name"] as? String == "hitch 48 ms" }
        #expect(hitch?["cat"] as? String == "hitch")
        #expect(hitch?["s"] as? String == "g")
    }

    @Test("items running at once on a concurrent queue get a track each, so slices never overlap on a track")
    func concurrentSlots() async throws {
        let name = "wide-\(UUID().uuidString.prefix(8))"
        let queue = WorkQueue(name, maxConcurrency: 2)
        let recorder = TraceRecorder()
        recorder.start()
        let firstIn = Gate(), secondIn = Gate()
        let first = queue.add(label: "first") { _ in firstIn.open(); secondIn.wait() }
        let second = queue.add(label: "second") { _ in secondIn.open(); firstIn.wait() }
        try await first.value
        try await second.value
        await queue.idle()
        recorder.stop()
        let trace = try LoadedTrace(recorder.jsonData())
        let slices = trace.slices(pid: 1, queue: name)
        #expect(slices.count == 2)
        let tids = Set(slices.compactMap { $0["tid"] as? Int })
        #expect(tids.count == 2)
        #expect(trace.track(named: name, pid: 1) != nil)
        #expect(trace.track(named: "\(name) #2", pid: 1) != nil)
        let threads = trace.slices(pid: 2, queue: name)
        #expect(Set(threads.compactMap { $0["tid"] as? Int }).count == 2)
    }

    @Test("the recorder is bounded and counts what it dropped")
    func bounded() throws {
        let manual = ManualExecutor()
        let queue = WorkQueue("bounded-\(UUID().uuidString.prefix(8))", maxConcurrency: 1, executor: manual)
        let recorder = TraceRecorder(capacity: 4)
        recorder.start()
        for index in 0..<5 { queue.add(label: "n\(index)") { _ in } }
        manual.runAll()
        recorder.stop()
        #expect(recorder.eventCount == 4)
        #expect(recorder.droppedEvents >= 11)
        let trace = try LoadedTrace(recorder.jsonData())
        let other = trace.root["otherData"] as? [String: Any]
        #expect((other?["droppedEvents"] as? Int ?? 0) >= 11)
    }

    @Test("--trace FILE is found and removed from the arguments")
    func arguments() throws {
        #expect(TraceRecorder.traceURL(in: ["app", "--trace", "out.json", "AAPL"])?.lastPathComponent == "out.json")
        #expect(TraceRecorder.traceURL(in: ["app", "--trace=t.json"])?.lastPathComponent == "t.json")
        #expect(TraceRecorder.traceURL(in: ["app", "--trace"])?.lastPathComponent == "lanes-trace.json")
        #expect(TraceRecorder.traceURL(in: ["app", "AAPL"]) == nil)
        #expect(TraceRecorder.fromArguments(["app"]) == nil)
        #expect(TraceRecorder.removingTraceArguments(from: ["--trace", "out.json", "AAPL", "--quick"]) == ["AAPL", "--quick"])
        #expect(TraceRecorder.removingTraceArguments(from: ["--trace", "--quick", "--trace=x"]) == ["--quick"])

        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lanes-args-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        let recorder = try #require(TraceRecorder.fromArguments(["app", "--trace", url.path]))
        #expect(recorder.isRecording)
        try recorder.finish()
        #expect(!recorder.isRecording)
        _ = try LoadedTrace(Data(contentsOf: url))
    }
}
