import CLanesCodecs

/// WebP, GIF, AVIF, HEIF and JPEG XL through the C frame decoder (`clanes_frames.h`): the header is read and every
/// limit checked (canvas pixels, frame count, the bytes of every frame that will be read) before anything the size of
/// an image is allocated; then frames come out one at a time, composited on the canvas, as RGBA8.
///
/// The context struct lives on the heap so its address stays fixed for the C side.
final class FrameDecoder {
    /// The limits a decode is held to.
    struct Limits {
        var maxPixels: Int
        var maxBytes: Int
        var maxFrames: Int
        var firstFrameOnly: Bool
    }

    private let context: UnsafeMutablePointer<clanes_frames>
    let format: ImageFormat
    /// The size of each frame handed out (the scaled size for a still WebP asked to shrink, else the canvas).
    let width: Int
    let height: Int
    let frameCount: Int
    /// 0: loop for ever.
    let loopCount: Int
    let isOpaque: Bool

    /// Opens a decoder on `bytes` (which must stay valid while it lives), decoding a still WebP straight to
    /// `scaledTo` when given (libwebp's scaling; other formats ignore it).
    init(_ bytes: UnsafeRawBufferPointer, format: ImageFormat, limits: Limits,
         scaledTo scaled: (width: Int, height: Int)? = nil) throws {
        context = .allocate(capacity: 1)
        context.initialize(to: clanes_frames())
        context.pointee.data = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        context.pointee.size = bytes.count
        context.pointee.max_pixels = UInt64(max(0, limits.maxPixels))
        context.pointee.max_bytes = UInt64(max(0, limits.maxBytes))
        context.pointee.max_frames = UInt32(clamping: max(0, limits.maxFrames))
        context.pointee.first_frame_only = limits.firstFrameOnly ? 1 : 0
        if let scaled {
            context.pointee.scaled_width = UInt32(clamping: scaled.width)
            context.pointee.scaled_height = UInt32(clamping: scaled.height)
        }
        let status = clanes_frames_open(context)
        self.format = format
        width = Int(context.pointee.width)
        height = Int(context.pointee.height)
        frameCount = Int(context.pointee.frame_count)
        loopCount = Int(context.pointee.loop_count)
        isOpaque = context.pointee.opaque != 0
        if let error = Self.error(status, context, format: format) {
            throw error  // deinit closes the context
        }
    }

    deinit {
        clanes_frames_close(context)
        context.deinitialize(count: 1)
        context.deallocate()
    }

    /// The bytes the decoder holds besides the frames it hands out (canvases, planes, a row of indices).
    var heldBytes: Int { context.pointee.held_bytes }

    /// The next frame and how long it is shown (in milliseconds, as the file says).
    func next() throws -> (bitmap: Bitmap, delayMilliseconds: Int) {
        let bitmap = try Bitmap(width: width, height: height) { pixels in
            let status = clanes_frames_next(context, pixels.baseAddress, width * 4)
            if let error = Self.error(status, context, format: format) { throw error }
        }
        return (bitmap, Int(context.pointee.delay_ms))
    }

    private static func error(_ status: Int32, _ context: UnsafeMutablePointer<clanes_frames>,
                              format: ImageFormat) -> ImageError? {
        let message = withUnsafeBytes(of: &context.pointee.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if status == CLANES_ERR_TOO_LARGE { return .limitExceeded(message) }
        if status == CLANES_ERR_TRUNCATED { return .truncated }
        var buffer = CodecBridge.messageBuffer()
        for (index, byte) in message.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = CChar(bitPattern: byte) }
        return CodecBridge.decodeError(status, buffer, format: format)
    }
}
