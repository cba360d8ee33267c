import Dispatch
import Foundation
import LanesTesting
import Testing

/// swift-testing runs tests off the main thread (its process parks the main thread in `dispatchMain()`, so here the
/// main queue is drained by a worker). Each test therefore starts `lanes-main-probe`, whose real main thread runs the
/// loop under test, and checks what it reports for WorkQueue.main items, DispatchQueue.main blocks, @MainActor jobs
/// and onMainCompletion handlers.
@Suite("Main-queue work on the main thread", .timeLimit(.minutes(5)))
struct MainThreadTests {
    static let kinds = ["dispatch-main", "mainactor-run", "mainactor-task", "onMainCompletion", "workqueue-main"]

    @Test("every kind of main-queue work runs on the main thread", arguments: ["mainloop", "mainloop-until", "runloop", "pump"])
    func onMainThread(loop: String) async throws {
        let run = try await Probe.run(loop)
        #expect(run.status == 0, "\(run.output)")
        for kind in Self.kinds { #expect(run.lines.contains("\(kind) main=true"), "\(kind): \(run.output)") }
    }

    @Test("the synchronous driver runs work enqueued on the main thread before drain() returns")
    func synchronousDrain() async throws {
        let run = try await Probe.run("pump")
        let drained = try #require(run.lines.firstIndex(of: "sync-drain main=true"), "\(run.output)")
        let after = try #require(run.lines.firstIndex(of: "after-drain"), "\(run.output)")
        #expect(drained < after)
    }

    @Test("MainLoop.stop() from another thread wakes the loop and run returns on the main thread")
    func stopFromWorker() async throws {
        let run = try await Probe.run("stop-from-worker")
        #expect(run.status == 0 && run.lines.contains("returned main=true"), "\(run.output)")
    }

    @Test("the documented pattern: the body returns the app object, which outlives the body and stops the loop")
    func bodyReturnsItsOwner() async throws {
        let run = try await Probe.run("owner")
        #expect(run.status == 0, "\(run.output)")
        #expect(run.lines.contains("owner-result hello from a worker main=true"), "\(run.output)")
        #expect(run.lines.last == "owner-returned", "\(run.output)")
    }

    @Test("an idle MainLoop sleeps in poll: it acknowledges each wake-up instead of seeing it forever")
    func idleLoopDoesNotSpin() async throws {
        let run = try await Probe.run("idle")
        let line = try #require(run.lines.first { $0.hasPrefix("idle-wakeups ") }, "\(run.output)")
        let wakeups = try #require(Int(line.dropFirst("idle-wakeups ".count)))
        // Two pieces of work and a stop: a handful of wake-ups. A loop that drained without reading the eventfd
        // wakes thousands of times in the 300 ms.
        #expect(wakeups < 20, "\(run.output)")
    }

    @Test("WorkQueue.main items, DispatchQueue.main blocks and @MainActor jobs enqueued in turn from one thread run in that order")
    func mainQueueOrder() async throws {
        let run = try await Probe.run("order")
        #expect(run.status == 0, "\(run.output)")
        #expect(run.lines.contains("order ran=6000 out-of-order=0"), "\(run.output)")
    }

    @Test("a WorkQueue.main item never waits behind DispatchQueue.main blocks enqueued after it")
    func mainQueueFairness() async throws {
        let run = try await Probe.run("flood")
        #expect(run.status == 0, "\(run.output)")
        #expect(run.lines.contains("flood items=20 blocks-before-items=0"), "\(run.output)")
    }

    @Test("under dispatchMain() the same work runs serially, but on a worker thread (why MainLoop exists)")
    func dispatchMainLosesTheMainThread() async throws {
        let run = try await Probe.run("dispatchmain")
        #expect(run.status == 1, "\(run.output)")
        for kind in Self.kinds { #expect(run.lines.contains("\(kind) main=false"), "\(kind): \(run.output)") }
    }
}

/// Starts `lanes-main-probe` (built beside the test bundle) and collects its output, killing it after a deadline.
enum Probe {
    struct Run {
        var status: Int32
        var output: String
        var lines: [String] { output.split(separator: "\n").map(String.init) }
    }

    struct NotBuilt: Error, CustomStringConvertible {
        var path: String
        var description: String { "lanes-main-probe not found at \(path): run `swift build --build-tests` first" }
    }

    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("lanes-main-probe")
    }

    static func run(_ loop: String, deadline: DispatchTimeInterval = .seconds(60)) async throws -> Run {
        var url = executable
        if !FileManager.default.isExecutableFile(atPath: url.path) {
            // `swift test` may run the bundle from inside `LanesPackageTests.xctest/Contents/MacOS` on Darwin.
            url = url.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("lanes-main-probe")
        }
        guard FileManager.default.isExecutableFile(atPath: url.path) else { throw NotBuilt(path: url.path) }
        let process = Process()
        process.executableURL = url
        process.arguments = [loop]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + deadline) { [process] in
                if process.isRunning { process.terminate() }
            }
        }
        let data = await onDedicatedThread { pipe.fileHandleForReading.readDataToEndOfFile() }
        return Run(status: status, output: String(decoding: data, as: UTF8.self))
    }
}
