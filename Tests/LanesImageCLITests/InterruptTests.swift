import ArgumentParser
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

/// An interrupted run leaves nothing behind, and an output folder that cannot be written is refused before any work.
@Suite("lanes-image interrupted runs and unwritable folders", .serialized, .timeLimit(.minutes(5)), .heavy)
struct InterruptTests {
    /// The built `lanes-image` beside the test bundle (nil when it was not built).
    static let binary: URL? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("lanes-image")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    /// The hidden temporary files in `folder`.
    static func temporaryFiles(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".tmp") }
    }

    @Test(arguments: [(SIGINT, "png"), (SIGTERM, "png"), (SIGINT, "jpeg")])
    func aSignalMidWriteRemovesTheTemporaryFiles(signalNumber: Int32, format: String) async throws {
        let binary = try #require(Self.binary, "build lanes-image first (swift build --build-tests)")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Big enough that a blur of it runs for a while with its temporary file open (a ThreadSanitizer build of
        // lanes-image blurs several times slower: half the side does).
        let side = TestScale.pick(2400, sanitized: 1200)
        let image = try ImageEncoder().encode(Bitmap(width: side, height: side,
                                                     pixels: (0..<(side * side * 4)).map { UInt8(truncatingIfNeeded: $0 &* 7) }),
                                              as: .png(compressionLevel: 1, filter: .none))
        let inputs = try (0..<4).map { index in
            let url = folder.url.appendingPathComponent("in\(index).png")
            try image.write(to: url)
            return url.path
        }
        let out = folder.url.appendingPathComponent("out")
        let process = Process()
        process.executableURL = binary
        process.arguments = ["process"] + inputs + ["--blur", "30", "--concurrency", "2", "--threads", "1",
                                                    "--format", format, "--out", out.path]
        let errors = folder.url.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Wait (polling, with a deadline) until a temporary output exists: the run is mid-write. The waiting is done
        // on a thread of its own, so this test never holds one of the cooperative pool's threads while it blocks.
        let sawTemporary = await onDedicatedThread { () -> Bool in
            let deadline = Date().addingTimeInterval(120)
            while Self.temporaryFiles(in: out).isEmpty, process.isRunning, Date() < deadline {
                usleep(2_000)  // polling interval, not a wait for an event
            }
            let seen = !Self.temporaryFiles(in: out).isEmpty
            kill(process.processIdentifier, signalNumber)
            process.waitUntilExit()
            return seen
        }
        #expect(sawTemporary, "no temporary file appeared")
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 128 + signalNumber)
        #expect(Self.temporaryFiles(in: out) == [])
        let report = try String(contentsOf: errors, encoding: .utf8)
        #expect(report.contains(signalNumber == SIGINT ? "lanes-image: interrupted" : "lanes-image: terminated"))
        #expect(report.contains("removed"))
    }

    @Test func theRegistryRemovesWhatIsBeingWrittenAndRefusesNewWrites() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let files = LiveTemporaryFiles()
        let target = folder.url.appendingPathComponent("a.png")
        var removed = -1
        #expect(throws: (any Error).self) {
            try files.write(to: target) { temporary in
                try Data("half".utf8).write(to: temporary)
                #expect(files.paths == [temporary.path])
                removed = files.removeAll()  // as the signal handler does
                try files.add(folder.url.appendingPathComponent(".b.tmp"))  // refused: the process is exiting
            }
        }
        #expect(removed == 1)
        #expect(Self.temporaryFiles(in: folder.url) == [])
        #expect(!FileManager.default.fileExists(atPath: target.path))
        #expect(files.paths.isEmpty)
    }

    @Test func anUnwritableOutputFolderIsRefusedBeforeAnyInputIsRead() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let locked = folder.url.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        chmod(locked.path, 0o555)
        defer { chmod(locked.path, 0o755) }
        // Root ignores permission bits: a /proc folder refuses new files whoever asks.
        let out = getuid() == 0 ? "/proc/self/fdinfo" : locked.path
        // The input does not exist: had the run started, it would have failed on that instead.
        let command = try ProcessCommand.parse([folder.url.appendingPathComponent("missing.png").path, "--out", out])
        do {
            try await command.run()
            Issue.record("the run started")
        } catch {
            let message = ProcessCommand.message(for: error)
            #expect(message.contains("the output folder \(out) is not writable"), "\(message)")
        }
    }

    @Test func timeoutAndRetriesBecomeTheFetchPolicy() throws {
        let policy = try ProcessCommand.parse(["http://example.com/a.png", "--timeout", "12", "--retries", "0"]).fetchPolicy
        #expect(policy.deadline == .seconds(12) && policy.timeout == .seconds(12))
        #expect(policy.retry.maxAttempts == 1)
        #expect(policy.maxBytes == ProcessCommand.maxBodyBytes)
        let defaults = try ProcessCommand.parse(["a.png"]).fetchPolicy
        #expect(defaults.deadline == .seconds(120) && defaults.timeout == .seconds(30) && defaults.retry.maxAttempts == 3)
        for bad in [["--timeout", "0"], ["--timeout", "inf"], ["--retries", "-1"]] {
            #expect(throws: (any Error).self) { try ProcessCommand.parse(["a.png"] + bad) }
        }
    }
}
