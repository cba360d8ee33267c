import Foundation
import Lanes
@testable import lanes_image
import LanesImages
import LanesTesting
import Testing

/// Grey files (grey, grey and alpha, grey JPEG) run in bands: the same output bytes as the whole-bitmap path, grey
/// outputs, and a reservation that does not grow with the height; 16-bit files too, 8-bit rows after a step that makes
/// them 8-bit, 16-bit rows of their stored layout without one.
@Suite("lanes-image grey files in bands", .timeLimit(.minutes(5)), .heavy)
struct BandedGreyTests {
    /// A grey noise file of odd size (no band, MCU or row group divides it); some of it transparent with `alpha`.
    static func greyFile(_ kind: String, in folder: URL, width: Int = 333, height: Int = 217) throws -> URL {
        let pixels = (0..<(width * height * 4)).map { i -> UInt8 in
            i % 4 == 3 ? (i / 4 % 7 == 0 ? 0 : i / 4 % 5 == 0 ? 90 : 255)
                : UInt8(truncatingIfNeeded: ((i / 4) &* 2_654_435_761) >> 9) // the same in r, g, b
        }
        let alpha = kind.contains("alpha")
        let grey = Bitmap(width: width, height: height, pixels: pixels).converted(to: alpha ? .greyAlpha8 : .grey8)
        let jpeg = kind.contains("jpeg")
        let url = folder.appendingPathComponent("\(kind.replacingOccurrences(of: " ", with: "-"))-\(height)."
                                                + (jpeg ? "jpg" : "png"))
        try ImageEncoder().encode(grey, as: jpeg ? .jpeg(quality: 90) : .png(compressionLevel: 1)).write(to: url)
        return url
    }

    /// Runs `plan` on `input` through the batch runner, banded or not; the output's bytes.
    static func output(of input: URL, plan: ProcessingPlan, banded: Bool, in folder: URL) async throws -> Data {
        let out = folder.appendingPathComponent(banded ? "banded" : "whole")
        let jobs = InputList.jobs(for: [(input, input.lastPathComponent)], outputDirectory: out,
                                  fileExtension: plan.format.fileExtension, overwrite: true)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let runner = BatchRunner(plan: plan, loader: PipelineLoader(concurrency: 1, threads: 1, maxPixels: 1 << 26),
                                 encoders: WorkQueue("test encode", maxConcurrency: 1), concurrency: 1,
                                 progress: ProgressReporter(interactive: false, write: { _ in }),
                                 banded: banded ? BandedFiles(maxPixels: 1 << 26, budget: nil) : nil)
        let results = await runner.run(jobs)
        try #require(results.map(\.failed) == [false], "\(results.map(\.detail))")
        return try Data(contentsOf: jobs[0].output)
    }

    @Test(arguments: ["grey png", "grey alpha png", "grey jpeg"], ["png", "jpeg"])
    func bandedOutputEqualsTheWholePath(input kind: String, format: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try Self.greyFile(kind, in: folder.url)
        for steps in ["none", "blur", "tilt-shift", "resize", "resize+blur"] {
            var plan = ProcessingPlan()
            plan.format = OutputFormat(rawValue: format)!
            plan.background = RGBA(red: 0, green: 80, blue: 160)
            plan.optimizedJPEG = steps.contains("blur")
            if steps.contains("blur") { plan.blurSigma = 3 }
            if steps.contains("tilt") { plan.tiltShift = true }
            if steps.contains("resize") { plan.resize = ResizeSpec(parsing: "101x") }
            // Banded indeed (the whole path is what it was before).
            let job = InputList.jobs(for: [(input, input.lastPathComponent)], outputDirectory: folder.url,
                                     fileExtension: format)[0]
            let run = try #require(try BandedWrite.prepare(job, plan: plan, maxPixels: 1 << 26, isCancelled: { false }))
            #expect(run.chain.layout == (kind.contains("alpha") ? .greyAlpha8 : .grey8))
            let banded = try await Self.output(of: input, plan: plan, banded: true, in: folder.url)
            let whole = try await Self.output(of: input, plan: plan, banded: false, in: folder.url)
            #expect(banded == whole, "\(kind) → \(format), \(steps)")
            let layout = try ImageDecoder(keepsStoredLayout: true).decode(banded).layout
            #expect(layout.isGrey, "\(kind) → \(format), \(steps): still grey")
        }
    }

