/// ``Resize`` as a row stage: each upstream row is premultiplied and resampled horizontally into a
/// ring of as many Float rows as one output row's vertical taps (2 when enlarging, about
/// `ceil(source/destination) + 1` when shrinking), and each output row is made from the ring. It
/// never holds the source image, and produces exactly the bytes of the whole-bitmap resize.
///
/// ```swift
/// let thumbnail = try Bitmap(readingAllRowsOf: ResizeRows(ImageRowDecoder(data: png), width: 256, height: 171))
/// ```
public final class ResizeRows: RowStage {
    public let upstream: any RowSource
    public let width: Int
    public let height: Int
    public var layout: PixelLayout { .rgba8 }
    public private(set) var rowsRead = 0
    public var retainedBytes: Int { ringRows * width * 16 + upstream.width * (16 + 4) }

    private let horizontal: Resampler.Axis
    private let vertical: Resampler.Axis
    private let ringRows: Int
    private let ring: UnsafeMutablePointer<SIMD4<Float>>
    private let scratch: UnsafeMutablePointer<SIMD4<Float>>
    private let input: UnsafeMutablePointer<UInt8>
    /// The ring rows of one output row's taps.
    private let tapRows: UnsafeMutablePointer<UnsafePointer<SIMD4<Float>>>
    /// Whether the upstream is known to be opaque (premultiplying is then skipped: it multiplies by 1).
    private let opaque: Bool
    /// Upstream rows `0..<loaded` are in the ring (the last `ringRows` of them).
    private var loaded = 0
    private let isCancelled: () -> Bool

    /// `upstream` resampled to `width` x `height` (both positive).
    public init(_ upstream: any RowSource, width: Int, height: Int, isCancelled: @escaping () -> Bool = { false }) throws {
        try RowStages.requireRGBA8(upstream, stage: "a resize")
        guard width > 0, height > 0 else { throw ImageError.invalidArgument("a resize needs a positive size, got \(width)x\(height)") }
        self.upstream = upstream
        self.width = width
        self.height = height
        self.isCancelled = isCancelled
        horizontal = Resampler.Axis(source: upstream.width, destination: width)
        vertical = Resampler.Axis(source: upstream.height, destination: height)
        ringRows = max(1, vertical.count.max() ?? 1)
        ring = .allocate(capacity: ringRows * width)
        scratch = .allocate(capacity: upstream.width)
        input = .allocate(capacity: upstream.width * 4)
        tapRows = .allocate(capacity: ringRows)
        opaque = BlurRows.isOpaque(upstream)
    }

    deinit {
        ring.deallocate()
        scratch.deallocate()
        input.deallocate()
        tapRows.deallocate()
    }

    public func readRows(_ count: Int, into destination: UnsafeMutableRawPointer, bytesPerRow: Int) throws {
        try checkRead(count, bytesPerRow: bytesPerRow)
        if width == upstream.width && height == upstream.height { // nothing to resample
            try upstream.readRows(count, into: destination, bytesPerRow: bytesPerRow)
            rowsRead += count
            return
        }
        let out = destination.assumingMemoryBound(to: UInt8.self)
        try vertical.weights.withUnsafeBufferPointer { weights in
            for y in rowsRead..<(rowsRead + count) {
                if y % Resampler.bandHeight == 0 && isCancelled() { throw ImageError.cancelled }
                let start = vertical.first[y], base = vertical.offset[y], taps = vertical.count[y]
                while loaded < start + taps {
                    // Also between source rows: a strong shrink reads many of them per band of output rows.
                    if loaded % Resampler.bandHeight == 0 && loaded > 0 && isCancelled() { throw ImageError.cancelled }
                    try upstream.readRows(1, into: input, bytesPerRow: upstream.width * 4)
                    Resampler.horizontalRow(input, sourceWidth: upstream.width, axis: horizontal, opaque: opaque,
                                            scratch: scratch, into: ring + (loaded % ringRows) * width)
                    loaded += 1
                }
                let row = out + (y - rowsRead) * bytesPerRow
                for k in 0..<taps {
                    tapRows[k] = UnsafePointer(ring + ((start + k) % ringRows) * width)
                }
                for x in 0..<width {
                    var sum = SIMD4<Float>()
                    for k in 0..<taps {
                        sum += tapRows[k][x] * weights[base + k]
                    }
                    Resampler.storeUnpremultiplied(sum, to: row + x * 4)
                }
            }
        }
        rowsRead += count
    }
}

extension ResizeRows: OpacityReporting {
    /// Opaque rows stay opaque.
    public var isOpaque: Bool { BlurRows.isOpaque(upstream) }
}
