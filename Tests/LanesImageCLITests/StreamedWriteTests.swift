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

@Suite("lanes-image streamed blur + PNG", .timeLimit(.minutes(5)), .heavy)
struct StreamedWriteTests {
    @Test func onlyASingleBlurOrTiltShiftToPNGStreams() {
        var plan = ProcessingPlan()
        #expect(plan.streamingProcessor == nil)
        plan.blurSigma = 3
        #expect(plan.streamingProcessor is GaussianBlur)
        #expect(plan.decodeOnly.processors.isEmpty)
        plan.greyscale = true
        #expect(plan.streamingProcessor == nil)
        plan.greyscale = false
        plan.format = .jpeg
        #expect(plan.streamingProcessor == nil)
        var tilt = ProcessingPlan()
        tilt.tiltShift = true
        #expect(tilt.streamingProcessor is TiltShift)
    }

    @Test(arguments: [false, true])
    func streamedOutputEqualsBlurThenEncode(tiltShift: Bool) async throws {
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
        #expect(loader.processorCounts.withLock { $0 } == [0]) // decoded only; the blur ran beside the encoder
        let expected = try ProcessorChain(plan.processors).process(ProcessingLoader.source)
        let written = try Data(contentsOf: folder.url.appendingPathComponent("noise.png"))
        #expect(written == (try ImageEncoder().encode(expected, as: plan.encoderFormat)))
        // No temporary file is left beside the output.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["noise.png"])
    }

    @Test func aMissingFolderIsAWriteError() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var plan = ProcessingPlan()
        plan.blurSigma = 1
        let url = folder.url.appendingPathComponent("gone/out.png")
        #expect(throws: WriteError.self) {
            _ = try processAndWritePNG(ProcessingLoader.source, with: GaussianBlur(sigma: 1), plan: plan, to: url,
                                       isCancelled: { false })
        }
    }

    @Test func cancellationLeavesNoFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let url = folder.url.appendingPathComponent("out.png")
        #expect(throws: ImageError.cancelled) {
            _ = try processAndWritePNG(ProcessingLoader.source, with: GaussianBlur(sigma: 1), plan: ProcessingPlan(),
                                       to: url, isCancelled: { true })
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }
}
