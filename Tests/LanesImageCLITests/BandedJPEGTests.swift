import Foundation
@testable import lanes_image
import LanesImages
import LanesTesting
import Testing

/// JPEG outputs of banded jobs stream band by band into the temporary file: the same bytes as the whole-bitmap
/// encoder, memory that does not grow with the height, and nothing left behind on a failure.
@Suite("lanes-image JPEG outputs in bands", .timeLimit(.minutes(5)), .heavy)
struct BandedJPEGTests {
    /// A 333 x 217 RGBA PNG with some transparency (odd sizes: no band, MCU or 16-row group divides them).
    static func translucentPNG(in folder: TemporaryFolder, width: Int = 333, height: Int = 217) throws -> URL {
        let pixels = (0..<(width * height * 4)).map { i -> UInt8 in
            i % 4 == 3 ? (i / 4 % 7 == 0 ? 0 : 255) : UInt8(truncatingIfNeeded: (i &* 2_654_435_761) >> 9)
        }
        let url = folder.url.appendingPathComponent("in-\(width)x\(height).png")
        try ImageEncoder().encode(Bitmap(width: width, height: height, pixels: pixels), as: .png(compressionLevel: 1))
            .write(to: url)
        return url
    }

    static func job(_ input: URL, out: URL) -> ImageJob {
        InputList.jobs(for: [(input, input.lastPathComponent)], outputDirectory: out, fileExtension: "jpeg")[0]
    }

