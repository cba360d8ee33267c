import Foundation

/// The frames of an animated GIF, WebP or AVIF sequence, each composited on the canvas as a browser shows it, with
/// how long it stays. A still image is an animation of one frame.
///
/// ```swift
/// let animation = try ImageDecoder().decodeAnimation(data)
/// for frame in animation.frames {
///     show(frame.bitmap)
///     try await Task.sleep(for: frame.delay)
/// }
/// ```
public struct Animation: Sendable, Equatable {
    /// One frame: the whole canvas after it was drawn, and how long it is shown.
    public struct Frame: Sendable, Equatable {
        /// The canvas with this frame drawn on it (RGBA8, every frame the same size).
        public var bitmap: Bitmap
        /// How long the frame is shown, as the file says (GIF counts hundredths of a second; 0 is kept as 0:
        /// browsers show such frames for 100 ms, see ``displayDelay``).
        public var delay: Duration

        /// Creates a frame.
        ///
        /// ```swift
        /// let frame = Animation.Frame(bitmap: Bitmap(width: 1, height: 1, filledWith: .white), delay: .milliseconds(80))
        /// ```
        public init(bitmap: Bitmap, delay: Duration) {
            self.bitmap = bitmap
            self.delay = delay
        }

        /// The delay a view should wait: ``delay``, but 100 ms where the file says 10 ms or less, as browsers do.
        ///
        /// ```swift
        /// Animation.Frame(bitmap: Bitmap(width: 1, height: 1), delay: .zero).displayDelay   // 100 ms
        /// ```
        public var displayDelay: Duration { delay <= .milliseconds(10) ? .milliseconds(100) : delay }
    }

    /// The frames, in order (at least one).
    public var frames: [Frame]
    /// How many times the animation plays: 0 for ever (and for a still image).
    public var loopCount: Int

    /// Creates an animation.
    ///
    /// ```swift
    /// let still = Animation(frames: [.init(bitmap: Bitmap(width: 1, height: 1), delay: .zero)], loopCount: 0)
    /// ```
    public init(frames: [Frame], loopCount: Int) {
        self.frames = frames
        self.loopCount = loopCount
    }

    /// Whether there is more than one frame.
    public var isAnimated: Bool { frames.count > 1 }
}

extension ImageDecoder {
    /// The default limit on an animation's decoded frames together: 256 MB (64 frames of 1000x1000).
    public static let defaultMaxAnimationBytes = 256 << 20
    /// The default limit on an animation's frame count.
    public static let defaultMaxFrames = 10_000

    /// Decodes every frame of an animated GIF, WebP, AVIF sequence or JPEG XL animation (a PNG, a JPEG or a still
    /// image gives one frame). The limits are checked from the headers before any frame is decoded: the canvas against
    /// `maxPixels`, the frame count against `maxFrames`, and all the frames' pixels (4 bytes each) plus the decoder's
    /// own canvases against `maxBytes` — pass the room you have in a ``MemoryBudget``. A file over a limit fails with
    /// ``ImageError/limitExceeded(_:)`` (or ``ImageError/tooLarge(width:height:limit:)`` for the canvas).
    ///
    /// ```swift
    /// let budget = MemoryBudget(limit: 512 << 20)
    /// let animation = try ImageDecoder().decodeAnimation(data, maxBytes: budget.limit / 4)
    /// print(animation.frames.count, animation.frames.map(\.delay))
    /// ```
    public func decodeAnimation(_ data: Data, maxPixels: Int = ImageDecoder.defaultMaxPixels,
                                maxBytes: Int = ImageDecoder.defaultMaxAnimationBytes,
                                maxFrames: Int = ImageDecoder.defaultMaxFrames) throws -> Animation {
        try data.withUnsafeBytes { bytes in
            let info = try CodecBridge.probe(bytes)
            guard let pixels = info.pixelCount, pixels <= maxPixels else {
                throw ImageError.tooLarge(width: info.width, height: info.height, limit: maxPixels)
            }
            guard info.format.decodesFrames else {
                let still = try Self.decode(bytes, targetSize: nil, maxPixels: maxPixels)
                guard still.byteCount <= maxBytes else {
                    throw ImageError.limitExceeded("a \(info.format) image of \(still.byteCount) bytes exceeds the "
                                                   + "limit of \(maxBytes) bytes")
                }
                return Animation(frames: [Animation.Frame(bitmap: still, delay: .zero)], loopCount: 0)
            }
            var options = DecoderContext.Options(maxPixels: maxPixels)
            options.maxBytes = maxBytes
            options.maxFrames = maxFrames
            let decoder = try DecoderContext(.memory(bytes), options: options)
            let report = try decoder.startFrames()
            var frames: [Animation.Frame] = []
            frames.reserveCapacity(report.frameCount)
            for _ in 0..<report.frameCount {
                let (bitmap, delay) = try decoder.nextFrame(width: report.width, height: report.height)
                frames.append(Animation.Frame(bitmap: bitmap, delay: .milliseconds(delay)))
            }
            return Animation(frames: frames, loopCount: report.loopCount)
        }
    }
}

extension ImageFormat {
    /// Whether the format is decoded whole, frame by frame (WebP, GIF, AVIF, HEIF, JPEG XL: their libraries
    /// read no rows), rather than in rows like PNG and JPEG.
    ///
    /// ```swift
    /// ImageFormat.gif.decodesFrames   // true
    /// ```
    public var decodesFrames: Bool {
        self == .webp || self == .gif || self == .avif || self == .heif || self == .jxl
    }
}
