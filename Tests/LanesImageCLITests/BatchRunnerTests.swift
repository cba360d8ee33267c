import Foundation
import Lanes
@testable import lanes_image
import LanesImages
import LanesTesting
import Testing

/// Hands out a fixed bitmap, or fails for sources whose name contains "bad".
struct FakeLoader: BitmapLoading {
    func bitmap(for job: ImageJob, plan: ProcessingPlan) async throws -> Bitmap {
        if job.source.lastPathComponent.contains("bad") {
            throw ImageError.corrupt("PNG: bad CRC")
        }
        return Bitmap(width: 3, height: 2, filledWith: RGBA(red: 10, green: 20, blue: 30))
    }
}

@Suite("lanes-image batch runs", .timeLimit(.minutes(5)), .heavy)
struct BatchRunnerTests {
    @Test func reasonDropsTheInputPrefix() {
        let file = ImageJob(source: URL(fileURLWithPath: "/in/a.png"), displayName: "a.png",
                            output: URL(fileURLWithPath: "/out/a.png"))
        #expect(BatchRunner.reason("/in/a.png: no such file or folder", for: file) == "no such file or folder")
        #expect(BatchRunner.reason("file:///in/a.png: truncated", for: file) == "truncated")
        #expect(BatchRunner.reason("something else: x", for: file) == "something else: x")
        let remote = ImageJob(source: URL(string: "https://example.com/b.jpg")!, displayName: "b",
                              output: URL(fileURLWithPath: "/out/b.png"))
        #expect(BatchRunner.reason("https://example.com/b.jpg: HTTP 404", for: remote) == "HTTP 404")
        #expect(BatchRunner.size(999) == "999 B" && BatchRunner.size(12_345) == "12 KB"
                && BatchRunner.size(12_345_678) == "12 MB")
    }

    @Test func runWritesOutputsKeepsExistingFilesAndReportsFailures() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let out = folder.url.appendingPathComponent("out", isDirectory: true)
        let existing = try folder.file("out/rocket.png", contents: "keep me")
        let sources = [(URL(fileURLWithPath: "/in/rocket.png"), "rocket.png"),
                       (URL(fileURLWithPath: "/in/bad.png"), "bad.png")]
        let jobs = InputList.jobs(for: sources, outputDirectory: out, fileExtension: "png")
        let lines = LockedValue<[String]>([])
        let runner = BatchRunner(plan: ProcessingPlan(), loader: FakeLoader(),
                                 encoders: WorkQueue("test encode", maxConcurrency: 1), concurrency: 2,
                                 progress: ProgressReporter(interactive: false, write: { line in lines.withLock { $0.append(line) } }))
        let results = await runner.run(jobs)

        #expect(try String(contentsOf: existing, encoding: .utf8) == "keep me")
        let written = out.appendingPathComponent("rocket-1.png")
        #expect(try ImageDecoder().decode(Data(contentsOf: written)) == Bitmap(width: 3, height: 2,
                                                                              filledWith: RGBA(red: 10, green: 20, blue: 30)))
        #expect(results.map(\.failed) == [false, true])
        #expect(results[1].detail == "image data is corrupt: PNG: bad CRC")
        #expect(lines.withLock { $0.count } == 2)

        let summary = ProcessCommand.summary(results, outputDirectory: out, seconds: 0.5, plan: ProcessingPlan())
        #expect(summary.contains("1 of 2 written"))
        #expect(summary.contains("1 renamed to keep an existing file (--overwrite replaces them):\n  rocket.png → rocket-1.png"))
        #expect(summary.contains("1 failed:\n  bad.png: image data is corrupt: PNG: bad CRC"))
    }
}
