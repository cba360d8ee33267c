import Foundation
import LanesImages

/// What one input did to the decoder: decoded, or failed with a known kind of ``ImageError``.
/// Anything else (a crash, a trap, a broken invariant) ends the process, which is what the
/// fuzzer is looking for.
enum FuzzOutcome: String, CaseIterable, Sendable {
    case decoded
    case tooLarge
    case truncated
    case corrupt
    case unsupportedFormat
    case unsupportedVariant
    case outOfMemory
}

/// The decoding work one fuzz input goes through, shared by the libFuzzer entry point and the
/// corpus replayer so both exercise exactly the same code.
enum FuzzTarget {
    /// Pixel limit for fuzz inputs: big enough for every real fixture, small enough that a
    /// header claiming a huge image fails fast instead of eating the RSS limit.
    static let maxPixels = 4_000_000
    /// The box of the downsampling variant (JPEG DCT scaling, PNG decode-then-reduce, orientation).
    static let thumbnail = TargetSize(maxWidth: 64, maxHeight: 48)

    private static let decoder = ImageDecoder()
    private static let encoder = ImageEncoder()

    /// Runs probe, a full decode and a downsampled decode on `bytes` and checks that their
    /// answers agree. Returns the full decode's outcome; traps when an invariant breaks.
    static func run(_ bytes: [UInt8]) -> FuzzOutcome {
        let info = try? decoder.probe(bytes)
        let full = outcome { try decoder.decode(bytes, maxPixels: maxPixels) }
        let small = outcome { try decoder.decode(bytes, targetSize: thumbnail, maxPixels: maxPixels) }

        if case .success(let bitmap) = full {
            // Decoding succeeded, so the header was readable and must agree with the pixels.
            guard let info else { fail("decoded \(bitmap.width)x\(bitmap.height) but probe failed") }
            check(bitmap.width == info.displayWidth && bitmap.height == info.displayHeight,
                  "decoded \(bitmap.width)x\(bitmap.height), probe says \(info.displayWidth)x\(info.displayHeight)")
            check(bitmap.pixels.count == bitmap.width * bitmap.height * 4, "pixel buffer has the wrong size")
        }
        if case .success(let thumb) = small {
            check(thumb.width <= thumbnail.maxWidth && thumb.height <= thumbnail.maxHeight,
                  "thumbnail \(thumb.width)x\(thumb.height) exceeds \(thumbnail)")
            roundTrip(thumb)
        }
        if info?.format.decodesFrames == true {
            animation(bytes, full: full)
            shrunk(bytes, full: full)
        }
        if info?.format == .png || info?.format == .jpeg { incremental(bytes, full: full, info: info) }
        FuzzContexts.run(bytes, full: full, format: info?.format)
        // A file that decodes in full must decode small too (it may not the other way round:
        // a JPEG scaled in the DCT domain can skip damage the full decode trips over).
        if case .success = full, case .failure(let error) = small {
            fail("full decode succeeded but the thumbnail failed: \(error)")
        }
        switch full {
        case .success: return .decoded
        case .failure(let error): return classify(error)
        }
    }

    /// A WebP, GIF or AVIF through the animation API too (every frame, small limits): its first frame is the plain
    /// decode, every frame has the canvas's size.
    private static func animation(_ bytes: [UInt8], full: Result<Bitmap, ImageError>) {
        let frames: Animation
        do {
            frames = try decoder.decodeAnimation(Data(bytes), maxPixels: maxPixels, maxBytes: 64 << 20, maxFrames: 64)
        } catch is ImageError {
            return
        } catch {
            fail("the animation decoder threw a non-ImageError: \(error)")
        }
        check(!frames.frames.isEmpty, "an animation of no frames")
        let first = frames.frames[0].bitmap
        check(frames.frames.allSatisfy { $0.bitmap.width == first.width && $0.bitmap.height == first.height },
              "frames of different sizes")
        if case .success(let bitmap) = full {
            // libde265 leaves the blocks of damaged HEVC data undecoded, holding whatever the memory held, and
            // libheif 1.15 reports no error for it even with strict decoding: two decodes of one damaged HEIF may
            // differ there (Fixtures/fuzz/heif-damaged-hevc-decodes.heic). Every other format decodes the same twice.
            if frames.frames.count == 1, ImageFormat.sniff(bytes) == .heif {
                check(bitmap.width == first.width && bitmap.height == first.height, "the first frame has another size")
            } else {
                check(bitmap == first, "the first frame differs from the plain decode")
            }
        }
    }

