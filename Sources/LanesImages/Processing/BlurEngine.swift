/// The separable Gaussian blur behind ``GaussianBlur`` and ``TiltShift``.
///
/// The image is processed in vertical strips of at most `stripWidth` pixels so the working set
/// stays in L2. Within a strip, each source row is converted to Float once (`channels` floats a
/// pixel: 4 for RGBA, 3 for RGB when the image is opaque and alpha need not be blurred), convolved
/// horizontally into a ring of `2r + 1` rows; each output row is then the vertical convolution
/// of the ring, rounded to bytes. Both passes treat a row as one flat run of floats: a tap `k`
/// pixels away is `k * channels` floats away, so 4 floats of any channels go per SIMD step and
/// mirrored taps are added before one multiply by their shared weight. Edges are clamped; there
/// is one rounding and no full-size intermediate image. Every channel value is computed by the
/// same sequence of operations whatever `channels` is, so RGB results do not depend on it.
/// With a `rowsCompleted` callback the strips advance together, band by band, each with its own
/// ring, so output rows become final top to bottom (a PNG encoder can follow right behind).
struct BlurEngine {
    let kernel: GaussianKernel
    let width: Int
    let height: Int
    /// Floats per pixel: 4 (RGBA) or 3 (RGB; alpha is written as 255).
    let channels: Int

    /// Output rows between two cancellation checks.
    static let bandHeight = 16
    /// Widest strip, in pixels: a ring of 2r+1 rows x 256 px x 16 B (200 KB at σ = 8) stays in L2.
    static let stripWidth = 256

    /// 2^23: adding it to a Float in [0, 2^22) leaves the rounded integer in the low mantissa bits.
    private static let magic: Float = 8_388_608

    private typealias V = SIMD4<Float>

    /// An engine for a `width` x `height` RGBA8 image; `opaque` (every alpha 255) skips the alpha channel.
    init(kernel: GaussianKernel, width: Int, height: Int, opaque: Bool) {
        self.kernel = kernel
        self.width = width
        self.height = height
        channels = opaque ? 3 : 4
    }

