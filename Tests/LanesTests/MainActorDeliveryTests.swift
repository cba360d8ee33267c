import Lanes
import LanesTesting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The toolkit's main-actor deliveries: each runs a `@MainActor` handler on the main queue. The handlers record what
/// they saw and whether they ran on the main queue; a handler that ran anywhere else would fail the `onMainQueue`
/// expectation (and would not compile if it touched main-actor state from a `@Sendable` closure).
@Suite("Main-actor deliveries of the toolkit", .timeLimit(.minutes(5)))
struct MainActorDeliveryTests {
    /// Main-actor state that the handlers mutate, as a view would.
    @MainActor final class Screen {
        var shown: [String] = []
    }

    @Test("LaneTimer.afterOnMain and everyOnMain run their main-actor actions on the main queue")
    func timers() async throws {
        let clock = VirtualClock()
        let screen = Screen()
        let seen = Recorder<String>()
        LaneTimer.afterOnMain(.seconds(2), clock: clock) {
            screen.shown.append("toast hidden")
            seen.append("after main=\(MainQueue.isCurrent)")
        }
        let tick = LaneTimer.everyOnMain(.seconds(1), clock: clock) {
            screen.shown.append("tick")
            seen.append("every main=\(MainQueue.isCurrent)")
        }
        clock.advance(by: .seconds(1))
        try await waitUntil("the first tick") { seen.elements.count == 1 }
        clock.advance(by: .seconds(1))
        try await waitUntil("the toast and the second tick") { seen.elements.count == 3 }
        tick.cancel()
        clock.advance(by: .seconds(5))
        #expect(Set(seen.elements) == ["after main=true", "every main=true"])
        #expect(tick.fireCount == 2)
        let shown = await screen.shown
        #expect(shown.filter { $0 == "tick" }.count == 2 && shown.contains("toast hidden"))
    }

    @Test("a debouncer and a throttler built with onMain deliver on the main queue")
    func debounceAndThrottle() async throws {
        let clock = VirtualClock()
        let screen = Screen()
        let seen = Recorder<String>()
        let search = Debouncer<String>(interval: .milliseconds(300), clock: clock, onMain: { query in
            screen.shown.append(query)
            seen.append("debounced \(query) main=\(MainQueue.isCurrent)")
        })
        search.send("s")
        search.send("swift")
        clock.advance(by: .milliseconds(300))
        try await waitUntil("the debounced value") { seen.elements.count == 1 }
        #expect(seen.elements == ["debounced swift main=true"])

        let meter = Throttler<Int>(interval: .milliseconds(100), edges: .leading, clock: clock, onMain: { level in
            screen.shown.append("level \(level)")
            seen.append("throttled \(level) main=\(MainQueue.isCurrent)")
        })
        meter.send(1)
        meter.send(2)  // inside the interval: dropped in the leading-only mode
        try await waitUntil("the leading value") { seen.elements.count == 2 }
        #expect(seen.elements.last == "throttled 1 main=true")
        #expect(await screen.shown == ["swift", "level 1"])
    }

    @Test("ReadabilitySource(onMain:) reads on the main queue and cancels itself at end of file")
    func readability() async throws {
        var ends: [Int32] = [0, 0]
        let status = ends.withUnsafeMutableBufferPointer { pipe($0.baseAddress!) }
        #expect(status == 0)
        let (reader, writer) = (ends[0], ends[1])
        let seen = Recorder<String>()
        let source = ReadabilitySource(fileDescriptor: reader, label: "keys", closeOnCancel: true, onMain: { readable in
            switch readable.read() {
            case .bytes(let bytes): seen.append("bytes \(bytes.count) main=\(MainQueue.isCurrent)")
            case .endOfFile: seen.append("eof main=\(MainQueue.isCurrent)")
            default: break
            }
        })
        let bytes: [UInt8] = Array("hello".utf8)
        #expect(bytes.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) } == 5)
        try await waitUntil("the bytes") { seen.elements.count == 1 }
        close(writer)
        try await waitUntil("end of file") { seen.elements.count == 2 }
        #expect(seen.elements == ["bytes 5 main=true", "eof main=true"])
        try await waitUntil("the source cancels itself") { source.isCancelled }
    }

    @Test("onMainHitch hands each hitch to a main-actor handler on the main queue")
    func hitches() async throws {
        let clock = VirtualClock()
        let manual = ManualExecutor()
        let ui = WorkQueue("main-actor-hitch-ui", maxConcurrency: 1, executor: manual)
        let monitor = ResponsivenessMonitor(
            target: ui, interval: .milliseconds(10), threshold: .milliseconds(16), clock: clock)
        let screen = Screen()
        let seen = Recorder<String>()
        monitor.onMainHitch { hitch in
            screen.shown.append(hitch.label ?? "?")
            seen.append("\(hitch.label ?? "?") main=\(MainQueue.isCurrent)")
        }
        monitor.start()
        defer { monitor.stop() }
        clock.advance(by: .milliseconds(10))
        manual.runAll()
        ui.add(label: "decode thumbnails") { _ in clock.advance(by: .milliseconds(50)) }
        manual.runAll()
        try await waitUntil("the hitch") { seen.elements.count == 1 }
        #expect(seen.elements == ["decode thumbnails main=true"])
        #expect(await screen.shown == ["decode thumbnails"])
    }
}

/// Signals reach a process's threads according to their signal masks, which `swift test` starts blocked; the test
/// runs a child (`lanes-main-probe signal`), as an app would: a source made on the main thread under `MainLoop`.
@Suite("Signal sources", .timeLimit(.minutes(5)))
struct SignalSourceTests {
    @Test("a signal reaches a main-actor handler on the main thread of a MainLoop app")
    func deliversOnMain() async throws {
        let run = try await Probe.run("signal")
        #expect(run.status == 0, "\(run.output)")
        #expect(run.lines.contains("signal usr1 main=true"), "\(run.output)")
        #expect(run.lines.contains("cancelled true"), "\(run.output)")
    }
}