    /// A WebP, GIF, AVIF, HEIF or JPEG XL decoded for a small box: a still WebP through libwebp's scaling, an opaque
    /// GIF's first frame box-shrunk while it decodes (gif.c), the others resized; it fits the box, and succeeds
    /// whenever the full decode did.
    private static func shrunk(_ bytes: [UInt8], full: Result<Bitmap, ImageError>) {
        let box = TargetSize(maxWidth: 16, maxHeight: 16)
        let small = outcome { try decoder.decode(bytes, targetSize: box, maxPixels: maxPixels) }
        if case .success(let bitmap) = small {
            check(bitmap.width <= 16 && bitmap.height <= 16 && bitmap.width > 0 && bitmap.height > 0,
                  "a \(bitmap.width)x\(bitmap.height) decode for a 16x16 box")
        }
        if case .success = full, case .failure(let error) = small {
            fail("full decode succeeded but the 16x16 decode failed: \(error)")
        }
    }

    /// The bytes fed to the incremental decoder in pieces (sized by the first byte), a preview rendered whenever one is
    /// ready: it fails only with an ``ImageError``, and when it and the full decode both succeed on an upright image
    /// they agree on the size.
    private static func incremental(_ bytes: [UInt8], full: Result<Bitmap, ImageError>, info: ImageInfo?) {
        let piece = 1 + Int(bytes.first ?? 0) * 37
        let decoder = IncrementalDecoder(previews: true, maxPixels: maxPixels)
        let result: Result<Bitmap, ImageError>
        do {
            var offset = 0
            var shown = 0
            repeat {
                let end = min(bytes.count, offset + piece)
                try decoder.append(Data(bytes[offset..<end]), isLast: end == bytes.count)
                offset = end
                if decoder.previewsReady > shown {
                    shown = decoder.previewsReady
                    let preview = try decoder.preview()
                    check(preview.width == decoder.width && preview.height == decoder.height, "a preview of another size")
                }
            } while offset < bytes.count
            result = .success(try decoder.decodeRemainingImage())
        } catch let error as ImageError {
            result = .failure(error)
        } catch {
            fail("the incremental decoder threw a non-ImageError: \(error)")
        }
        if case .success(let streamed) = result, case .success(let bitmap) = full, info?.orientation == .up {
            check(streamed.width == bitmap.width && streamed.height == bitmap.height,
                  "incremental \(streamed.width)x\(streamed.height), whole \(bitmap.width)x\(bitmap.height)")
        }
    }

    /// The decoded thumbnail survives a PNG round trip unchanged (fuzzes the encoder a little).
    private static func roundTrip(_ bitmap: Bitmap) {
        do {
            let png = try encoder.encode(bitmap, as: .png(compressionLevel: 1))
            let back = try decoder.decode(png)
            check(back == bitmap, "PNG round trip changed the pixels of a \(bitmap.width)x\(bitmap.height) image")
        } catch {
            fail("PNG round trip of a decoded \(bitmap.width)x\(bitmap.height) image failed: \(error)")
        }
    }

    static func outcome(_ body: () throws -> Bitmap) -> Result<Bitmap, ImageError> {
        do {
            return .success(try body())
        } catch let error as ImageError {
            return .failure(error)
        } catch {
            fail("the decoder threw a non-ImageError: \(error)")
        }
    }

    private static func classify(_ error: ImageError) -> FuzzOutcome {
        switch error {
        case .tooLarge, .limitExceeded: return .tooLarge
        case .truncated: return .truncated
        case .corrupt: return .corrupt
        case .unsupportedFormat: return .unsupportedFormat
        case .unsupportedVariant: return .unsupportedVariant
        case .outOfMemory: return .outOfMemory
        // The decoder hands the codecs the sizes it probed: an argument error means the probe
        // and libpng/libjpeg disagree about the file, which is a bug worth a crash report.
        case .invalidArgument, .cancelled, .encodeFailed:
            fail("unexpected decode error: \(error)")
        }
    }

    static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fail(message()) }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("lanes-fuzz: invariant broken: \(message)\n".utf8))
        abort()
    }
}
