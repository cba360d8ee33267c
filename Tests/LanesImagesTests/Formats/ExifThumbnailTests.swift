import Foundation
import LanesImages
import Testing

/// A JPEG's Exif thumbnail (IFD1's JPEGInterchangeFormat) is reported from the header with where its bytes lie, and
/// those bytes decode to the thumbnail; a thumbnail that runs past its segment is not reported.
@Suite("Formats: a JPEG's Exif thumbnail", .timeLimit(.minutes(5)))
struct ExifThumbnailTests {
    static func noise(_ width: Int, _ height: Int, seed: Int) -> Bitmap {
        Bitmap(width: width, height: height, pixels: (0..<(width * height * 4)).map { i in
            i % 4 == 3 ? 255 : UInt8(truncatingIfNeeded: (i &+ seed) &* 2_654_435_761 >> 11)
        })
    }

    /// A 64x48 JPEG whose Exif APP1 holds orientation `orientation` and a 16x12 JPEG thumbnail (`claimed` bytes long
    /// by its IFD1 entry: the thumbnail's real length unless given).
    static func photo(orientation: UInt8, claimed: Int? = nil) throws -> (file: Data, thumbnail: Data) {
        let encoder = ImageEncoder()
        let main = try encoder.encode(noise(64, 48, seed: 1), as: .jpeg(quality: 90))
        let thumbnail = try encoder.encode(noise(16, 12, seed: 2), as: .jpeg(quality: 90))
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16) }
        var tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + le32(8)
        tiff += le16(1) + le16(0x0112) + le16(3) + le32(1) + le16(Int(orientation)) + le16(0) + le32(26) // IFD0
        tiff += le16(2) + le16(0x0201) + le16(4) + le32(1) + le32(56)                                  // IFD1
        tiff += le16(0x0202) + le16(4) + le32(1) + le32(claimed ?? thumbnail.count) + le32(0)
        let payload = Array("Exif".utf8) + [0, 0] + tiff + Array(thumbnail)
        let app1: [UInt8] = [0xFF, 0xE1] + [UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        return (main.prefix(2) + Data(app1) + main.dropFirst(2), thumbnail)
    }

    @Test("the thumbnail's size and bytes come from the header, upright", arguments: [UInt8(1), 6])
    func reported(orientation: UInt8) throws {
        let (file, thumbnail) = try Self.photo(orientation: orientation)
        let info = try ImageDecoder().probe(file)
        let embedded = try #require(info.embeddedThumbnail)
        #expect((embedded.width, embedded.height) == (orientation == 6 ? (12, 16) : (16, 12)))
        let range = try #require(embedded.byteRange)
        #expect(file[range] == thumbnail)
        #expect(try ImageDecoder().decode(file[range]) == (try ImageDecoder().decode(thumbnail)))
        // The photo itself still decodes whole, upright.
        let photo = try ImageDecoder().decode(file)
        #expect((photo.width, photo.height) == (orientation == 6 ? (48, 64) : (64, 48)))
    }

    @Test("a thumbnail whose length runs past its segment is not reported")
    func lyingLength() throws {
        let (file, _) = try Self.photo(orientation: 1, claimed: 1 << 20)
        #expect(try ImageDecoder().probe(file).embeddedThumbnail == nil)
    }
}
