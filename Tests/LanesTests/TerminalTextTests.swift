import Foundation
import Lanes
import LanesAppSupport
import LanesTesting
import Testing

@Suite("Terminal text", .timeLimit(.minutes(5)))
struct TerminalTextTests {
    /// Whether `text` holds anything a terminal would act on.
    private func hasControls(_ text: String) -> Bool {
        text.unicodeScalars.contains { TerminalText.isUnsafe($0) }
    }

    @Test("escape sequences, C0 and C1 controls and bidi overrides are shown escaped, nothing else changes")
    func sanitizes() {
        #expect(TerminalText.sanitized("date,\u{1B}]0;PWNED\u{07}\u{1B}[31mEVIL") == #"date,\e]0;PWNED\x07\e[31mEVIL"#)
        #expect(TerminalText.sanitized("a\tb\r\nc\u{0}\u{7F}") == #"a\tb\r\nc\x00\x7F"#)
        #expect(TerminalText.sanitized("\u{9B}2J x\u{202E}gnp.exe\u{2028}") == #"\u{9B}2J x\u{202E}gnp.exe\u{2028}"#)
        for plain in ["AAPL", "株式会社", "e\u{301}", "🚀 ünïcödé \\e", ""] {
            #expect(TerminalText.sanitized(plain) == plain)
        }
        let hostile = String(decoding: (0...0xFF).map { UInt8($0) }, as: UTF8.self) + "\u{85}\u{9B}\u{202D}\u{2066}"
        #expect(!hasControls(TerminalText.sanitized(hostile)))
        #expect(TerminalText.replacingControls("x\u{1B}]0;t\u{07}.png", with: "_") == "x_]0;t_.png")
    }

    @Test("display width: CJK and fullwidth 2, combining marks 0, emoji 2, ASCII 1")
    func widths() {
        #expect(TerminalText.displayWidth("AAPL") == 4)
        #expect(TerminalText.displayWidth("株式会社") == 8)
        #expect(TerminalText.displayWidth("ＡＢ") == 4)
        #expect(TerminalText.displayWidth("한국") == 4)
        #expect(TerminalText.displayWidth("e\u{301}") == 1)
        #expect(TerminalText.displayWidth("a\u{308}\u{323}bc") == 3)
        #expect(TerminalText.displayWidth("e\u{301}東京") == 5)
        #expect(TerminalText.displayWidth("🚀") == 2)
        #expect(TerminalText.displayWidth("👍🏽") == 2)
        #expect(TerminalText.displayWidth("❤\u{FE0F}") == 2)
        #expect(TerminalText.displayWidth("\u{200B}") == 0)
        #expect(TerminalText.displayWidth("\u{1B}") == 2)  // counted as its escape, \e
    }

    @Test("truncating and padding go by display width and never split a wide character")
    func truncateAndPad() {
        #expect(TerminalText.truncated("株式会社", toWidth: 5) == "株式…")
        #expect(TerminalText.truncated("株式会社", toWidth: 8) == "株式会社")
        #expect(TerminalText.truncated("Consumer Discretionary", toWidth: 10) == "Consumer …")
        #expect(TerminalText.truncated("e\u{301}e\u{301}e\u{301}", toWidth: 3) == "e\u{301}e\u{301}e\u{301}")
        #expect(TerminalText.padded("株式", toWidth: 6) == "株式  ")
        #expect(TerminalText.padded("12.50", toWidth: 8, alignment: .right) == "   12.50")
        #expect(TerminalText.padded("株式会社X", toWidth: 8) == "株式会… ")
        for width in 0...12 {
            for text in ["株式会社ABC", "a\u{301}b\u{301}c\u{301}d", "x\u{1B}]0;y\u{07}z", "🚀🚀🚀🚀🚀🚀🚀"] {
                #expect(TerminalText.displayWidth(TerminalText.padded(text, toWidth: width)) == width)
                #expect(TerminalText.displayWidth(TerminalText.truncated(text, toWidth: width)) <= width)
            }
        }
    }

    @Test("a trace path is checked before the run: a missing folder or a folder as the file is refused")
    func traceOutputCheck() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lanes-trace-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(TraceRecorder.unwritableReason(for: folder.appendingPathComponent("t.json")) == nil)
        #expect(TraceRecorder.unwritableReason(for: folder) == "it is a folder")
        let missing = folder.appendingPathComponent("no/such/t.json")
        #expect(TraceRecorder.unwritableReason(for: missing)?.hasPrefix("no folder") == true)
    }

    @Test("hitches a monitor reports reach the trace as intervals on a hitches track")
    func hitchesInTrace() throws {
        let clock = VirtualClock()
        let manual = ManualExecutor()
        let ui = WorkQueue("trace-hitch-ui", maxConcurrency: 1, executor: manual)
        let monitor = ResponsivenessMonitor(target: ui, interval: .milliseconds(10), clock: clock)
        let trace = TraceRecorder()
        trace.recordHitches(from: monitor)
        monitor.start()
        defer { monitor.stop() }
        clock.advance(by: .milliseconds(10))
        manual.runAll()
        ui.add(label: "decode thumbnails") { _ in clock.advance(by: .milliseconds(50)) }
        manual.runAll()
        #expect(monitor.snapshot().hitches == 1)

        let root = try #require(try JSONSerialization.jsonObject(with: trace.jsonData()) as? [String: Any])
        let events = try #require(root["traceEvents"] as? [[String: Any]])
        let hitches = events.filter { $0["cat"] as? String == "hitch" }
        #expect(hitches.count == 1)
        let name = hitches.first?["name"] as? String ?? ""
        #expect(name.hasPrefix("hitch 50") && name.hasSuffix("in 'decode thumbnails'"))
        #expect(hitches.first?["dur"] as? Double == 50_000 || hitches.first?["dur"] as? Int == 50_000)
        let tracks = events.filter { $0["ph"] as? String == "M" }.compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
        #expect(tracks.contains("trace-hitch-ui hitches"))
    }

    @Test("a stall past 250 ms reaches the trace as a hang")
    func hangsInTrace() throws {
        let clock = VirtualClock()
        let manual = ManualExecutor()
        let ui = WorkQueue("trace-hang-ui", maxConcurrency: 1, executor: manual)
        let monitor = ResponsivenessMonitor(target: ui, interval: .milliseconds(10), clock: clock)
        let trace = TraceRecorder()
        trace.recordHitches(from: monitor)
        monitor.start()
        defer { monitor.stop() }
        ui.add(label: "load everything") { _ in clock.advance(by: .milliseconds(300)) }
        manual.runAll()
        #expect(monitor.snapshot().hangs == 1)

        let root = try #require(try JSONSerialization.jsonObject(with: trace.jsonData()) as? [String: Any])
        let events = try #require(root["traceEvents"] as? [[String: Any]])
        let hangs = events.filter { $0["cat"] as? String == "hang" }
        #expect(hangs.count == 1)
        let name = hangs.first?["name"] as? String ?? ""
        #expect(name.hasPrefix("hang 300"))
        #expect(events.filter { $0["cat"] as? String == "hitch" }.isEmpty)
    }
}
