import Foundation
import LanesImages
import Testing

/// Hostile WebP, GIF, AVIF, HEIF and JPEG XL: cut short, lying about their size, frame bombs. Each fails with one line, from the
/// headers, before anything the size of the claim is allocated.
@Suite("Formats: hostile WebP, GIF, AVIF, HEIF and JPEG XL", .timeLimit(.minutes(5)))
struct FormatHostileTests {
    let decoder = ImageDecoder()

    @Test("every fixture cut short fails with an ImageError (never a crash or a half image)", arguments: [
        "photo-lossy.webp", "photo-lossless.webp", "alpha.webp", "anim.webp", "anim.gif", "still.gif", "photo.avif",
        "photo.heic", "alpha.heic", "bomb.heic", "photo.jxl", "photo-lossless.jxl", "alpha.jxl", "anim.jxl", "bomb.jxl",
    ])
    func truncated(_ name: String) throws {
        let bytes = try [UInt8](FormatFixture.data(name))
        for cut in [13, 30, 100, bytes.count / 2, bytes.count - 10] where cut < bytes.count {
            let head = Array(bytes.prefix(cut))
            #expect(throws: ImageError.self, "\(name) cut at \(cut)") { try decoder.decodeAnimation(Data(head)) }
            // A plain decode reads the first frame only: an animation cut in a later frame still shows its first.
            do {
                let first = try decoder.decode(head)
                #expect(name.hasPrefix("anim"), "\(name) cut at \(cut) decoded")
                #expect(first == (try decoder.decodeAnimation(FormatFixture.data(name))).frames[0].bitmap)
            } catch is ImageError {
            }
        }
    }

    @Test("a GIF whose canvas claims 65535x65535 fails from its header")
    func gifLyingCanvas() throws {
        let gif = TinyGIF.withCanvas(TinyGIF.make(width: 1, height: 1, frames: 1), width: 65535, height: 65535)
        #expect(throws: ImageError.tooLarge(width: 65535, height: 65535, limit: ImageDecoder.defaultMaxPixels)) {
            try decoder.decode(gif)
        }
        #expect(throws: ImageError.self) { try decoder.decodeAnimation(Data(gif)) }
    }

    @Test("an animated WebP whose canvas claims 16384x16384 fails from its header")
    func webpLyingCanvas() throws {
        var bytes = try [UInt8](FormatFixture.data("anim.webp"))
        #expect(Array(bytes[12..<16]) == Array("VP8X".utf8))
        bytes.replaceSubrange(24..<30, with: [0xFF, 0x3F, 0, 0xFF, 0x3F, 0])  // canvas 16384 x 16384 (minus one)
        let error = #expect(throws: ImageError.self) { try decoder.decodeAnimation(Data(bytes)) }
        #expect(error.map { "\($0)".contains("16384") || "\($0)".contains("corrupt") } ?? false, "\(String(describing: error))")
        #expect(throws: ImageError.self) { try decoder.decode(bytes, maxPixels: 1_000_000) }
    }

    @Test("a GIF frame bomb (20,000 one-pixel frames) fails on the frame count, in one line")
    func frameCountBomb() throws {
        let gif = Data(TinyGIF.make(width: 1, height: 1, frames: 20_000))
        let error = #expect(throws: ImageError.self) { try decoder.decodeAnimation(gif) }
        guard case .limitExceeded(let reason)? = error else {
            Issue.record("expected limitExceeded, got \(String(describing: error))")
            return
        }
        #expect(reason == "GIF has more frames than the limit of 10000")  // counting stopped past the limit
        #expect(!"\(error!)".contains("\n"))
        // A thumbnail reads the first frame only.
        #expect(try decoder.decode(gif).pixelCount == 1)
    }

    @Test("a GIF of 100 frames on a 2000x2000 canvas (1.6 GB decoded) fails on the bytes before decoding any")
    func frameBytesBomb() throws {
        let gif = Data(TinyGIF.make(width: 2000, height: 2000, frames: 100))
        #expect(gif.count < 4000)
        let error = #expect(throws: ImageError.self) { try decoder.decodeAnimation(gif, maxBytes: 512 << 20) }
        guard case .limitExceeded(let reason)? = error else {
            Issue.record("expected limitExceeded, got \(String(describing: error))")
            return
        }
        // 100 frames of 16 MB, and the decoder's canvases: 1.6 GB from a 4 KB file.
        #expect(reason.hasPrefix("GIF needs 1632065536 bytes for 100 frames of 2000x2000, more than the limit of"))
        // Within the limit it decodes: 3 frames of 2000x2000.
        let three = try decoder.decodeAnimation(Data(TinyGIF.make(width: 2000, height: 2000, frames: 3)))
        #expect(three.frames.count == 3 && three.frames[2].delay == .milliseconds(50))
        #expect(three.frames[0].bitmap[0, 0] == .black && three.frames[0].bitmap[1, 1] == .clear)
    }

    @Test("the frame limit is the caller's: maxFrames and maxPixels are honoured")
    func callerLimits() throws {
        let gif = Data(TinyGIF.make(width: 10, height: 10, frames: 5))
        #expect(throws: ImageError.limitExceeded("GIF has more frames than the limit of 4")) {
            try decoder.decodeAnimation(gif, maxFrames: 4)
        }
        #expect(try decoder.decodeAnimation(gif, maxFrames: 5).frames.count == 5)
        #expect(throws: ImageError.tooLarge(width: 10, height: 10, limit: 99)) {
            try decoder.decodeAnimation(gif, maxPixels: 99)
        }
    }
}
