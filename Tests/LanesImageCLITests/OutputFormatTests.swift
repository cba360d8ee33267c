import Foundation
import LanesTesting
import Testing

/// lanes-image keeps what a file is: grey stays grey, 16 bits stay 16 bits in PNG outputs, and transparency in a JPEG
/// output is flattened on `--background`. Inputs are written and outputs read by decoders that are not LanesImages'
/// (see ``IndependentDecoders``); the CLI binary is run as a user would.
@Suite("lanes-image output formats, checked by independent decoders", .timeLimit(.minutes(5)), .heavy)
struct OutputFormatTests {
    /// Runs `lanes-image process INPUT --out OUT options...`; the one output file.
    static func process(_ input: URL, _ options: [String] = []) async throws -> URL {
        let binary = try #require(InterruptTests.binary, "build lanes-image first (swift build --build-tests)")
        let out = input.deletingLastPathComponent().appendingPathComponent("out-\(UUID().uuidString)")
        let result = try await IndependentDecoders.run(binary, ["process", input.path, "--out", out.path] + options,
                                                       in: input.deletingLastPathComponent())
        try #require(result.status == 0, "lanes-image failed: \(result.errors)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path)
        try #require(files.count == 1, "expected one output, found \(files)")
        return out.appendingPathComponent(files[0])
    }