    @Test(arguments: ["blur", "tilt-shift", "resize", "resize+blur"], [false, true])
    func bandedJPEGEqualsTheWholeBitmapEncoder(steps: String, optimized: Bool) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try Self.translucentPNG(in: folder)
        var plan = ProcessingPlan()
        plan.format = .jpeg
        plan.quality = 88
        plan.background = RGBA(red: 0, green: 80, blue: 160)
        plan.optimizedJPEG = optimized
        if steps.contains("blur") { plan.blurSigma = 3 }
        if steps.contains("tilt") { plan.tiltShift = true }
        if steps.contains("resize") { plan.resize = ResizeSpec(parsing: "101x") }
        let job = Self.job(input, out: folder.url)
        let run = try #require(try BandedWrite.prepare(job, plan: plan, maxPixels: 1 << 26, isCancelled: { false }))
        var reported: [Int] = []
        let written = try run.write(to: job.output) { reported.append($0) }
        // What the whole path did before: every row into one bitmap, then the whole encoder.
        let again = try #require(try BandedWrite.prepare(job, plan: plan, maxPixels: 1 << 26, isCancelled: { false }))
        let whole = try ImageEncoder().encode(Bitmap(readingAllRowsOf: again.chain), as: plan.encoderFormat)
        let bytes = try Data(contentsOf: job.output)
        #expect(bytes == whole)
        #expect(written.bytes == bytes.count && written.width == run.chain.width && written.height == run.chain.height)
        #expect(reported.last == written.height && reported == reported.sorted()) // progress by rows, to the end
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
                == [input.lastPathComponent, job.output.lastPathComponent].sorted()) // no temporary file left
    }

    @Test func theReservationHoldsRowsNotTheImage() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var plan = ProcessingPlan()
        plan.format = .jpeg
        plan.blurSigma = 2
        var held: [Int] = []
        for height in [300, 3000] {
            let input = try Self.translucentPNG(in: folder, width: 200, height: height)
            let run = try #require(try BandedWrite.prepare(Self.job(input, out: folder.url), plan: plan,
                                                           maxPixels: 1 << 26, isCancelled: { false }))
            held.append(run.heldBytes)
        }
        #expect(held[0] == held[1])        // the same for 300 and 3000 rows
        #expect(held[1] < 200 * 3000 * 4)  // far below the output bitmap the whole path held
        plan.optimizedJPEG = true          // optimal tables: libjpeg holds every coefficient
        let input = try Self.translucentPNG(in: folder, width: 200, height: 3000)
        let optimized = try #require(try BandedWrite.prepare(Self.job(input, out: folder.url), plan: plan,
                                                             maxPixels: 1 << 26, isCancelled: { false }))
        #expect(optimized.heldBytes > held[1] + 200 * 3000 * 3)
    }

    @Test func failuresLeaveNoTemporaryFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var plan = ProcessingPlan()
        plan.format = .jpeg
        plan.blurSigma = 2
        // A destination folder that does not exist: a write error, nothing created.
        let input = try Self.translucentPNG(in: folder)
        let run = try #require(try BandedWrite.prepare(Self.job(input, out: folder.url), plan: plan, maxPixels: 1 << 26,
                                                       isCancelled: { false }))
        #expect(throws: (any Error).self) { _ = try run.write(to: folder.url.appendingPathComponent("gone/out.jpeg")) }
        // A truncated input fails mid-image, after the encoder has written part of the file: it is removed.
        let data = try Data(contentsOf: input)
        let truncated = folder.url.appendingPathComponent("cut.png")
        try data.prefix(data.count * 2 / 3).write(to: truncated)
        let out = folder.url.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let cut = try #require(try BandedWrite.prepare(Self.job(truncated, out: out), plan: plan, maxPixels: 1 << 26,
                                                       isCancelled: { false }))
        #expect(throws: ImageError.truncated) { _ = try cut.write(to: out.appendingPathComponent("cut.jpeg")) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == [])
    }

    /// Forks, runs the command in the child (output to /dev/null), prints its exit code and wait4's ru_maxrss (KB).
    static let peakScript = """
        import os, sys
        pid = os.fork()
        if pid == 0:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.execv(sys.argv[1], sys.argv[1:])
        _, status, usage = os.wait4(pid, 0)
        print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
        """

    /// The peak resident set of `binary ARGS` and its exit status. Through a small Python parent: a child spawned
    /// straight from this process (vfork, then exec) inherits this process's high-water mark in its ru_maxrss.
    static func peakResidentBytes(_ binary: URL, _ arguments: [String], in folder: URL) async throws
        -> (status: Int32, bytes: Int) {
        let python = try #require(IndependentDecoders.tool("python3"), "python3 is needed (scripts/test-tools)")
        let result = try await IndependentDecoders.run(python, ["-c", peakScript, binary.path] + arguments, in: folder)
        let fields = String(decoding: result.output, as: UTF8.self).split(whereSeparator: \.isWhitespace)
            .compactMap { Int($0) }
        try #require(result.status == 0 && fields.count == 2, "the peak script failed: \(result.errors)")
        return (Int32(fields[0]), fields[1] * 1024)
    }

    /// A blur of a tall JPEG to JPEG peaks within a few MB of the same blur of a short one: the rows stream. (The whole
    /// path held the 2000 x 4000 output bitmap, 32 MB, and libjpeg's coefficients, 24 MB, on top.)
    @Test func peakMemoryDoesNotGrowWithTheHeight() async throws {
        let binary = try #require(InterruptTests.binary, "build lanes-image first (swift build --build-tests)")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var peaks: [Int] = []
        for height in [500, 4000] {
            let stripe = (0..<(2000 * 4)).map { UInt8(truncatingIfNeeded: $0 &* 37 >> 3) }
            var pixels: [UInt8] = []
            pixels.reserveCapacity(stripe.count * height)
            for y in 0..<height { // each row the stripe shifted by a pixel: something for the blur and the DCT to do
                let cut = (y * 4) % stripe.count
                pixels.append(contentsOf: stripe[cut...])
                pixels.append(contentsOf: stripe[..<cut])
            }
            let bitmap = Bitmap(width: 2000, height: height, pixels: pixels)
            let input = folder.url.appendingPathComponent("h\(height).jpg")
            try ImageEncoder().encode(bitmap, as: .jpeg(quality: 80, optimizedCoding: false)).write(to: input)
            let (status, peak) = try await Self.peakResidentBytes(binary, [
                "process", input.path, "--blur", "1", "--format", "jpeg", "--threads", "1", "--progress", "lines",
                "--out", folder.url.appendingPathComponent("out").path], in: folder.url)
            #expect(status == 0)
            peaks.append(peak)
        }
        #expect(peaks[1] - peaks[0] < 12 << 20, "peak RSS \(peaks[0] >> 20) MB for 500 rows, \(peaks[1] >> 20) MB for 4000")
    }
}