    /// A grey-and-alpha file whose alpha is all opaque: the whole path scanned the pixels and dropped the channel, the
    /// bands must write the PNG header first and keep it (as for an RGBA file). The same pixels either way.
    @Test func anOpaqueAlphaChannelIsKeptInBands() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let pixels = (0..<(97 * 61 * 2)).map { i in i % 2 == 1 ? 255 : UInt8(truncatingIfNeeded: i &* 37 >> 2) }
        let input = folder.url.appendingPathComponent("opaque-alpha.png")
        let stream = try ImageEncoder.PNGStream(width: 97, height: 61, hasAlpha: true, layout: .greyAlpha8)
        try stream.write(rows: 0..<61, of: Bitmap(width: 97, height: 61, layout: .greyAlpha8, pixels: pixels))
        try stream.finish().write(to: input) // an alpha channel the whole encoder would have dropped
        #expect(try ImageDecoder().probe(Data(contentsOf: input)).storedLayout == .greyAlpha8)
        var plan = ProcessingPlan()
        plan.resize = ResizeSpec(parsing: "50x")
        let banded = try await Self.output(of: input, plan: plan, banded: true, in: folder.url)
        let whole = try await Self.output(of: input, plan: plan, banded: false, in: folder.url)
        let keeping = ImageDecoder(keepsStoredLayout: true)
        #expect(try keeping.decode(banded).layout == .greyAlpha8 && keeping.decode(whole).layout == .grey8)
        #expect(try ImageDecoder().decode(banded) == ImageDecoder().decode(whole))
    }

    /// A 16-bit PNG of `layout` (noise, some of it transparent when it has alpha), odd size.
    static func deepFile(_ layout: PixelLayout, in folder: URL) throws -> URL {
        let (width, height) = (151, 97)
        var pixels: [UInt8] = []
        for i in 0..<(width * height * layout.channels) {
            let alpha = layout.hasAlpha && i % layout.channels == layout.channels - 1
            let value: UInt16 = alpha ? (i / layout.channels % 7 == 0 ? 0 : 65535)
                : UInt16(truncatingIfNeeded: (i &* 2_654_435_761) >> 7)
            withUnsafeBytes(of: value) { pixels.append(contentsOf: $0) } // native-endian samples
        }
        let url = folder.appendingPathComponent("deep-\(layout).png")
        try ImageEncoder().encode(Bitmap(width: width, height: height, layout: layout, pixels: pixels),
                                  as: .png(compressionLevel: 1)).write(to: url)
        return url
    }

    /// A 16-bit PNG runs in bands: in 8-bit rows when a step makes it 8-bit on the whole path too, in 16-bit rows of its
    /// stored layout without one (a 16-bit output); the same bytes as the whole path either way.
    @Test(arguments: [PixelLayout.grey16, .greyAlpha16, .rgba16])
    func sixteenBitFilesRunInBands(layout: PixelLayout) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try Self.deepFile(layout, in: folder.url)
        for steps in ["none", "resize to its size", "blur", "tilt-shift", "resize", "resize+blur"] {
            for format in ["png", "jpeg"] {
                var plan = ProcessingPlan()
                plan.format = OutputFormat(rawValue: format)!
                if steps.contains("blur") { plan.blurSigma = 2 }
                if steps.contains("tilt") { plan.tiltShift = true }
                if steps.contains("resize") { plan.resize = ResizeSpec(parsing: steps.contains("its") ? "151x" : "60x") }
                let job = InputList.jobs(for: [(input, input.lastPathComponent)], outputDirectory: folder.url,
                                         fileExtension: format)[0]
                let run = try #require(try BandedWrite.prepare(job, plan: plan, maxPixels: 1 << 26,
                                                               isCancelled: { false }), "\(layout) → \(format), \(steps)")
                let reduces = steps != "none" && !steps.contains("its")
                #expect(run.chain.layout == (reduces ? layout.eightBit : layout), "\(layout) → \(format), \(steps)")
                #expect(run.decoder?.retainedBytes == 151 * 8 * 2) // libpng's 16-bit rows
                let banded = try await Self.output(of: input, plan: plan, banded: true, in: folder.url)
                let whole = try await Self.output(of: input, plan: plan, banded: false, in: folder.url)
                #expect(banded == whole, "\(layout) → \(format), \(steps)")
                if format == "png" {
                    let written = try ImageDecoder(keepsStoredLayout: true).decode(banded).layout
                    #expect(written.bitDepth == (reduces ? 8 : 16) && written.isGrey == layout.isGrey)
                }
            }
        }
    }

    /// `--greyscale` is a row stage: colour and grey files, 8- and 16-bit, with and without other steps, run in bands
    /// to a grey output with the whole path's bytes (16 bits kept when no step reduces them).
    @Test(arguments: [PixelLayout.rgba8, .grey16, .greyAlpha16, .rgba16])
    func greyscaleRunsInBands(layout: PixelLayout) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input: URL
        if layout == .rgba8 { // colour noise, some of it transparent
            let pixels = (0..<(151 * 97 * 4)).map { i -> UInt8 in
                i % 4 == 3 ? (i / 4 % 7 == 0 ? 0 : 255) : UInt8(truncatingIfNeeded: (i &* 2_654_435_761) >> 11)
            }
            input = folder.url.appendingPathComponent("colour.png")
            try ImageEncoder().encode(Bitmap(width: 151, height: 97, pixels: pixels), as: .png(compressionLevel: 1))
                .write(to: input)
        } else {
            input = try Self.deepFile(layout, in: folder.url)
        }
        for steps in ["none", "blur", "resize"] {
            for format in ["png", "jpeg"] {
                var plan = ProcessingPlan()
                plan.greyscale = true
                plan.format = OutputFormat(rawValue: format)!
                if steps == "blur" { plan.blurSigma = 2 }
                if steps == "resize" { plan.resize = ResizeSpec(parsing: "60x") }
                let job = InputList.jobs(for: [(input, input.lastPathComponent)], outputDirectory: folder.url,
                                         fileExtension: format)[0]
                let run = try #require(try BandedWrite.prepare(job, plan: plan, maxPixels: 1 << 26,
                                                               isCancelled: { false }), "\(layout), \(steps)")
                let depth = steps == "none" ? layout.bytesPerSample : 1
                #expect(run.chain.layout == PixelLayout(channels: layout == .grey16 ? 1 : 2, bytesPerSample: depth))
                let banded = try await Self.output(of: input, plan: plan, banded: true, in: folder.url)
                let whole = try await Self.output(of: input, plan: plan, banded: false, in: folder.url)
                #expect(banded == whole, "\(layout) → \(format), \(steps)")
            }
        }
    }

    /// A 16-bit file with no step holds 16-bit rows, never the image: what the band window and the stages hold (the
    /// budget's reservation) is the same for 40 and 4000 rows, a few rows' worth, far below the 16-bit bitmap the whole
    /// path held.
    @Test(arguments: [PixelLayout.grey16, .rgba16])
    func sixteenBitRowsDoNotGrowWithTheHeight(layout: PixelLayout) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var held: [Int] = []
        for height in [40, 4000] {
            let rows = Bitmap(width: 300, height: height, layout: layout,
                              pixels: (0..<(300 * height * layout.bytesPerPixel)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let input = folder.url.appendingPathComponent("deep-\(height).png")
            try ImageEncoder().encode(rows, as: .png(compressionLevel: 1)).write(to: input)
            for format in ["png", "jpeg"] {
                var plan = ProcessingPlan()
                plan.format = OutputFormat(rawValue: format)!
                plan.optimizedJPEG = false
                let job = InputList.jobs(for: [(input, input.lastPathComponent)], outputDirectory: folder.url,
                                         fileExtension: format)[0]
                let run = try #require(try BandedWrite.prepare(job, plan: plan, maxPixels: 1 << 26, isCancelled: { false }))
                #expect(run.chain.layout == layout && run.decoder?.layout == layout)
                if format == "png" { held.append(run.heldBytes) }
            }
        }
        #expect(held[0] == held[1] && held[1] == 2 * BandedWrite.chunkRows * 300 * layout.bytesPerPixel + 300 * 8 * 2)
        #expect(held[1] * 20 < 300 * 4000 * layout.bytesPerPixel)
    }

    /// The reservation holds rows, not the image: the same for 300 and 3000 rows, and the grey bands are smaller than
    /// an RGB file's.
    @Test(arguments: ["png", "jpeg"])
    func theReservationDoesNotGrowWithTheHeight(format: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var plan = ProcessingPlan()
        plan.format = OutputFormat(rawValue: format)!
        plan.blurSigma = 2
        var held: [Int] = []
        for height in [300, 3000] {
            let input = try Self.greyFile("grey png", in: folder.url, width: 200, height: height)
            let job = InputList.jobs(for: [(input, input.lastPathComponent)], outputDirectory: folder.url,
                                     fileExtension: format)[0]
            let run = try #require(try BandedWrite.prepare(job, plan: plan, maxPixels: 1 << 26, isCancelled: { false }))
            held.append(run.heldBytes)
        }
        #expect(held[0] == held[1])
        #expect(held[1] < 200 * 3000)  // below even the grey output bitmap the whole path held (and its RGBA copies)
        let tall = try Self.greyFile("grey png", in: folder.url, width: 200, height: 3000)
        let colour = folder.url.appendingPathComponent("rgb.png") // the same pixels as an (opaque) RGB file
        try ImageEncoder().encode(ImageDecoder().decode(Data(contentsOf: tall)), as: .png()).write(to: colour)
        let job = InputList.jobs(for: [(colour, colour.lastPathComponent)], outputDirectory: folder.url,
                                 fileExtension: format)[0]
        let rgba = try #require(try BandedWrite.prepare(job, plan: plan, maxPixels: 1 << 26, isCancelled: { false }))
        #expect(held[1] == rgba.heldBytes + 200 * 4 - 2 * BandedWrite.chunkRows * 200 * 3) // one row more, ¼ the bands
    }
}
