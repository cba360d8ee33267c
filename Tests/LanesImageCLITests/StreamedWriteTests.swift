import Foundation
import Lanes
@testable import lanes_image
import LanesImages
import LanesTesting
import Testing

/// Hands out a noise bitmap with the plan's processors applied, recording how many it was asked to run.
struct ProcessingLoader: BitmapLoading {
    let processorCounts = LockedValue<[Int]>([])
    static let source = Bitmap(width: 300, height: 40, pixels: (0..<(300 * 40 * 4)).map { i in
        i % 4 == 3 ? 255 : UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 7)
    })

    func bitmap(for job: ImageJob, plan: ProcessingPlan) async throws -> Bitmap {
        processorCounts.withLock { $0.append(plan.processors.count) }
        return try ProcessorChain(plan.processors).process(Self.source)
    }
}

@Suite("lanes-image whole bitmaps through the band encoder", .timeLimit(.minutes(5)), .heavy)
struct StreamedWriteTests {
    /// A job that is not a file (here a loader's bitmap) is processed whole by the loader, and its bitmap's rows go
    /// through the band encoder every output takes: the bytes `encode(_:as:)` makes of it.
    @Test(arguments: [false, true])
    func aLoadedBitmapIsWrittenAsEncodeWritesIt(tiltShift: Bool) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var plan = ProcessingPlan()
        if tiltShift { plan.tiltShift = true } else { plan.blurSigma = 2 }
        let loader = ProcessingLoader()
        let jobs = InputList.jobs(for: [(URL(fileURLWithPath: "/in/noise.png"), "noise.png")],
                                  outputDirectory: folder.url, fileExtension: "png")
        let runner = BatchRunner(plan: plan, loader: loader, encoders: WorkQueue("test encode", maxConcurrency: 1),
                                 concurrency: 1, progress: ProgressReporter(interactive: false, write: { _ in }))
        let results = await runner.run(jobs)

        #expect(results.map(\.failed) == [false])
        #expect(loader.processorCounts.withLock { $0 } == [1])
        let expected = try ProcessorChain(plan.processors).process(ProcessingLoader.source)
        let written = try Data(contentsOf: folder.url.appendingPathComponent("noise.png"))
        #expect(written == (try ImageEncoder().encode(expected, as: plan.encoderFormat)))
        // No temporary file is left beside the output.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["noise.png"])
    }

    @Test func aMissingFolderIsAWriteError() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let url = folder.url.appendingPathComponent("gone/out.png")
        #expect {
            _ = try BandedWrite(bitmap: ProcessingLoader.source, plan: ProcessingPlan()).write(to: url)
        } throws: { error in
            (error as? WriteError)?.path == url.path
        }
    }

    @Test func aFailingRowLeavesNoFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let url = folder.url.appendingPathComponent("out.png")
        var plan = ProcessingPlan()
        plan.format = .jpeg
        #expect(throws: ImageError.self) {
            // A JPEG side beyond libjpeg's limit: the encoder refuses it before any row.
            _ = try BandedWrite(bitmap: Bitmap(width: 70_000, height: 1), plan: plan).write(to: url)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }
}
