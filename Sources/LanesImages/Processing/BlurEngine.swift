/// The separable Gaussian blur behind ``GaussianBlur`` and ``TiltShift``.
///
/// The image is processed in vertical strips of at most `stripWidth` pixels so the working set
/// stays in L2. Within a strip, each source row is converted to Float once, convolved
/// horizontally (4 RGBA pixels = 16 floats per SIMD step, mirrored taps added before one
/// multiply by their shared weight) into a ring of `2r + 1` rows; each output row is then the
/// vertical convolution of the ring, rounded to bytes. Edges are clamped; there is one rounding
/// and no full-size intermediate image.
struct BlurEngine {
    let kernel: GaussianKernel
    let width: Int
    let height: Int

    /// Output rows between two cancellation checks.
    static let bandHeight = 16
    /// Widest strip, in pixels: a ring of 2r+1 rows x 256 px x 16 B (200 KB at σ = 8) stays in L2.
    static let stripWidth = 256

    /// 2^23: adding it to a Float in [0, 2^22) leaves the rounded integer in the low mantissa bits.
    private static let magic: Float = 8_388_608

    /// Blurs rows `rows` of `source` (a `width` x `height` RGBA8 image) into the same rows of
    /// `destination` (same layout). Other destination rows are not touched.
    func blur(source: UnsafePointer<UInt8>, destination: UnsafeMutablePointer<UInt8>,
              rows: Range<Int>, isCancelled: () -> Bool) throws {
        if rows.isEmpty { return }
        let radius = kernel.radius
        let ringSize = 2 * radius + 1
        let strip = min(width, Self.stripWidth)
        let pixelBytes = MemoryLayout<SIMD4<Float>>.size
        let padded = UnsafeMutableRawPointer.allocate(byteCount: (strip + 2 * radius) * pixelBytes, alignment: 64)
        defer { padded.deallocate() }
        let ring = UnsafeMutableRawPointer.allocate(byteCount: ringSize * strip * pixelBytes, alignment: 64)
        defer { ring.deallocate() }
        let taps = UnsafeMutablePointer<UnsafeRawPointer>.allocate(capacity: ringSize)
        defer { taps.deallocate() }

        try kernel.weights.withUnsafeBufferPointer { weightBuffer in
            let weights = weightBuffer.baseAddress!
            var x0 = 0
            while x0 < width {
                let stripCount = min(strip, width - x0)
                func slot(_ row: Int) -> UnsafeMutableRawPointer {
                    ring + (row % ringSize) * strip * pixelBytes
                }
                // Source rows before `nextRow` are already blurred horizontally into the ring.
                var nextRow = max(rows.lowerBound - radius, 0)
                for y in rows {
                    if (y - rows.lowerBound) % Self.bandHeight == 0 && isCancelled() {
                        throw ImageError.cancelled
                    }
                    let needed = min(y + radius, height - 1)
                    while nextRow <= needed {
                        loadPadded(row: source + nextRow * width * 4, x0: x0, count: stripCount,
                                   radius: radius, into: padded)
                        horizontal(padded: UnsafeRawPointer(padded), count: stripCount, weights: weights,
                                   radius: radius, into: slot(nextRow))
                        nextRow += 1
                    }
                    for k in -radius...radius {
                        taps[k + radius] = UnsafeRawPointer(slot(min(max(y + k, 0), height - 1)))
                    }
                    vertical(taps: taps + radius, count: stripCount, weights: weights, radius: radius,
                             scratch: padded, into: destination + (y * width + x0) * 4)
                }
                x0 += stripCount
            }
        }
    }

    /// Converts pixels `x0 - r ..< x0 + count + r` of one row (clamped) to Float RGBA.
    @inline(__always)
    private func loadPadded(row: UnsafePointer<UInt8>, x0: Int, count: Int, radius: Int,
                            into padded: UnsafeMutableRawPointer) {
        for i in 0..<(count + 2 * radius) {
            let p = row + min(max(x0 - radius + i, 0), width - 1) * 4
            let value = SIMD4<Float>(Float(p[0]), Float(p[1]), Float(p[2]), Float(p[3]))
            padded.storeBytes(of: value, toByteOffset: i * 16, as: SIMD4<Float>.self)
        }
    }

