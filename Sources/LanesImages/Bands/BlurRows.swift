/// A Gaussian blur (or a tilt-shift, ``init(_:tiltShift:isCancelled:)``) as a row stage: it pulls
/// rows from `upstream` only as far as the rows asked of it need (`r = ceil(3σ)` rows ahead), blurs
/// them horizontally into one ring of `2r + 1` rows per cache-sized strip, and makes each output row
/// from its ring. It holds a window of `128 + r + 1` input rows and the rings, never the image, and
/// produces exactly the bytes of ``GaussianBlur`` / ``TiltShift`` on the same pixels.
///
/// An opaque input (a JPEG, a PNG without alpha or `tRNS`, a bitmap whose every alpha is 255) is
/// blurred as RGB, like the whole-bitmap blur; an input that might have alpha blurs all four
/// channels (an opaque one then still comes out opaque, with the same RGB).
///
/// ```swift
/// let blurred = try BlurRows(ImageRowDecoder(data: jpeg), sigma: 8)
/// let bitmap = try Bitmap(readingAllRowsOf: blurred)
/// ```
public final class BlurRows: RowStage {
    public let upstream: any RowSource
    public var width: Int { upstream.width }
    public var height: Int { upstream.height }
    public var layout: PixelLayout { .rgba8 }
    public private(set) var rowsRead = 0
    public var retainedBytes: Int { window.byteCount + rings.byteCount }

    private let engine: BlurEngine
    private let rings: BlurEngine.Rings
    private let window: RowWindow
    /// Tilt-shift blend weights per row, in 1/256 (nil: a plain blur).
    private let blend: [Int]?
    private let isCancelled: () -> Bool

    /// A blur of `sigma` (> 0) pixels over `upstream`'s RGBA8 rows.
    public convenience init(_ upstream: any RowSource, sigma: Double, isCancelled: @escaping () -> Bool = { false }) throws {
        guard sigma > 0, sigma.isFinite else { throw ImageError.invalidArgument("a blur needs a finite sigma > 0, got \(sigma)") }
        try self.init(upstream, sigma: sigma, blend: nil, isCancelled: isCancelled)
    }

    /// `tiltShift` over `upstream`'s RGBA8 rows: rows in the sharp band are copied, the others blended
    /// with the blur. A tilt-shift with σ 0, or with nothing to blur, copies every row.
    public convenience init(_ upstream: any RowSource, tiltShift: TiltShift,
                            isCancelled: @escaping () -> Bool = { false }) throws {
        let weights = tiltShift.blendWeights(height: upstream.height)
        let blurs = tiltShift.sigma > 0 && weights.contains { $0 > 0 }
        try self.init(upstream, sigma: blurs ? tiltShift.sigma : 0, blend: weights, isCancelled: isCancelled)
    }

    private init(_ upstream: any RowSource, sigma: Double, blend: [Int]?, isCancelled: @escaping () -> Bool) throws {
        try RowStages.requireRGBA8(upstream, stage: "a blur")
        self.upstream = upstream
        self.blend = blend
        self.isCancelled = isCancelled
        // σ 0 (a tilt-shift with nothing to blur): a 1-pixel kernel is built but every row is skipped and copied.
        engine = BlurEngine(kernel: GaussianKernel(sigma: sigma > 0 ? sigma : 1), width: upstream.width,
                            height: upstream.height, opaque: Self.isOpaque(upstream))
        rings = BlurEngine.Rings(engine: engine, interleaved: true, firstRow: 0)
        let radius = sigma > 0 ? engine.kernel.radius : 0
        window = RowWindow(upstream: upstream, capacity: BlurEngine.progressBand + radius + 1)
        if sigma == 0 { skipsAll = true }
    }

    private var skipsAll = false

    /// Whether `source`'s rows are known to be opaque before reading them.
    static func isOpaque(_ source: any RowSource) -> Bool {
        (source as? any OpacityReporting)?.isOpaque ?? false
    }

    public func readRows(_ count: Int, into destination: UnsafeMutableRawPointer, bytesPerRow: Int) throws {
        try checkRead(count, bytesPerRow: bytesPerRow)
        let first = rowsRead
        let out = destination.assumingMemoryBound(to: UInt8.self)
        func destinationRow(_ y: Int) -> UnsafeMutablePointer<UInt8> { out + (y - first) * bytesPerRow }
        let rowBytes = width * 4
        var start = first
        while start < first + count {
            let end = min(start + BlurEngine.progressBand, first + count)
            if !skipsAll {
                try engine.blur(sourceRow: { UnsafePointer(try window.row($0)) }, destinationRow: destinationRow,
                                rows: start..<end, rings: rings, isCancelled: isCancelled,
                                skipRow: blend.map { weights in { weights[$0] == 0 } })
            } else if isCancelled() {
                throw ImageError.cancelled
            }
            if let blend {
                for y in start..<end {
                    let weight = skipsAll ? 0 : blend[y]
                    let original = try window.row(y), blurred = destinationRow(y)
                    if weight == 0 {
                        blurred.update(from: original, count: rowBytes)
                    } else if weight < 256 {
                        let kept = 256 - weight
                        for i in 0..<rowBytes {
                            let mixed = Int(blurred[i]) * weight + Int(original[i]) * kept + 128
                            blurred[i] = UInt8(truncatingIfNeeded: mixed >> 8)
                        }
                    }
                }
            }
            start = end
        }
        rowsRead += count
    }
}

/// A row source that knows, before handing out rows, whether all of them are opaque.
public protocol OpacityReporting {
    /// True when every pixel's alpha is certainly the maximum.
    var isOpaque: Bool { get }
}

extension BlurRows: OpacityReporting {
    /// A blur of opaque rows is opaque.
    public var isOpaque: Bool { Self.isOpaque(upstream) }
}

extension BitmapRows: OpacityReporting {
    /// Every alpha sample of the bitmap is the maximum (scanned, as the whole-bitmap blur does).
    public var isOpaque: Bool {
        guard bitmap.layout == .rgba8 else { return bitmap.isOpaque }
        return bitmap.withUnsafePixels { BlurEngine.isOpaque($0.baseAddress!, count: bitmap.pixelCount) }
    }
}
