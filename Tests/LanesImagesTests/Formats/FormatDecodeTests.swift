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
}
