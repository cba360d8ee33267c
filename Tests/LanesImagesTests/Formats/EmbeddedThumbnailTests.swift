import Foundation
import LanesImages
import Testing

/// One call decodes any format's embedded thumbnail (a JPEG's Exif thumbnail, a HEIF thumbnail item, a JPEG XL
/// preview frame), upright; a file without one answers nil, and one that lies about its size or is cut short throws.
@Suite("Formats: embedded thumbnails, decoded", .timeLimit(.minutes(5)))
struct EmbeddedThumbnailTests {
    @Test("photo.heic's 32x24 thumbnail item (heif-enc -t 32) decodes to a small copy of the image")
    func heif() throws {
        let data = try FormatFixture.data("photo.heic")
        let thumbnail = try #require(try ImageDecoder().decodeEmbeddedThumbnail(data))
        #expect((thumbnail.width, thumbnail.height) == (32, 24))
        // The same picture: on average within a few levels of the reference decode's 2x2 means.
        let reference = try FormatFixture.reference("photo.heic")
        var difference = 0
        for y in 0..<24 {
            for x in 0..<32 {
                for channel in 0..<3 {
                    let mean = [(0, 0), (1, 0), (0, 1), (1, 1)].map { dx, dy in
                        Int(reference.pixels[((y * 2 + dy) * 64 + x * 2 + dx) * 4 + channel])
                    }.reduce(0, +) / 4
                    difference += abs(Int(thumbnail.pixels[(y * 32 + x) * 4 + channel]) - mean)
                }
            }
        }
        #expect(Double(difference) / Double(32 * 24 * 3) < 12, "total difference \(difference)")
    }

    @Test("a HEIF thumbnail decode uses the thumbnail item when it covers the target, the image when it does not")
    func heifShrinkOnLoad() throws {
        let data = try FormatFixture.data("photo.heic")
        let decoder = ImageDecoder()
        let embedded = try #require(try decoder.decodeEmbeddedThumbnail(data))
        #expect(try decoder.decode(data, targetSize: TargetSize(maxWidth: 32)) == embedded)
        let fromImage = try decoder.decode(data, targetSize: TargetSize(maxWidth: 40))
        #expect((fromImage.width, fromImage.height) == (40, 30))
        // A lying thumbnail is passed over: the image itself makes the thumbnail.
        let lying = Data(Self.thumbnailClaiming(width: 16, height: 12, in: Array(data)))
        let fallback = try decoder.decode(lying, targetSize: TargetSize(maxWidth: 16))
        #expect((fallback.width, fallback.height) == (16, 12))
    }

    @Test("a JPEG's Exif thumbnail decodes upright, as its image does", arguments: [UInt8(1), 6])
    func exif(orientation: UInt8) throws {
        let (file, small) = try ExifThumbnailTests.photo(orientation: orientation)
        let thumbnail = try #require(try ImageDecoder().decodeEmbeddedThumbnail(file))
        let stored = try ImageDecoder().decode(small)
        if orientation == 1 {
            #expect(thumbnail == stored)
        } else {
            // Orientation 6: rotated 90 degrees clockwise, so the stored first column, bottom up, is the first row.
            #expect((thumbnail.width, thumbnail.height) == (12, 16))
            for x in 0..<12 {
                let upright = Array(thumbnail.pixels[(x * 4)..<(x * 4 + 4)])
                let source = ((11 - x) * 16) * 4
                #expect(upright == Array(stored.pixels[source..<(source + 4)]))
            }
        }
    }

    @Test("files without one answer nil", arguments: ["alpha.heic", "photo.jxl", "photo.avif", "photo.png"])
    func none(_ name: String) throws {
        #expect(try ImageDecoder().decodeEmbeddedThumbnail(FormatFixture.data(name)) == nil)
    }

    @Test("a HEIF thumbnail whose ispe lies (smaller than its data, larger than its image) fails in one error",
          arguments: [(16, 12), (128, 96)])
    func heifLyingSize(_ width: Int, _ height: Int) throws {
        let data = Array(try FormatFixture.data("photo.heic"))
        let lying = Data(Self.thumbnailClaiming(width: width, height: height, in: data))
        #expect(try ImageDecoder().probe(lying).embeddedThumbnail.map { ($0.width, $0.height) } ?? (0, 0)
                == (width, height))
        let error = #expect(throws: ImageError.self) { try ImageDecoder().decodeEmbeddedThumbnail(lying) }
        guard case .corrupt(let message) = error else {
            Issue.record("expected a corrupt thumbnail, got \(String(describing: error))")
            return
        }
        #expect(message.contains("thumbnail") && !message.contains("\n"), "\(message)")
        // The image itself still decodes.
        #expect(try ImageDecoder().decode(lying).width == 64)
    }

    @Test("an Exif thumbnail whose length cuts it short fails as truncated")
    func exifTruncated() throws {
        let (_, small) = try ExifThumbnailTests.photo(orientation: 1)
        let (file, _) = try ExifThumbnailTests.photo(orientation: 1, claimed: small.count / 2)
        #expect(try ImageDecoder().probe(file).embeddedThumbnail != nil) // its header reads
        #expect(throws: ImageError.truncated) { try ImageDecoder().decodeEmbeddedThumbnail(file) }
    }

    /// photo.heic with its thumbnail's `ispe` (the one saying 32x24) claiming `width` x `height`.
    static func thumbnailClaiming(width: Int, height: Int, in heif: [UInt8]) -> [UInt8] {
        var bytes = heif
        let tag = Array("ispe".utf8), thumbnail: [UInt8] = [0, 0, 0, 32, 0, 0, 0, 24]
        func be32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (24 - $0 * 8)) & 0xFF) } }
        for index in 0..<(bytes.count - 16)
        where Array(bytes[index..<(index + 4)]) == tag && Array(bytes[(index + 8)..<(index + 16)]) == thumbnail {
            bytes.replaceSubrange((index + 8)..<(index + 16), with: be32(width) + be32(height))
        }
        return bytes
    }
}
