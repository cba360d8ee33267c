import Foundation
import LanesTesting
import Testing

/// `--format webp|avif`, run as a user would; the outputs are decoded by the reference decoders (`dwebp`, `avifdec`,
/// which scripts/test-tools installs) into PNGs that the independent PNG reader reads.
@Suite("lanes-image WebP and AVIF outputs, checked by dwebp and avifdec", .timeLimit(.minutes(5)), .heavy)
struct WebPAVIFOutputTests {
    /// `file` decoded by `dwebp` or `avifdec` (by its extension) to a PNG, read independently.
    static func reference(_ file: URL) async throws -> DecodedSamples {
        let png = file.deletingPathExtension().appendingPathExtension("reference.png")
        let isWebP = file.pathExtension == "webp"
        let decoder = try #require(IndependentDecoders.tool(isWebP ? "dwebp" : "avifdec"),
                                   "dwebp and avifdec are needed: run scripts/test-tools")
        let arguments = isWebP ? ["-quiet", file.path, "-o", png.path] : [file.path, png.path]
        let result = try await IndependentDecoders.run(decoder, arguments, in: file.deletingLastPathComponent())
        try #require(result.status == 0, "\(decoder.lastPathComponent) rejected \(file.lastPathComponent): \(result.errors)")
        return try await IndependentDecoders.readPNG(png)
    }

    /// The largest difference of any RGB sample, and the mean, between two decodes of the same size.
    static func difference(_ a: DecodedSamples, _ b: DecodedSamples) -> (max: Int, mean: Double) {
        var largest = 0, total = 0, count = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                for (p, q) in zip(a.pixel(x, y).prefix(3), b.pixel(x, y).prefix(3)) {
                    largest = max(largest, abs(p - q))
                    total += abs(p - q)
                    count += 1
                }
            }
        }
        return (largest, Double(total) / Double(max(count, 1)))
    }

    static let photo = NewFormatInputTests.fixtures.appendingPathComponent("photo.png")

    /// `lanes-image process INPUT --out FOLDER/out options...`, whatever its status; what it said and the out folder.
    static func run(_ input: URL, _ options: [String], in folder: TemporaryFolder) async throws
        -> (result: (status: Int32, output: Data, errors: String), out: URL) {
        let binary = try #require(InterruptTests.binary, "build lanes-image first (swift build --build-tests)")
        let out = folder.url.appendingPathComponent("out")
        let result = try await IndependentDecoders.run(binary, ["process", input.path, "--out", out.path] + options,
                                                       in: folder.url)
        return (result, out)
    }

    func copy(_ source: URL, into folder: TemporaryFolder, as name: String) throws -> URL {
        let input = folder.url.appendingPathComponent(name)
        try FileManager.default.copyItem(at: source, to: input)
        return input
    }

    @Test("a lossless WebP holds every sample of an RGB PNG, whole-bitmap (--greyscale off) and banded (a resize)")
    func losslessWebP() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try copy(Self.photo, into: folder, as: "photo.png")
        let source = try await IndependentDecoders.readPNG(input)
        let webp = try await OutputFormatTests.process(input, ["--format", "webp", "--lossless"])
        #expect(webp.pathExtension == "webp")
        let decoded = try await Self.reference(webp)
        #expect(decoded.width == 64 && decoded.height == 48)
        #expect(decoded.colourType == 2, "an opaque image was written with alpha")
        #expect(decoded.samples == source.samples)

        // A resize runs in bands: decoder → resize → the WebP stream. The same as resizing to PNG, exactly.
        let banded = try await Self.reference(try await OutputFormatTests.process(
            input, ["--format", "webp", "--lossless", "--resize", "32x", "--effort", "0"]))
        let resized = try await IndependentDecoders.readPNG(try await OutputFormatTests.process(input, ["--resize", "32x"]))
        #expect(banded.width == 32 && banded.height == 24)
        #expect(banded.samples == resized.samples)
    }

    @Test("a lossy WebP and an AVIF are close to the source; more quality is closer", arguments: ["webp", "avif"])
    func lossyOutputs(_ format: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try copy(Self.photo, into: folder, as: "photo.png")
        let source = try await IndependentDecoders.readPNG(input)
        let low = try await Self.reference(try await OutputFormatTests.process(
            input, ["--format", format, "--quality", "20", "--effort", "2"]))
        let high = try await Self.reference(try await OutputFormatTests.process(
            input, ["--format", format, "--quality", "95", "--effort", "2"]))
        #expect(high.width == 64 && high.height == 48)
        let (lowError, highError) = (Self.difference(low, source), Self.difference(high, source))
        #expect(highError.mean < 3, "quality 95 is off by \(highError.mean) on average")
        #expect(highError.mean < lowError.mean, "quality 95 (\(highError.mean)) is no closer than 20 (\(lowError.mean))")
    }

    @Test("alpha survives into WebP and AVIF: transparent stays transparent, opaque stays opaque", arguments: ["webp", "avif"])
    func alpha(_ format: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.url.appendingPathComponent("alpha.png")
        let source = try await IndependentDecoders.writePNG(input, colourType: 6, bitDepth: 8, width: 40, height: 24)
        let decoded = try await Self.reference(try await OutputFormatTests.process(input, ["--format", format,
                                                                                          "--quality", "90"]))
        #expect(decoded.colourType == 6, "the alpha channel was dropped")
        var worst = 0
        for y in 0..<24 {
            for x in 0..<40 { worst = max(worst, abs(decoded.pixel(x, y).last! - source.pixel(x, y).last!)) }
        }
        #expect(worst <= (format == "webp" ? 2 : 12), "alpha is off by up to \(worst)")
    }

    @Test("a grey 16-bit PNG with --greyscale (the whole-bitmap path) makes a WebP of equal red, green and blue")
    func greyWholeBitmap() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.url.appendingPathComponent("deep.png")
        _ = try await IndependentDecoders.writePNG(input, colourType: 0, bitDepth: 16, width: 33, height: 17)
        let decoded = try await Self.reference(try await OutputFormatTests.process(
            input, ["--format", "webp", "--lossless", "--greyscale"]))
        #expect(decoded.width == 33 && decoded.height == 17 && decoded.colourType == 2)
        #expect((0..<17).allSatisfy { y in (0..<33).allSatisfy { x in Set(decoded.pixel(x, y)).count == 1 } })
    }

    @Test("hostile option values fail in one line naming the option, before anything is written", arguments: [
        ["--format", "webp", "--quality", "101"], ["--format", "avif", "--quality", "-1"],
        ["--format", "webp", "--effort", "7"], ["--format", "avif", "--effort", "10"],
        ["--format", "avif", "--lossless"], ["--format", "png", "--effort", "3"], ["--format", "png", "--quality", "50"],
        ["--format", "webp\u{1B}[2J"], ["--format", "webp", "--effort", "99999999999999999999"],
    ])
    func hostileOptions(_ options: [String]) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try copy(Self.photo, into: folder, as: "photo.png")
        let (result, out) = try await Self.run(input, options, in: folder)
        #expect(result.status != 0)
        let first = try #require(result.errors.split(separator: "\n").first.map(String.init))
        #expect(first.hasPrefix("Error: "), "\(first)")
        let named = options.first { $0.hasPrefix("--") && $0 != "--format" } ?? "--format"
        #expect(first.contains(named), "\(first) does not name \(named)")
        #expect(!result.errors.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "a control character")
        #expect(!FileManager.default.fileExists(atPath: out.path), "an output folder was made")
    }

    @Test("an image WebP cannot hold (16384 wide) fails in one line and leaves no file behind")
    func tooWideForWebP() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.url.appendingPathComponent("wide.png")
        _ = try await IndependentDecoders.writePNG(input, colourType: 2, bitDepth: 8, width: 16384, height: 2)
        let (result, out) = try await Self.run(input, ["--format", "webp", "--progress", "lines"], in: folder)
        #expect(result.status == 1)
        #expect(result.errors.contains("WebP cannot hold 16384x2"), "\(result.errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty, "a file was left behind")
    }
}