    /// PNG in, PNG out, nothing done: colour type, depth and every sample survive (1-bit grey becomes 8-bit grey,
    /// 0 and 1 becoming 0 and 255; an opaque RGB stays RGB).
    @Test(arguments: [(0, 1), (0, 8), (0, 16), (4, 8), (4, 16), (2, 8), (2, 16), (6, 8), (6, 16)])
    func pngInputsKeepTheirChannelsAndDepth(colourType: Int, bitDepth: Int) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.url.appendingPathComponent("in.png")
        let written = try await IndependentDecoders.writePNG(input, colourType: colourType, bitDepth: bitDepth,
                                                             width: 37, height: 23)
        let output = try await IndependentDecoders.readPNG(try await Self.process(input))
        #expect(output.colourType == colourType)
        #expect(output.bitDepth == max(bitDepth, 8))
        #expect(output.width == 37 && output.height == 23)
        #expect(output.samples == written.samples.map { bitDepth == 1 ? $0 * 255 : $0 })
    }

    /// A grey JPEG (one component) stays one component as PNG and as JPEG, with djpeg's pixels.
    @Test func aGreyJPEGStaysGrey() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let grey = folder.url.appendingPathComponent("grey.png")
        _ = try await IndependentDecoders.writePNG(grey, colourType: 0, bitDepth: 8, width: 64, height: 40)
        let jpeg = try await Self.process(grey, ["--format", "jpeg", "--quality", "95"])
        let reference = try await IndependentDecoders.readJPEG(jpeg)
        #expect(reference.colourType == 0, "djpeg decoded a colour JPEG")

        let asPNG = try await IndependentDecoders.readPNG(try await Self.process(jpeg))
        #expect(asPNG.colourType == 0 && asPNG.bitDepth == 8)
        #expect(asPNG.samples == reference.samples)
        let again = try await IndependentDecoders.readJPEG(try await Self.process(jpeg, ["--format", "jpg"]))
        #expect(again.colourType == 0)
    }

    /// 16-bit grey written as JPEG: one component, the samples rounded to 8 bits (JPEG compression error aside).
    @Test func sixteenBitGreyBecomesAnEightBitGreyJPEG() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.url.appendingPathComponent("deep.png")
        // Flat 16-pixel blocks: JPEG keeps flat blocks almost exactly.
        let written = try await IndependentDecoders.writePNG(input, colourType: 0, bitDepth: 16, width: 64, height: 64)
        let jpeg = try await IndependentDecoders.readJPEG(try await Self.process(input, ["--format", "jpeg", "--quality", "100"]))
        #expect(jpeg.colourType == 0)
        let expected = written.samples.map { ($0 * 255 + 32767) / 65535 }
        let meanError = Double(zip(jpeg.samples, expected).map { abs($0 - $1) }.reduce(0, +)) / Double(expected.count)
        #expect(meanError < 3, "mean error \(meanError)")
    }

    /// Transparent pixels of an RGBA (or grey+alpha) image written as JPEG show the background, never the red hidden
    /// under them; opaque ones keep their colour.
    @Test(arguments: [(6, [], 255), (6, ["--background", "#000"], 0), (6, ["--background", "grey"], 128),
                      (4, [], 255), (4, ["--background", "black"], 0)])
    func transparencyIsFlattenedOnTheBackground(colourType: Int, options: [String], background: Int) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.url.appendingPathComponent("logo.png")
        let written = try await IndependentDecoders.writePNG(input, colourType: colourType, bitDepth: 8, width: 64,
                                                             height: 32, pattern: "halfclear")
        let jpeg = try await IndependentDecoders.readJPEG(
            try await Self.process(input, ["--format", "jpeg", "--quality", "100"] + options))
        #expect(jpeg.colourType == (colourType == 4 ? 0 : 2))
        // The middle of the transparent half, away from the edge JPEG's blocks blur.
        for (x, y) in [(4, 4), (12, 20), (20, 10)] {
            #expect(jpeg.pixel(x, y).allSatisfy { abs($0 - background) <= 3 }, "pixel (\(x), \(y)): \(jpeg.pixel(x, y))")
        }
        // The opaque half keeps its colour (compression error aside).
        let opaque = (0..<32).flatMap { y in (40..<64).map { x in (x, y) } }
        let error = opaque.map { x, y in
            zip(jpeg.pixel(x, y), written.pixel(x, y).prefix(jpeg.channels)).map { abs($0 - $1) }.reduce(0, +)
        }.reduce(0, +)
        #expect(Double(error) / Double(opaque.count * jpeg.channels) < 4)
    }

    /// Which operations keep 16 bits: greyscale (and no operation) do; blur, tilt-shift and resize work in 8 bits.
    /// Grey stays grey through all of them.
    @Test func sixteenBitsThroughProcessing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let colour = folder.url.appendingPathComponent("colour.png")
        let written = try await IndependentDecoders.writePNG(colour, colourType: 2, bitDepth: 16, width: 30, height: 20)
        let grey = try await IndependentDecoders.readPNG(try await Self.process(colour, ["--greyscale"]))
        #expect(grey.colourType == 0 && grey.bitDepth == 16)
        let luma = stride(from: 0, to: written.samples.count, by: 3).map { (i: Int) -> Int in
            let r: Int = 19595 * written.samples[i], g: Int = 38470 * written.samples[i + 1]
            let b: Int = 7471 * written.samples[i + 2]
            return (r + g + b + 32768) >> 16
        }
        #expect(grey.samples == luma)

        let deepGrey = folder.url.appendingPathComponent("deep-grey.png")
        _ = try await IndependentDecoders.writePNG(deepGrey, colourType: 0, bitDepth: 16, width: 30, height: 20)
        for options in [["--blur", "1.5"], ["--tilt-shift"], ["--resize", "15x"]] {
            let output = try await IndependentDecoders.readPNG(try await Self.process(deepGrey, options))
            #expect(output.colourType == 0 && output.bitDepth == 8, "\(options)")
        }
    }

    /// A grey image blurred stays grey (ProcessorLayoutTests checks its pixels against the blur of the same image as RGBA).
    @Test func greyIsBlurredAsGrey() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.url.appendingPathComponent("grey.png")
        let written = try await IndependentDecoders.writePNG(input, colourType: 0, bitDepth: 8, width: 40, height: 30)
        let blurred = try await IndependentDecoders.readPNG(try await Self.process(input, ["--blur", "2"]))
        #expect(blurred.colourType == 0 && blurred.bitDepth == 8)
        #expect(blurred.samples != written.samples)
        // A blur keeps the mean (edges clamped), within rounding.
        let mean = { (s: [Int]) in Double(s.reduce(0, +)) / Double(s.count) }
        #expect(abs(mean(blurred.samples) - mean(written.samples)) < 4)
    }

    /// A hostile `--background` is refused with one clear line that carries no control character.
    @Test(arguments: ["\u{1B}]0;PWN\u{07}", "#12345", "#GGGGGG", "", "rgb(1,2,3)", String(repeating: "f", count: 10_000)])
    func badBackgroundsAreRefusedInOneLine(value: String) async throws {
        let binary = try #require(InterruptTests.binary, "build lanes-image first (swift build --build-tests)")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.url.appendingPathComponent("in.png")
        _ = try await IndependentDecoders.writePNG(input, colourType: 6, bitDepth: 8, width: 4, height: 4)
        let result = try await IndependentDecoders.run(binary, ["process", input.path, "--format", "jpeg",
                                                                "--background", value, "--out", folder.url.path],
                                                       in: folder.url)
        #expect(result.status != 0)
        let first = try #require(result.errors.split(separator: "\n").first)
        #expect(first.hasPrefix("Error: --background"))
        #expect(first.count < 200)
        #expect(!result.errors.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("in.jpeg").path))
    }
}
