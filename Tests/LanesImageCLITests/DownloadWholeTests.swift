import Foundation
@testable import lanes_image
import LanesImages
import LanesTesting
import Testing

/// A download whose header rules bands out (an Exif orientation, a 16-bit PNG that stays 16-bit, a format whose
/// library reads no rows) is decoded whole from the bytes the banded path already fetched: one fetch, and the output
/// is what the whole decode makes of the body.
@Suite("lanes-image downloads decoded whole from their one fetch", .timeLimit(.minutes(5)))
struct DownloadWholeTests {
    /// A JPEG with an Exif APP1 segment (orientation `value`) right after its SOI.
    static func rotatedJPEG(_ value: UInt8) throws -> Data {
        let pixels = (0..<(40 * 24 * 4)).map { i -> UInt8 in i % 4 == 3 ? 255 : UInt8(truncatingIfNeeded: i &* 37) }
        let jpeg = try ImageEncoder().encode(Bitmap(width: 40, height: 24, pixels: pixels), as: .jpeg(quality: 90))
        // "Exif\0\0", a little-endian TIFF header, IFD0 with one SHORT entry: tag 0x0112 = value.
        let tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00,
                             0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, value, 0x00, 0x00, 0x00,
                             0x00, 0x00, 0x00, 0x00]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        let app1: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return jpeg.prefix(2) + Data(app1) + jpeg.dropFirst(2)
    }

    /// A 16-bit RGBA PNG (kept 16-bit by a plan with no resize, blur or tilt-shift).
    static func deepPNG() throws -> Data {
        let samples = (0..<(30 * 20 * 4)).map { i -> UInt16 in i % 4 == 3 ? 65535 : UInt16(truncatingIfNeeded: i &* 997) }
        let bytes = samples.withUnsafeBytes { Array($0) }
        return try ImageEncoder().encode(Bitmap(width: 30, height: 20, layout: .rgba16, pixels: bytes), as: .png())
    }

    @Test("decoded whole from the one fetch", arguments: ["rotated.jpg", "deep.png", "photo.heic"])
    func oneFetch(_ name: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let body = switch name {
        case "rotated.jpg": try Self.rotatedJPEG(6)
        case "deep.png": try Self.deepPNG()
        default: try Data(contentsOf: NewFormatInputTests.fixtures.appendingPathComponent(name))
        }
        let url = try #require(URL(string: "https://example.com/\(name)"))
        let network = MemoryFetcher([url: .body(body, chunkSize: 700)])
        let job = InputList.jobs(for: [(url, name)], outputDirectory: folder.url, fileExtension: "png")[0]
        let run = try #require(try BandedWrite.prepare(job, plan: ProcessingPlan(), maxPixels: 1 << 26,
                                                       fetcher: network, isCancelled: { false }))
        _ = try run.write(to: job.output)
        #expect(network.starts.map(\.url) == [url], "fetched once")
        let decoder = ImageDecoder(keepsStoredLayout: true)
        #expect(try decoder.decode(Data(contentsOf: job.output)) == (try decoder.decode(body)))
    }
}