    /// `out[x] = Σ_k w[|k|] * padded[x + r + k]` for `count` pixels.
    @inline(__always)
    private func horizontal(padded: UnsafeRawPointer, count: Int, weights: UnsafePointer<Float>,
                            radius: Int, into out: UnsafeMutableRawPointer) {
        typealias V = SIMD4<Float>
        let w0 = weights[0]
        var x = 0
        // Eight pixels per step: eight independent accumulators keep both FP ports busy.
        while x + 8 <= count {
            let c = padded + (x + radius) * 16
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
                let l = c - k * 16, r = c + k * 16
                a0 += (l.load(as: V.self) + r.load(as: V.self)) * wk
                a1 += (l.load(fromByteOffset: 16, as: V.self) + r.load(fromByteOffset: 16, as: V.self)) * wk
                a2 += (l.load(fromByteOffset: 32, as: V.self) + r.load(fromByteOffset: 32, as: V.self)) * wk
                a3 += (l.load(fromByteOffset: 48, as: V.self) + r.load(fromByteOffset: 48, as: V.self)) * wk
                a4 += (l.load(fromByteOffset: 64, as: V.self) + r.load(fromByteOffset: 64, as: V.self)) * wk
                a5 += (l.load(fromByteOffset: 80, as: V.self) + r.load(fromByteOffset: 80, as: V.self)) * wk
                a6 += (l.load(fromByteOffset: 96, as: V.self) + r.load(fromByteOffset: 96, as: V.self)) * wk
                a7 += (l.load(fromByteOffset: 112, as: V.self) + r.load(fromByteOffset: 112, as: V.self)) * wk
            }
            let o = out + x * 16
            o.storeBytes(of: a0, as: V.self)
            o.storeBytes(of: a1, toByteOffset: 16, as: V.self)
            o.storeBytes(of: a2, toByteOffset: 32, as: V.self)
            o.storeBytes(of: a3, toByteOffset: 48, as: V.self)
            o.storeBytes(of: a4, toByteOffset: 64, as: V.self)
            o.storeBytes(of: a5, toByteOffset: 80, as: V.self)
            o.storeBytes(of: a6, toByteOffset: 96, as: V.self)
            o.storeBytes(of: a7, toByteOffset: 112, as: V.self)
            x += 8
        }
        while x < count {
            let c = padded + (x + radius) * 16
            var sum = c.load(as: V.self) * w0
            for k in 1...radius {
                sum += (c.load(fromByteOffset: -k * 16, as: V.self) + c.load(fromByteOffset: k * 16, as: V.self))
                    * weights[k]
            }
            out.storeBytes(of: sum, toByteOffset: x * 16, as: V.self)
            x += 1
        }
    }

    /// `out[x] = round(Σ_k w[|k|] * taps[k][x])` as bytes, for `count` pixels.
    @inline(__always)
    private func vertical(taps: UnsafeMutablePointer<UnsafeRawPointer>, count: Int, weights: UnsafePointer<Float>,
                          radius: Int, scratch: UnsafeMutableRawPointer, into out: UnsafeMutablePointer<UInt8>) {
        typealias V = SIMD4<Float>
        let w0 = weights[0]
        var x = 0
        while x + 8 <= count {
            let offset = x * 16
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
            let o = scratch + offset
            o.storeBytes(of: a0, as: V.self)
            o.storeBytes(of: a1, toByteOffset: 16, as: V.self)
            o.storeBytes(of: a2, toByteOffset: 32, as: V.self)
            o.storeBytes(of: a3, toByteOffset: 48, as: V.self)
            o.storeBytes(of: a4, toByteOffset: 64, as: V.self)
            o.storeBytes(of: a5, toByteOffset: 80, as: V.self)
            o.storeBytes(of: a6, toByteOffset: 96, as: V.self)
            o.storeBytes(of: a7, toByteOffset: 112, as: V.self)
            x += 8
        }
        while x < count {
            let offset = x * 16
            var sum = taps[0].load(fromByteOffset: offset, as: V.self) * w0
            for k in 1...radius {
                sum += (taps[-k].load(fromByteOffset: offset, as: V.self)
                    + taps[k].load(fromByteOffset: offset, as: V.self)) * weights[k]
            }
            scratch.storeBytes(of: sum, toByteOffset: offset, as: V.self)
            x += 1
        }
        Self.pack(UnsafeRawPointer(scratch), count: count, into: out)
    }

    /// Rounds `count` Float RGBA pixels (each channel in 0...255) to bytes. Kept out of line so
    /// the optimiser does not interleave lane extraction with the accumulation loop above.
    @inline(never)
    private static func pack(_ floats: UnsafeRawPointer, count: Int, into out: UnsafeMutablePointer<UInt8>) {
        let output = UnsafeMutableRawPointer(out)
        for x in 0..<count {
            output.storeBytes(of: packed(floats.load(fromByteOffset: x * 16, as: SIMD4<Float>.self)),
                              toByteOffset: x * 4, as: UInt32.self)
        }
    }

    /// Rounds one RGBA pixel (floats in 0...255) to its 4 bytes, as stored in memory. The
    /// weights are positive and sum to 1, so sums stay within [0, 255 + ε] and round into 0...255.
    @inline(__always)
    private static func packed(_ value: SIMD4<Float>) -> UInt32 {
        let bits = unsafeBitCast(value + Self.magic, to: SIMD4<UInt32>.self)
        let word = (bits[0] & 0xFF) | (bits[1] & 0xFF) << 8 | (bits[2] & 0xFF) << 16 | (bits[3] & 0xFF) << 24
        return word.littleEndian // byte 0 = red on any host
    }
}
