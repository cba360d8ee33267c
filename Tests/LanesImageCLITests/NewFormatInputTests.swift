import Foundation
import Testing

/// lanes-image takes WebP, GIF, AVIF, HEIF and JPEG XL inputs (found by content, whatever their name), run as a user would; the
/// outputs are read by the independent PNG reader.
@Suite("lanes-image WebP, GIF, AVIF, HEIF and JPEG XL inputs", .timeLimit(.minutes(5)))
struct NewFormatInputTests {
    /// The fixtures of the library's tests (Tests/LanesImagesTests/Fixtures/formats).
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("LanesImagesTests/Fixtures/formats")

    @Test("a lossless WebP becomes a PNG with the source's samples; named .jpg, it is still read as WebP")
    func losslessWebPToPNG() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.url.appendingPathComponent("misnamed.jpg")
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("photo-lossless.webp"), to: input)
        let source = folder.url.appendingPathComponent("photo.png")
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("photo.png"), to: source)
        let output = try await IndependentDecoders.readPNG(try await OutputFormatTests.process(input))
        let expected = try await IndependentDecoders.readPNG(source)
        #expect(output.width == 64 && output.height == 48)
        #expect(output.samples == expected.samples)
    }

    @Test("an animated GIF, an animated WebP, an AVIF, a HEIC and JPEG XLs resize to thumbnails (the first frame)",
          arguments: ["anim.gif", "anim.webp", "photo.avif", "photo.heic", "photo.jxl", "anim.jxl"])
    func thumbnails(_ name: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.url.appendingPathComponent(name)
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(name), to: input)
        let output = try await IndependentDecoders.readPNG(try await OutputFormatTests.process(input, ["--resize", "32x"]))
        #expect(output.width == 32 && output.height == 24)
    }

    @Test("a lossless JPEG XL becomes a PNG with the source's samples; a rotated one comes out upright")
    func jxlToPNG() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.url.appendingPathComponent("photo.jxl")
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("photo-lossless.jxl"), to: input)
        let source = folder.url.appendingPathComponent("photo.png")
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("photo.png"), to: source)
        let output = try await IndependentDecoders.readPNG(try await OutputFormatTests.process(input))
        let expected = try await IndependentDecoders.readPNG(source)
        #expect(output.width == 64 && output.height == 48)
        #expect(output.samples == expected.samples)
        let rotated = folder.url.appendingPathComponent("rotated.jxl")
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("rotated.jxl"), to: rotated)
        let upright = try await IndependentDecoders.readPNG(try await OutputFormatTests.process(rotated, ["--resize", "24x"]))
        #expect(upright.width == 24 && upright.height == 32)
    }
}
