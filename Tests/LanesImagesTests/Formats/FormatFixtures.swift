import Foundation
import LanesImages
import Testing

/// The WebP, GIF and AVIF fixtures (Fixtures/formats) and their reference decodes, made by dwebp, avifdec and Pillow
/// (`scripts/make-format-fixtures`; provenance in Fixtures/formats/README.md).
enum FormatFixture {
    static func data(_ name: String) throws -> Data {
        let url = try #require(
            Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures/formats"),
            "missing fixture formats/\(name)")
        return try Data(contentsOf: url)
    }

    /// The reference decoder's pixels for `name` (its PNG, decoded by the PNG path the other suites check).
    static func reference(_ name: String) throws -> Bitmap {
        try ImageDecoder().decode(data(name + ".png"))
    }

    /// The reference pixels of frame `index` of an animation.
    static func reference(_ name: String, frame index: Int) throws -> Bitmap {
        try ImageDecoder().decode(data("\(name).\(index).png"))
    }
}

/// The first pixel where `a` and `b` differ, comparing only alpha where both are fully transparent (a GIF's
/// transparent pixels carry no colour); nil when they match.
func firstDifference(_ a: Bitmap, _ b: Bitmap, ignoringClearColour: Bool = false) -> String? {
    guard a.width == b.width, a.height == b.height else { return "size \(a.width)x\(a.height) vs \(b.width)x\(b.height)" }
    for y in 0..<a.height {
        for x in 0..<a.width {
            let p = a[x, y], q = b[x, y]
            if ignoringClearColour && p.alpha == 0 && q.alpha == 0 { continue }
            if p != q { return "(\(x), \(y)): \(p) vs \(q)" }
        }
    }
    return nil
}

/// GIFs written byte by byte (independent of giflib): a two-colour palette and 1x1 frames of index 0 (black).
enum TinyGIF {
    /// A `width` x `height` canvas with `frames` frames of one pixel each.
    static func make(width: Int, height: Int, frames: Int, delayCentiseconds: Int = 5) -> [UInt8] {
        var out = Array("GIF89a".utf8) + le16(width) + le16(height) + [0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        out += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0]
        let frame: [UInt8] = [0x21, 0xF9, 4, 0x04] + le16(delayCentiseconds) + [0, 0]  // disposal 1, no transparency
            + [0x2C] + le16(0) + le16(0) + le16(1) + le16(1) + [0]
            + [2, 2, 0x44, 0x01, 0]  // LZW: clear, 0, end
        for _ in 0..<frames { out += frame }
        return out + [0x3B]
    }

    /// Sets the logical screen's size (a header that lies about the canvas).
    static func withCanvas(_ gif: [UInt8], width: Int, height: Int) -> [UInt8] {
        var out = gif
        out.replaceSubrange(6..<10, with: le16(width) + le16(height))
        return out
    }

    /// One frame of ``composed(width:height:frames:)``: a rectangle of palette indices (0 black, 1 red, 2 green,
    /// 3 blue), its disposal and its transparent index.
    struct Frame {
        var left = 0, top = 0, width: Int, height: Int
        var indices: [Int]
        var disposal = 1
        var transparent: Int?
    }

    /// A GIF of `frames` on a `width` x `height` canvas with a four-colour global palette. The LZW data is written
    /// with a clear code every two pixels, so the code size stays 3 bits (the decoder adds one entry between clears).
    static func composed(width: Int, height: Int, frames: [Frame]) -> [UInt8] {
        var out = Array("GIF89a".utf8) + le16(width) + le16(height) + [0x81, 0, 0]
        out += [0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]
        for frame in frames {
            let flags = UInt8(frame.disposal << 2) | (frame.transparent == nil ? 0 : 1)
            out += [0x21, 0xF9, 4, flags] + le16(10) + [UInt8(frame.transparent ?? 0), 0]
            out += [0x2C] + le16(frame.left) + le16(frame.top) + le16(frame.width) + le16(frame.height) + [0]
            var codes: [Int] = []
            for (offset, index) in frame.indices.enumerated() {
                if offset % 2 == 0 { codes.append(4) }  // clear
                codes.append(index)
            }
            codes.append(5)  // end of information
            var bits = 0, count = 0
            var data: [UInt8] = []
            for code in codes {
                bits |= code << count
                count += 3
                while count >= 8 {
                    data.append(UInt8(bits & 0xFF))
                    bits >>= 8
                    count -= 8
                }
            }
            if count > 0 { data.append(UInt8(bits & 0xFF)) }
            out += [2]
            for start in stride(from: 0, to: data.count, by: 255) {
                let block = data[start..<min(data.count, start + 255)]
                out += [UInt8(block.count)] + block
            }
            out += [0]
        }
        return out + [0x3B]
    }

    private static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }
}
