import Foundation
import LanesImages
import Testing

/// WebP, GIF and AVIF decode pixel for pixel as their reference decoders do (dwebp, avifdec, Pillow), at full size,
/// scaled while decoding (a still WebP's thumbnail), and frame by frame with their delays (animations).
@Suite("Formats: WebP, GIF and AVIF against the reference decoders", .timeLimit(.minutes(5)))
struct FormatDecodeTests {
    let decoder = ImageDecoder()

    @Test("lossy, lossless and alpha WebP decode exactly as dwebp does", arguments: [
        "photo-lossy.webp", "photo-lossless.webp", "alpha.webp",
    ])
    func webpStill(_ name: String) throws {
        let bitmap = try decoder.decode(FormatFixture.data(name))
        #expect(firstDifference(bitmap, try FormatFixture.reference(name)) == nil)
    }

    @Test("a lossless WebP holds the source's pixels")
    func losslessIsLossless() throws {
        let bitmap = try decoder.decode(FormatFixture.data("photo-lossless.webp"))
        #expect(firstDifference(bitmap, try decoder.decode(FormatFixture.data("photo.png"))) == nil)
    }

    @Test("a WebP thumbnail is scaled by libwebp while it decodes: exactly dwebp -scale 24 18")
    func webpShrinkOnLoad() throws {
        let data = try FormatFixture.data("photo-lossy.webp")
        let thumbnail = try decoder.decode(data, targetSize: TargetSize(maxWidth: 24))
        #expect(thumbnail.width == 24 && thumbnail.height == 18)
        #expect(firstDifference(thumbnail, try FormatFixture.reference("photo-lossy.webp.24x18")) == nil)
        // The budget the pipeline reserves for it holds no full-size frame.
        let info = try decoder.probe(data)
        #expect(ImageDecoder.workingSetBytes(for: info, targetSize: TargetSize(maxWidth: 24)) < 64 * 48 * 4)
    }

    @Test("a GIF thumbnail is box-shrunk while it decodes: each pixel the rounded mean of its 4x4 block (interlaced)")
    func gifShrinkOnLoad() throws {
        let data = try FormatFixture.data("still.gif")
        let full = try decoder.decode(data)
        let thumbnail = try decoder.decode(data, targetSize: TargetSize(maxWidth: 16))
        #expect(thumbnail.width == 16 && thumbnail.height == 12)
        var expected = [UInt8]()
        full.withUnsafePixels { pixels in
            for y in 0..<12 {
                for x in 0..<16 {
                    for channel in 0..<3 {
                        var sum = 0
                        for dy in 0..<4 {
                            for dx in 0..<4 { sum += Int(pixels[((y * 4 + dy) * 64 + x * 4 + dx) * 4 + channel]) }
                        }
                        expected.append(UInt8((sum + 8) / 16))
                    }
                    expected.append(255)
                }
            }
        }
        #expect(firstDifference(thumbnail, Bitmap(width: 16, height: 12, pixels: expected)) == nil)
        // An animation's first frame with transparency is not shrunk (its clear pixels would darken the blocks).
        let animated = try decoder.decode(try FormatFixture.data("anim.gif"), targetSize: TargetSize(maxWidth: 16))
        #expect(animated.width == 16 && animated.height == 12)
    }

    @Test("AVIF (4:2:0, and with alpha) decodes exactly as avifdec does", arguments: ["photo.avif", "alpha.avif"])
    func avifStill(_ name: String) throws {
        let bitmap = try decoder.decode(FormatFixture.data(name))
        #expect(firstDifference(bitmap, try FormatFixture.reference(name)) == nil)
    }

    @Test("an interlaced one-frame GIF decodes as Pillow does")
    func gifStill() throws {
        let bitmap = try decoder.decode(FormatFixture.data("still.gif"))
        #expect(firstDifference(bitmap, try FormatFixture.reference("still.gif", frame: 0)) == nil)
    }