    /// Whether every alpha byte of `count` RGBA8 pixels is 255 (stops after the first 4096-pixel chunk that has one
    /// that is not).
    static func isOpaque(_ pixels: UnsafePointer<UInt8>, count: Int) -> Bool {
        let raw = UnsafeRawPointer(pixels)
        let alpha = UInt32(0xFF).bigEndian == 0xFF ? UInt32(0xFF) : UInt32(0xFF00_0000) // byte 3 of each word
        var start = 0
        while start < count {
            let end = min(start + 4096, count)
            var all = alpha
            for i in start..<end {
                all &= raw.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)
            }
            if all & alpha != alpha { return false }
            start = end
        }
        return true
    }

    /// Output rows per progress report when `rowsCompleted` is given: each band reloads every strip's
    /// ring from beyond L2, so bands of 32 rows cost ~4% more CPU than strip-by-strip; 128 costs nothing measurable.
    static let progressBand = 128
    /// The most ring memory kept for all strips at once so rows finish top to bottom (else strip by strip).
    static let interleavedRingBudget = 48 << 20

    /// Blurs rows `rows` of `source` (a `width` x `height` RGBA8 image) into the same rows of
    /// `destination` (same layout). Other destination rows are not touched.
    ///
    /// With `interleave`, every strip keeps its own ring and the strips advance together in
    /// bands of ``progressBand`` rows, so output rows become final top to bottom; after each
    /// band `rowsCompleted` is called with `n`: rows `rows.lowerBound ..< n` are final. (When the
    /// rings of all strips would exceed ``interleavedRingBudget``, or without `interleave`, the
    /// strips run one after another and it is called once, at the end.) The values computed are
    /// the same either way.
    func blur(source: UnsafePointer<UInt8>, destination: UnsafeMutablePointer<UInt8>, rows: Range<Int>,
              isCancelled: () -> Bool, interleave: Bool, rowsCompleted: (Int) throws -> Void = { _ in }) throws {
        if rows.isEmpty { return }
        let rings = Rings(engine: self, interleaved: interleave && ringBytes(interleaved: true) <= Self.interleavedRingBudget,
                          firstRow: rows.lowerBound)
        let rowBytes = width * 4
        try blur(sourceRow: { source + $0 * rowBytes }, destinationRow: { destination + $0 * rowBytes }, rows: rows,
                 rings: rings, isCancelled: isCancelled, rowsCompleted: rowsCompleted)
    }

    /// What the whole-bitmap blur (`interleave: false`, RGBA: the larger case) allocates besides its output.
    static func wholeBitmapScratchBytes(sigma: Double, width: Int, height: Int) -> Int {
        let engine = BlurEngine(kernel: GaussianKernel(sigma: sigma), width: width, height: height, opaque: false)
        let strip = min(width, stripWidth)
        return engine.ringBytes(interleaved: false) + (strip + 2 * engine.kernel.radius) * 16 + 16
    }

    /// Bytes of the rings: `2r + 1` rows of floats per strip (all strips when `interleaved`).
    func ringBytes(interleaved: Bool) -> Int {
        let strip = min(width, Self.stripWidth)
        let stripCount = (width + strip - 1) / strip
        let rowBytes = (strip * channels * MemoryLayout<Float>.size + 63) & ~63
        return (interleaved ? stripCount : 1) * (2 * kernel.radius + 1) * rowBytes
    }

    /// The rings of horizontally blurred rows and the scratch rows of one blur, kept across calls
    /// so a stream can blur band after band (``BlurRows``). `interleaved`: one ring per strip.
    final class Rings {
        let strip: Int, stripCount: Int, ringSize: Int, rowBytes: Int
        let interleaved: Bool
        let padded: UnsafeMutableRawPointer
        let memory: UnsafeMutableRawPointer
        let taps: UnsafeMutablePointer<UnsafeRawPointer>
        /// Per strip: source rows before it are already blurred horizontally into the strip's ring.
        var nextRows: [Int]
        /// Bytes these buffers hold.
        let byteCount: Int

        init(engine: BlurEngine, interleaved: Bool, firstRow: Int) {
            let radius = engine.kernel.radius
            strip = min(engine.width, BlurEngine.stripWidth)
            stripCount = (engine.width + strip - 1) / strip
            ringSize = 2 * radius + 1
            let pixelBytes = engine.channels * MemoryLayout<Float>.size
            rowBytes = (strip * pixelBytes + 63) & ~63
            self.interleaved = interleaved
            // One extra SIMD4 of slack: 3-channel pixels are loaded and stored 4 floats at a time.
            let paddedBytes = (strip + 2 * radius) * pixelBytes + 16
            padded = UnsafeMutableRawPointer.allocate(byteCount: paddedBytes, alignment: 64)
            let ringBytes = engine.ringBytes(interleaved: interleaved)
            memory = UnsafeMutableRawPointer.allocate(byteCount: ringBytes, alignment: 64)
            taps = UnsafeMutablePointer<UnsafeRawPointer>.allocate(capacity: ringSize)
            nextRows = [Int](repeating: max(firstRow - radius, 0), count: stripCount)
            byteCount = paddedBytes + ringBytes
        }

        deinit {
            padded.deallocate()
            memory.deallocate()
            taps.deallocate()
        }
    }

    /// The general form: source row `y` is `sourceRow(y)` (asked for in increasing order within each strip, never
    /// below `y - r` of the output row being made), destination row `y` is `destinationRow(y)`. Successive calls with
    /// the same interleaved `rings` continue where the last one stopped (`rows` must then follow on).
    func blur(sourceRow: (Int) throws -> UnsafePointer<UInt8>, destinationRow: (Int) -> UnsafeMutablePointer<UInt8>,
              rows: Range<Int>, rings: Rings, isCancelled: () -> Bool,
              skipRow: ((Int) -> Bool)? = nil, rowsCompleted: (Int) throws -> Void = { _ in }) throws {
        if rows.isEmpty { return }
        let radius = kernel.radius
        let ringSize = rings.ringSize, rowBytes = rings.rowBytes, strip = rings.strip
        let padded = rings.padded, taps = rings.taps
        let band = rings.interleaved ? Self.progressBand : rows.count
        if !rings.interleaved {
            rings.nextRows = [Int](repeating: max(rows.lowerBound - radius, 0), count: rings.stripCount)
        }

        try kernel.weights.withUnsafeBufferPointer { weightBuffer in
            let weights = weightBuffer.baseAddress!
            var bandStart = rows.lowerBound
            while bandStart < rows.upperBound {
                let bandEnd = min(bandStart + band, rows.upperBound)
                for stripIndex in 0..<rings.stripCount {
                    let x0 = stripIndex * strip
                    let count = min(strip, width - x0)
                    let floats = count * channels
                    let ring = rings.memory + (rings.interleaved ? stripIndex * ringSize * rowBytes : 0)
                    func slot(_ row: Int) -> UnsafeMutableRawPointer {
                        ring + (row % ringSize) * rowBytes
                    }
                    if !rings.interleaved && stripIndex > 0 {
                        rings.nextRows[stripIndex] = max(rows.lowerBound - radius, 0)
                    }
                    var nextRow = rings.nextRows[stripIndex]
                    for y in bandStart..<bandEnd {
                        if (y - rows.lowerBound) % Self.bandHeight == 0 && isCancelled() {
                            throw ImageError.cancelled
                        }
                        let needed = min(y + radius, height - 1)
                        while nextRow <= needed {
                            loadPadded(row: try sourceRow(nextRow), x0: x0, count: count, radius: radius, into: padded)
                            Self.horizontal(padded: UnsafeRawPointer(padded), floats: floats, stride: channels,
                                            weights: weights, radius: radius, into: slot(nextRow))
                            nextRow += 1
                        }
                        if let skipRow, skipRow(y) { continue }
                        for k in -radius...radius {
                            taps[k + radius] = UnsafeRawPointer(slot(min(max(y + k, 0), height - 1)))
                        }
                        Self.vertical(taps: taps + radius, floats: floats, weights: weights, radius: radius,
                                      into: padded)
                        let out = destinationRow(y) + x0 * 4
                        if channels == 4 {
                            Self.packRGBA(UnsafeRawPointer(padded), count: count, into: out)
                        } else {
                            Self.packRGB(UnsafeRawPointer(padded), count: count, into: out)
                        }
                    }
                    rings.nextRows[stripIndex] = nextRow
                }
                try rowsCompleted(bandEnd)
                bandStart = bandEnd
            }
        }
    }

    /// Converts pixels `x0 - r ..< x0 + count + r` of one row (clamped) to `channels` floats each.
    @inline(__always)
    private func loadPadded(row: UnsafePointer<UInt8>, x0: Int, count: Int, radius: Int,
                            into padded: UnsafeMutableRawPointer) {
        let step = channels * 4
        for i in 0..<(count + 2 * radius) {
            let p = row + min(max(x0 - radius + i, 0), width - 1) * 4
            let value = V(Float(p[0]), Float(p[1]), Float(p[2]), Float(p[3]))
            // With 3 channels the 4th lane spills into the next pixel, which overwrites it (or the slack).
            padded.storeBytes(of: value, toByteOffset: i * step, as: V.self)
        }
    }

    /// `out[i] = Σ_k w[|k|] * padded[i + (r + k) * stride]` for `floats` floats.
    @inline(__always)
    private static func horizontal(padded: UnsafeRawPointer, floats: Int, stride: Int, weights: UnsafePointer<Float>,
                                   radius: Int, into out: UnsafeMutableRawPointer) {
        let w0 = weights[0]
        let tapBytes = stride * 4
        let centre = padded + radius * tapBytes
        var i = 0
        // 32 floats per step: eight independent accumulators keep both FP ports busy.
        while i + 32 <= floats {
            let c = centre + i * 4
            var a0 = c.loadUnaligned(as: V.self) * w0
            var a1 = c.loadUnaligned(fromByteOffset: 16, as: V.self) * w0
            var a2 = c.loadUnaligned(fromByteOffset: 32, as: V.self) * w0
            var a3 = c.loadUnaligned(fromByteOffset: 48, as: V.self) * w0
            var a4 = c.loadUnaligned(fromByteOffset: 64, as: V.self) * w0
            var a5 = c.loadUnaligned(fromByteOffset: 80, as: V.self) * w0
            var a6 = c.loadUnaligned(fromByteOffset: 96, as: V.self) * w0
            var a7 = c.loadUnaligned(fromByteOffset: 112, as: V.self) * w0
            for k in 1...radius {
                let wk = V(repeating: weights[k])
                let l = c - k * tapBytes, r = c + k * tapBytes
                a0 += (l.loadUnaligned(as: V.self) + r.loadUnaligned(as: V.self)) * wk
                a1 += (l.loadUnaligned(fromByteOffset: 16, as: V.self) + r.loadUnaligned(fromByteOffset: 16, as: V.self)) * wk
                a2 += (l.loadUnaligned(fromByteOffset: 32, as: V.self) + r.loadUnaligned(fromByteOffset: 32, as: V.self)) * wk
                a3 += (l.loadUnaligned(fromByteOffset: 48, as: V.self) + r.loadUnaligned(fromByteOffset: 48, as: V.self)) * wk
                a4 += (l.loadUnaligned(fromByteOffset: 64, as: V.self) + r.loadUnaligned(fromByteOffset: 64, as: V.self)) * wk
                a5 += (l.loadUnaligned(fromByteOffset: 80, as: V.self) + r.loadUnaligned(fromByteOffset: 80, as: V.self)) * wk
                a6 += (l.loadUnaligned(fromByteOffset: 96, as: V.self) + r.loadUnaligned(fromByteOffset: 96, as: V.self)) * wk
                a7 += (l.loadUnaligned(fromByteOffset: 112, as: V.self) + r.loadUnaligned(fromByteOffset: 112, as: V.self)) * wk
            }
            let o = out + i * 4
            o.storeBytes(of: a0, as: V.self)
            o.storeBytes(of: a1, toByteOffset: 16, as: V.self)
            o.storeBytes(of: a2, toByteOffset: 32, as: V.self)
            o.storeBytes(of: a3, toByteOffset: 48, as: V.self)
            o.storeBytes(of: a4, toByteOffset: 64, as: V.self)
            o.storeBytes(of: a5, toByteOffset: 80, as: V.self)
            o.storeBytes(of: a6, toByteOffset: 96, as: V.self)
            o.storeBytes(of: a7, toByteOffset: 112, as: V.self)
            i += 32
        }
        while i + 4 <= floats {
            let c = centre + i * 4
            var sum = c.loadUnaligned(as: V.self) * w0
            for k in 1...radius {
                sum += (c.loadUnaligned(fromByteOffset: -k * tapBytes, as: V.self)
                    + c.loadUnaligned(fromByteOffset: k * tapBytes, as: V.self)) * weights[k]
            }
            out.storeBytes(of: sum, toByteOffset: i * 4, as: V.self)
            i += 4
        }
        while i < floats {
            let c = centre + i * 4
            var sum = c.load(as: Float.self) * w0
            for k in 1...radius {
                sum += (c.load(fromByteOffset: -k * tapBytes, as: Float.self)
                    + c.load(fromByteOffset: k * tapBytes, as: Float.self)) * weights[k]
            }
            out.storeBytes(of: sum, toByteOffset: i * 4, as: Float.self)
            i += 1
        }
    }

    /// `out[i] = Σ_k w[|k|] * taps[k][i]` for `floats` floats (not yet rounded).
    @inline(__always)
    private static func vertical(taps: UnsafeMutablePointer<UnsafeRawPointer>, floats: Int, weights: UnsafePointer<Float>,
                                 radius: Int, into out: UnsafeMutableRawPointer) {
        let w0 = weights[0]
        var i = 0
        while i + 32 <= floats {
            let offset = i * 4
            let c = taps[0] + offset
            var a0 = c.load(as: V.self) * w0
            var a1 = c.load(fromByteOffset: 16, as: V.self) * w0
            var a2 = c.load(fromByteOffset: 32, as: V.self) * w0
            var a3 = c.load(fromByteOffset: 48, as: V.self) * w0
            var a4 = c.load(fromByteOffset: 64, as: V.self) * w0
            var a5 = c.load(fromByteOffset: 80, as: V.self) * w0
            var a6 = c.load(fromByteOffset: 96, as: V.self) * w0
            var a7 = c.load(fromByteOffset: 112, as: V.self) * w0
            for k in 1...radius {
                let wk = V(repeating: weights[k])
                let u = taps[-k] + offset, d = taps[k] + offset
                a0 += (u.load(as: V.self) + d.load(as: V.self)) * wk
                a1 += (u.load(fromByteOffset: 16, as: V.self) + d.load(fromByteOffset: 16, as: V.self)) * wk
                a2 += (u.load(fromByteOffset: 32, as: V.self) + d.load(fromByteOffset: 32, as: V.self)) * wk
                a3 += (u.load(fromByteOffset: 48, as: V.self) + d.load(fromByteOffset: 48, as: V.self)) * wk
                a4 += (u.load(fromByteOffset: 64, as: V.self) + d.load(fromByteOffset: 64, as: V.self)) * wk
                a5 += (u.load(fromByteOffset: 80, as: V.self) + d.load(fromByteOffset: 80, as: V.self)) * wk
                a6 += (u.load(fromByteOffset: 96, as: V.self) + d.load(fromByteOffset: 96, as: V.self)) * wk
                a7 += (u.load(fromByteOffset: 112, as: V.self) + d.load(fromByteOffset: 112, as: V.self)) * wk
            }
            let o = out + offset
            o.storeBytes(of: a0, as: V.self)
            o.storeBytes(of: a1, toByteOffset: 16, as: V.self)
            o.storeBytes(of: a2, toByteOffset: 32, as: V.self)
            o.storeBytes(of: a3, toByteOffset: 48, as: V.self)
            o.storeBytes(of: a4, toByteOffset: 64, as: V.self)
            o.storeBytes(of: a5, toByteOffset: 80, as: V.self)
            o.storeBytes(of: a6, toByteOffset: 96, as: V.self)
            o.storeBytes(of: a7, toByteOffset: 112, as: V.self)
            i += 32
        }
        while i + 4 <= floats {
            let offset = i * 4
            var sum = taps[0].load(fromByteOffset: offset, as: V.self) * w0
            for k in 1...radius {
                sum += (taps[-k].load(fromByteOffset: offset, as: V.self)
                    + taps[k].load(fromByteOffset: offset, as: V.self)) * weights[k]
            }
            out.storeBytes(of: sum, toByteOffset: offset, as: V.self)
            i += 4
        }
        while i < floats {
            let offset = i * 4
            var sum = taps[0].load(fromByteOffset: offset, as: Float.self) * w0
            for k in 1...radius {
                sum += (taps[-k].load(fromByteOffset: offset, as: Float.self)
                    + taps[k].load(fromByteOffset: offset, as: Float.self)) * weights[k]
            }
            out.storeBytes(of: sum, toByteOffset: offset, as: Float.self)
            i += 1
        }
    }

    /// Rounds `count` Float RGBA pixels (each channel in 0...255) to bytes. Kept out of line so
    /// the optimiser does not interleave lane extraction with the accumulation loops.
    @inline(never)
    private static func packRGBA(_ floats: UnsafeRawPointer, count: Int, into out: UnsafeMutablePointer<UInt8>) {
        let output = UnsafeMutableRawPointer(out)
        for x in 0..<count {
            let bits = unsafeBitCast(floats.load(fromByteOffset: x * 16, as: V.self) + magic, to: SIMD4<UInt32>.self)
            let word = (bits[0] & 0xFF) | (bits[1] & 0xFF) << 8 | (bits[2] & 0xFF) << 16 | (bits[3] & 0xFF) << 24
            output.storeBytes(of: word.littleEndian, toByteOffset: x * 4, as: UInt32.self) // byte 0 = red on any host
        }
    }

    /// Rounds `count` Float RGB pixels to RGBA bytes with alpha 255 (reads one float past the last pixel).
    @inline(never)
    private static func packRGB(_ floats: UnsafeRawPointer, count: Int, into out: UnsafeMutablePointer<UInt8>) {
        let output = UnsafeMutableRawPointer(out)
        for x in 0..<count {
            let bits = unsafeBitCast(floats.loadUnaligned(fromByteOffset: x * 12, as: V.self) + magic,
                                     to: SIMD4<UInt32>.self)
            let word = (bits[0] & 0xFF) | (bits[1] & 0xFF) << 8 | (bits[2] & 0xFF) << 16 | 0xFF00_0000
            output.storeBytes(of: word.littleEndian, toByteOffset: x * 4, as: UInt32.self)
        }
    }
}
