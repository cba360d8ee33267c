import Foundation
import LanesImages
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The WebP and AVIF encoders: what they write decodes back (exactly for lossless WebP), the row path writes the same
/// bytes as the whole-bitmap one, and bad settings fail before any row is taken.
@Suite("Formats: WebP and AVIF encoding", .timeLimit(.minutes(5)))
struct FormatEncodeTests {
    let photo: Bitmap

    init() throws {
        photo = try ImageDecoder().decode(FormatFixture.data("photo.png"))
    }

    @Test("a lossless WebP decodes to the bitmap it was made of, alpha included")
    func losslessRoundTrip() throws {
        let translucent = makeBitmap(width: 31, height: 17) { x, y in
            RGBA(red: UInt8(x * 8), green: UInt8(y * 15), blue: 77, alpha: UInt8(40 + x * 6))
        }
        for bitmap in [photo, translucent] {
            let webp = try ImageEncoder().encode(bitmap, as: .webp(lossless: true))
            #expect(try ImageDecoder().probe(webp).format == .webp)
            #expect(firstDifference(try ImageDecoder().decode(webp), bitmap) == nil)
        }
    }

    @Test("a row source encodes to the same bytes as the whole bitmap", arguments: [
        ImageEncoder.Format.webp(quality: 60, effort: 2), .webp(lossless: true, effort: 0), .avif(quality: 40, effort: 6),
    ])
    func rowsMatchWhole(_ format: ImageEncoder.Format) throws {
        let whole = try ImageEncoder().encode(photo, as: format)
        let rows: Data
        switch format {
        case .webp(let quality, let lossless, let effort):
            rows = try ImageEncoder().encodeWebP(rowsOf: BitmapRows(photo), quality: quality, lossless: lossless,
                                                 effort: effort, bandRows: 7).data
        case .avif(let quality, let effort):
            rows = try ImageEncoder().encodeAVIF(rowsOf: BitmapRows(photo), quality: quality, effort: effort,
                                                 bandRows: 7).data
        default:
            Issue.record("not a WebP or AVIF format")
            return
        }
        #expect(rows == whole)
        let decoded = try ImageDecoder().decode(rows)
        #expect(decoded.width == 64 && decoded.height == 48)
    }

    @Test("an AVIF larger than the 256 KB a file's header is probed from is probed by reading more of it")
    func largeAVIFProbe() throws {
        let noise = noiseBitmap(width: 512, height: 512)
        let avif = try ImageEncoder().encode(noise, as: .avif(quality: 100, effort: 0))
        try #require(avif.count > 256 << 10, "only \(avif.count) bytes: not past the first probe")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lanes-probe-\(UUID().uuidString).avif")
        try avif.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let descriptor = open(url.path, O_RDONLY)
        defer { close(descriptor) }
        let info = try ImageRowDecoder.probe(fileDescriptor: descriptor)
        #expect(info.format == .avif && info.width == 512 && info.height == 512)
    }

    @Test("bad settings are refused before a row is read", arguments: [
        ImageEncoder.Format.webp(quality: 101), .webp(effort: 7), .avif(quality: -1), .avif(effort: 10),
    ])
    func badSettings(_ format: ImageEncoder.Format) throws {
        let error = #expect(throws: ImageError.self) { try ImageEncoder().encode(photo, as: format) }
        guard case .invalidArgument(let text)? = error else {
            Issue.record("expected invalidArgument, got \(String(describing: error))")
            return
        }
        #expect(!text.isEmpty && !text.contains("\n"))
    }
}