    @Test("animated WebP and GIF: every frame as Pillow composites it, delays 80/120/200 ms, two loops",
          arguments: ["anim.webp", "anim.gif"])
    func animation(_ name: String) throws {
        let data = try FormatFixture.data(name)
        let animation = try decoder.decodeAnimation(data)
        #expect(animation.frames.count == 3)
        #expect(animation.frames.map(\.delay) == [.milliseconds(80), .milliseconds(120), .milliseconds(200)])
        #expect(animation.loopCount == 2)
        #expect(animation.isAnimated)
        for (index, frame) in animation.frames.enumerated() {
            let reference = try FormatFixture.reference(name, frame: index)
            #expect(firstDifference(frame.bitmap, reference, ignoringClearColour: true) == nil, "frame \(index)")
        }
        // A plain decode (a thumbnail, a cell) is the first frame.
        #expect(firstDifference(try decoder.decode(data), animation.frames[0].bitmap) == nil)
        // Frames differ: the animation really moves.
        #expect(animation.frames[0].bitmap != animation.frames[1].bitmap)
    }

    @Test("the header is read by content, not by name: format, size, animation")
    func probe() throws {
        let cases: [(String, ImageFormat, Bool)] = [
            ("photo-lossy.webp", .webp, false), ("anim.webp", .webp, true), ("anim.gif", .gif, false),
            ("photo.avif", .avif, false),
        ]
        for (name, format, animated) in cases {
            let info = try decoder.probe(FormatFixture.data(name))
            #expect(info.format == format && info.width == 64 && info.height == 48, "\(name)")
            #expect(info.isAnimated == animated, "\(name)")
            #expect(format.isDecodable && format.decodesFrames)
        }
    }

    @Test("a still image is an animation of one frame; PNG and JPEG too")
    func stillAnimation() throws {
        for name in ["photo-lossy.webp", "photo.avif", "still.gif", "photo.png"] {
            let animation = try decoder.decodeAnimation(FormatFixture.data(name))
            #expect(animation.frames.count == 1 && !animation.isAnimated, "\(name)")
            #expect(animation.frames[0].bitmap.width == 64, "\(name)")
        }
        #expect(Animation.Frame(bitmap: Bitmap(width: 1, height: 1), delay: .zero).displayDelay == .milliseconds(100))
    }

    @Test("GIF frames composite as browsers show them: sub-rectangles, transparency, disposal 2 and 3, clipping")
    func gifComposition() throws {
        let red = RGBA(red: 255, green: 0, blue: 0), green = RGBA(red: 0, green: 255, blue: 0)
        let blue = RGBA(red: 0, green: 0, blue: 255)
        let gif = TinyGIF.composed(width: 4, height: 4, frames: [
            .init(width: 4, height: 4, indices: Array(repeating: 1, count: 16)),
            // Green 2x2 at (1, 1) whose top-left pixel is transparent; cleared to transparent afterwards.
            .init(left: 1, top: 1, width: 2, height: 2, indices: [0, 2, 2, 2], disposal: 2, transparent: 0),
            // Blue at the origin, then the canvas from before it comes back.
            .init(left: 0, top: 0, width: 1, height: 1, indices: [3], disposal: 3),
            // Blue 2x2 at (3, 3): only its first pixel is on the canvas.
            .init(left: 3, top: 3, width: 2, height: 2, indices: [3, 3, 3, 3]),
        ])
        let frames = try decoder.decodeAnimation(Data(gif)).frames.map(\.bitmap)
        #expect(frames.count == 4)
        func expect(_ frame: Int, _ pixel: (Int, Int) -> RGBA) {
            for y in 0..<4 {
                for x in 0..<4 where frames[frame][x, y] != pixel(x, y) {
                    Issue.record("frame \(frame) (\(x), \(y)): \(frames[frame][x, y]), expected \(pixel(x, y))")
                }
            }
        }
        let block = { (x: Int, y: Int) in (1...2).contains(x) && (1...2).contains(y) }
        expect(0) { _, _ in red }
        expect(1) { x, y in block(x, y) && (x, y) != (1, 1) ? green : red }
        expect(2) { x, y in (x, y) == (0, 0) ? blue : block(x, y) ? .clear : red }
        expect(3) { x, y in (x, y) == (3, 3) ? blue : block(x, y) ? .clear : red }
        #expect(try decoder.decodeAnimation(Data(gif)).frames.allSatisfy { $0.delay == .milliseconds(100) })
    }
}
