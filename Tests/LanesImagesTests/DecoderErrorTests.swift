import Foundation
import LanesImages
import LanesTesting
import Testing

/// Every way decoding can fail maps to the right ``ImageError``.
@Suite(.timeLimit(.minutes(5)), .heavy) struct DecoderErrorTests {
    let decoder = ImageDecoder()

    @Test func hugeHeaderIsRejectedBeforeAllocating() throws {
        // Signature + IHDR only. Had the decoder allocated and decoded, libpng would have hit
        // the missing IDAT and reported .truncated: .tooLarge proves it stopped at the header.
        let header = TinyPNG.headerOnly(width: 100_000, height: 100_000)
        #expect(throws: ImageError.tooLarge(width: 100_000, height: 100_000, limit: 100_000_000)) {
            try decoder.decode(header)
        }
        // Probing the same header works and reports the claimed size.
        #expect(try decoder.probe(header).width == 100_000)
    }

    @Test func pixelLimitIsInclusive() throws {
        let data = try Fixture.data("chelsea.png") // 451 x 300 = 135,300 pixels
        #expect(try decoder.decode(data, maxPixels: 135_300).width == 451)
        #expect(throws: ImageError.tooLarge(width: 451, height: 300, limit: 135_299)) {
            try decoder.decode(data, maxPixels: 135_299)
        }
    }

    @Test func truncatedPNGIsTruncated() throws {
        let bytes = try Fixture.bytes("chelsea.png")
        #expect(throws: ImageError.truncated) { try decoder.decode(Array(bytes.prefix(bytes.count / 2))) }
        #expect(throws: ImageError.truncated) { try decoder.decode(Array(bytes.prefix(20))) }
    }

    @Test func truncatedJPEGIsTruncated() throws {
        let bytes = try Fixture.bytes("rocket.jpg")
        #expect(throws: ImageError.truncated) { try decoder.decode(Array(bytes.prefix(bytes.count * 6 / 10))) }
        #expect(throws: ImageError.truncated) { try decoder.decode(Array(bytes.prefix(100))) } // before SOF
        let progressive = try Fixture.bytes("chelsea-progressive.jpg")
        #expect(throws: ImageError.truncated) { try decoder.decode(Array(progressive.prefix(progressive.count - 200))) }
    }

    @Test func corruptPNGDataIsCorrupt() throws {
        var bytes = try Fixture.bytes("chelsea.png")
        let idat = try #require(idatDataOffset(in: bytes))
        bytes[idat + 100] ^= 0xFF // inside the first IDAT's data: its CRC no longer matches
        #expect(isCorrupt { try decoder.decode(bytes) })

        var header = try Fixture.bytes("chelsea.png")
        header[18] ^= 0x01 // IHDR width byte: IHDR CRC mismatch
        #expect(isCorrupt { try decoder.probe(header) })
    }

    @Test func corruptJPEGDataIsCorrupt() throws {
        var bytes = try Fixture.bytes("rocket.jpg")
        // Overwrite a stretch of entropy-coded data with 0xFF 0x00-free garbage.
        let start = bytes.count / 2
        for i in start..<(start + 64) { bytes[i] = UInt8(truncatingIfNeeded: i * 37) | 0x80 }
        #expect(isCorrupt { try decoder.decode(bytes) })

        var tables = try Fixture.bytes("rocket.jpg")
        let dht = try #require(markerOffset(0xC4, in: tables))
        for i in (dht + 4)..<(dht + 24) { tables[i] = 0xFF } // impossible Huffman code counts
        #expect(isCorrupt { try decoder.decode(tables) })
    }

    @Test func emptyDataIsUnsupportedEmpty() {
        #expect(throws: ImageError.unsupportedFormat(.empty)) { try decoder.decode(Data()) }
        #expect(throws: ImageError.unsupportedFormat(.empty)) { try decoder.decode([UInt8]()) }
    }

    @Test func htmlErrorPageIsUnsupportedMarkup() {
        let page = Data("\u{FEFF}\n  <!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>".utf8)
        #expect(throws: ImageError.unsupportedFormat(.markup)) { try decoder.decode(page) }
        let description = ImageError.unsupportedFormat(.markup).description
        #expect(description.contains("HTML"))
    }

    @Test func otherContentIsNamed() {
        #expect(throws: ImageError.unsupportedFormat(.text)) { try decoder.decode(Data(#"{"error":"not found"}"#.utf8)) }
        // GIF and WebP decode now: a header cut short is a truncated image, not an unsupported format.
        #expect(throws: ImageError.truncated) { try decoder.decode(Data("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8)) }
        let webp = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8)
        #expect(throws: ImageError.self) { try decoder.decode(webp) }
        #expect(throws: ImageError.unsupportedFormat(.image(.tiff))) { try decoder.decode([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]) }
        #expect(throws: ImageError.unsupportedFormat(.unknown)) { try decoder.decode([0x00, 0x01, 0x02, 0x9F]) }
    }

    @Test func sniffingRecognisesSignatures() {
        #expect(ImageFormat.sniff(TinyPNG.signature) == .png)
        #expect(ImageFormat.sniff([0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        #expect(ImageFormat.sniff([0x49, 0x49, 0x2A, 0x00]) == .tiff)
        #expect(ImageFormat.sniff([0, 0, 0, 0x1C] + Array("ftypheic".utf8)) == .heif)
        #expect(ImageFormat.sniff([0, 0, 0, 0x1C] + Array("ftypavif".utf8)) == .avif)
        #expect(ImageFormat.sniff([0xFF, 0xD8]) == nil)
        #expect(SniffedContent(sniffing: Array("   <svg>".utf8)) == .markup)
    }

    @Test func errorsDescribeThemselves() {
        #expect(ImageError.truncated.description == "image data is truncated")
        #expect(ImageError.tooLarge(width: 3, height: 4, limit: 5).description.contains("3x4"))
        #expect(ImageError.unsupportedFormat(.empty).description.contains("empty"))
        #expect(ImageError.cancelled.description.contains("cancelled"))
    }

    // MARK: helpers

    private func isCorrupt(_ body: () throws -> Any) -> Bool {
        do {
            _ = try body()
            return false
        } catch ImageError.corrupt(let reason) {
            return !reason.isEmpty
        } catch {
            Issue.record("expected .corrupt, got \(error)")
            return false
        }
    }

    private func idatDataOffset(in bytes: [UInt8]) -> Int? {
        let tag = Array("IDAT".utf8)
        guard let i = (8..<(bytes.count - 4)).first(where: { Array(bytes[$0..<($0 + 4)]) == tag }) else { return nil }
        return i + 4
    }

    private func markerOffset(_ marker: UInt8, in bytes: [UInt8]) -> Int? {
        var i = 2
        while i + 4 <= bytes.count && bytes[i] == 0xFF {
            if bytes[i + 1] == marker { return i }
            i += 2 + Int(bytes[i + 2]) << 8 + Int(bytes[i + 3])
        }
        return nil
    }
}
