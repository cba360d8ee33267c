import Foundation
import Lanes
@testable import lanes_image
import LanesImages
import LanesTesting
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The progress bar moves while files are in flight and its line is closed on an interrupt. The reporter is fed
/// events with a virtual clock; the interrupt test runs the CLI binary.
@Suite("lanes-image progress", .serialized, .timeLimit(.minutes(5)), .heavy)
struct ProgressReporterTests {
    /// A reporter drawing the bar into `frames`, on a clock the test moves.
    final class Harness: Sendable {
        let frames = LockedValue<[String]>([])
        let now = LockedValue(100.0)
        let reporter: ProgressReporter

        init() {
            let frames = frames, now = now
            reporter = ProgressReporter(interactive: true, clock: { now.withLock { $0 } },
                                        write: { text in frames.withLock { $0.append(text) } })
        }

        func advance(by seconds: Double) { now.withLock { $0 += seconds } }
        var last: String { frames.withLock { $0.last ?? "" } }
        var count: Int { frames.withLock { $0.count } }
    }

    static func job(_ name: String) -> ImageJob {
        ImageJob(source: URL(fileURLWithPath: "/in/\(name)"), displayName: name,
                 output: URL(fileURLWithPath: "/out/\(name)"))
    }

    /// Seeded noise with varying alpha, made quickly (one word at a time).
    static func noiseBitmap(side: Int) -> Bitmap {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let words = (0..<(side * side)).map { _ -> UInt32 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt32(truncatingIfNeeded: state >> 32)
        }
        return Bitmap(width: side, height: side, pixels: words.withUnsafeBytes { Array($0) })
    }

    /// Filled cells of the last bar drawn.
    static func filled(_ frame: String) -> Int { frame.filter { $0 == "█" }.count }

    @Test func theBarFillsWithRowsOfFilesInFlight() {
        let harness = Harness()
        let (a, b) = (Self.job("a.png"), Self.job("b.png"))
        harness.reporter.begin(total: 2)
        harness.reporter.started(a)
        harness.reporter.started(b)
        #expect(Self.filled(harness.last) == 0)
        harness.advance(by: 0.2)
        harness.reporter.advanced(a, fraction: 0.5)   // a quarter of the batch: 6 of 24 cells
        #expect(Self.filled(harness.last) == 6)
        #expect(harness.last.contains(" 0/2"))
        harness.advance(by: 0.2)
        harness.reporter.advanced(b, fraction: 0.5)
        #expect(Self.filled(harness.last) == 12)
        harness.advance(by: 0.2)
        harness.reporter.finished(a, failed: false, detail: "ok")   // a counts whole, b still half
        #expect(Self.filled(harness.last) == 18)
        #expect(harness.last.contains(" 1/2"))
    }

    @Test func partialProgressRedrawsAtMostTenTimesASecond() {
        let harness = Harness()
        let a = Self.job("a.png")
        harness.reporter.begin(total: 1)
        harness.reporter.started(a)
        let before = harness.count
        for row in 1...50 {
            harness.advance(by: 0.001)
            harness.reporter.advanced(a, fraction: Double(row) / 100)
        }
        #expect(harness.count == before)   // 50 ms of rows: nothing redrawn yet
        harness.advance(by: 0.1)
        harness.reporter.advanced(a, fraction: 0.75)
        #expect(harness.count == before + 1)
        #expect(Self.filled(harness.last) == 18)
    }

    @Test func theClockMovesWithoutEvents() {
        let harness = Harness()
        harness.reporter.begin(total: 3)
        harness.reporter.started(Self.job("big.png"))
        #expect(harness.last.contains("0.0 s"))
        harness.advance(by: 3.26)
        harness.reporter.tick()
        #expect(harness.last.contains("3.3 s"))
        #expect(harness.last.contains("big.png"))
    }

    @Test func closingEndsTheLineAndNothingIsDrawnAfter() {
        let harness = Harness()
        let a = Self.job("a.png")
        harness.reporter.begin(total: 1)
        harness.reporter.started(a)
        #expect(harness.reporter.close())
        #expect(harness.last == "\r\u{1B}[2K\u{1B}[0m\u{1B}[?25h")
        let count = harness.count
        harness.advance(by: 1)
        harness.reporter.tick()
        harness.reporter.advanced(a, fraction: 0.9)
        harness.reporter.finished(a, failed: false, detail: "ok")
        harness.reporter.end()
        #expect(harness.count == count)
        #expect(!harness.reporter.close())   // once

        let lines = LockedValue<[String]>([])
        let plain = ProgressReporter(interactive: false, write: { text in lines.withLock { $0.append(text) } })
        plain.begin(total: 1)
        plain.started(a)
        plain.advanced(a, fraction: 0.5)
        plain.tick()
        #expect(!plain.close())
        #expect(lines.withLock { $0 }.isEmpty)   // no bar, no escapes, when stderr is not a terminal
    }

    /// Ctrl-C while a file is half written: the bar had advanced before the file finished, and the terminal output
    /// ends with the bar's line cleared, attributes reset, the cursor shown, then the message on a line of its own.
    @Test func anInterruptClosesTheBarsLine() async throws {
        let binary = try #require(InterruptTests.binary, "build lanes-image first (swift build --build-tests)")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let side = 1200
        let image = try ImageEncoder().encode(Self.noiseBitmap(side: side), as: .png(compressionLevel: 1, filter: .none))
        let input = folder.url.appendingPathComponent("in.png"), second = folder.url.appendingPathComponent("in2.png")
        try image.write(to: input)
        try image.write(to: second)
        let process = Process()
        process.executableURL = binary
        process.arguments = ["process", input.path, second.path, "--blur", "20", "--concurrency", "1", "--threads", "1",
                             "--progress", "bar", "--out", folder.url.appendingPathComponent("out").path]
        let errors = folder.url.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // The gate: a bar showing part of the first file done while it is still in flight ("0/2" and a filled cell).
        let sawPartial = await onDedicatedThread { () -> Bool in
            let deadline = Date().addingTimeInterval(240)
            func partial() -> Bool {
                let text = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
                return text.components(separatedBy: "\r").contains { $0.contains(" 0/2") && $0.contains("█") }
            }
            while !partial(), process.isRunning, Date() < deadline {
                usleep(2_000)  // polling interval, not a wait for an event
            }
            let seen = partial()
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            return seen
        }
        let output = try String(contentsOf: errors, encoding: .utf8)
        #expect(sawPartial, "the bar never advanced before the first file finished: \(output.suffix(300).debugDescription)")
        #expect(process.terminationStatus == 130)
        let closing = "\r\u{1B}[2K\u{1B}[0m\u{1B}[?25h"
        let end = try #require(output.range(of: closing, options: .backwards), "the bar's line was never closed")
        let after = String(output[end.upperBound...])
        #expect(after.hasPrefix("lanes-image: interrupted"))
        #expect(after.hasSuffix("\n"))
        #expect(!after.contains("\r") && !after.contains("\u{1B}"), "the bar was drawn after it was closed")
    }
}
