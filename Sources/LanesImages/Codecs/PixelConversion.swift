extension Bitmap {
    /// This bitmap in `layout`. Grey becomes colour by copying it to red, green and blue; colour becomes grey by its
    /// Rec. 601 luma (exact for grey content); 16-bit samples are rounded to 8 bits and 8-bit ones widened (`v * 257`,
    /// exact both ways); a layout without alpha flattens the pixels on `background` (straight alpha, the way a viewer
    /// shows them); a layout with alpha from one without gets alpha at its maximum.
    ///
    /// ```swift
    /// let rgba = greyScan.converted(to: .rgba8)                      // what the processors work in
    /// let onWhite = logo.converted(to: .grey8, background: .white)    // transparency flattened on white
    /// ```
    public func converted(to layout: PixelLayout, background: RGBA = .white) -> Bitmap {
        if layout == self.layout { return self }
        let source = self.layout
        return withUnsafePixels { input in
            Bitmap(width: width, height: height, layout: layout) { output in
                PixelConversion.convert(UnsafeRawPointer(input.baseAddress!), source,
                                        to: UnsafeMutableRawPointer(output.baseAddress!), layout,
                                        pixels: pixelCount, background: background)
            }
        }
    }

    /// Whether every pixel is fully opaque (always true for a layout without alpha).
    ///
    /// ```swift
    /// Bitmap(width: 2, height: 2, filledWith: .white).isOpaque   // true
    /// ```
    public var isOpaque: Bool {
        guard layout.hasAlpha else { return true }
        let alpha = layout.channels - 1, maximum = layout.maxSample
        return withUnsafePixels { bytes in
            let base = UnsafeRawPointer(bytes.baseAddress!)
            for p in 0..<pixelCount
            where PixelConversion.load(base, sample: p * layout.channels + alpha, bytesPerSample: layout.bytesPerSample) != maximum {
                return false
            }
            return true
        }
    }

    /// The sample of `channel` (0 ..< `layout.channels`) of pixel (`x`, `y`), at the layout's depth (0...255 or
    /// 0...65535).
    ///
    /// ```swift
    /// let deep = try ImageDecoder(keepsStoredLayout: true).decode(data)   // a 16-bit grey PNG
    /// deep.sample(x: 0, y: 0, channel: 0)                                 // 0...65535
    /// ```
    public func sample(x: Int, y: Int, channel: Int) -> Int {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside \(width)x\(height)")
        precondition(channel >= 0 && channel < layout.channels, "\(layout) has no channel \(channel)")
        return withUnsafePixels { bytes in
            PixelConversion.load(UnsafeRawPointer(bytes.baseAddress!),
                                 sample: (y * width + x) * layout.channels + channel, bytesPerSample: layout.bytesPerSample)
        }
    }
}

/// Converts pixels between ``PixelLayout``s through 16-bit RGBA (see ``Bitmap/converted(to:background:)``).
enum PixelConversion {
    /// Luma weights (Rec. 601) in 1/65536 units; they sum to 65536, so grey content converts back exactly.
    static let luma = (red: 19595, green: 38470, blue: 7471)

    @inline(__always)
    static func load(_ base: UnsafeRawPointer, sample: Int, bytesPerSample: Int) -> Int {
        bytesPerSample == 1 ? Int(base.load(fromByteOffset: sample, as: UInt8.self))
            : Int(base.loadUnaligned(fromByteOffset: sample * 2, as: UInt16.self))
    }

    @inline(__always)
    static func store(_ value: Int, _ base: UnsafeMutableRawPointer, sample: Int, bytesPerSample: Int) {
        if bytesPerSample == 1 {
            base.storeBytes(of: UInt8(truncatingIfNeeded: (value * 255 + 32767) / 65535), toByteOffset: sample, as: UInt8.self)
        } else {
            base.storeBytes(of: UInt16(truncatingIfNeeded: value), toByteOffset: sample * 2, as: UInt16.self)
        }
    }

    /// Converts `pixels` pixels from `source` in `from` to `destination` in `to`.
    static func convert(_ source: UnsafeRawPointer, _ from: PixelLayout, to destination: UnsafeMutableRawPointer,
                        _ to: PixelLayout, pixels: Int, background: RGBA) {
        let inBytes = from.bytesPerSample, outBytes = to.bytesPerSample
        let widen = inBytes == 1 ? 257 : 1  // to the 16-bit scale
        let flatten = from.hasAlpha && !to.hasAlpha
        let bg = (Int(background.red) * 257, Int(background.green) * 257, Int(background.blue) * 257)
        let bgGrey = (luma.red * bg.0 + luma.green * bg.1 + luma.blue * bg.2 + 32768) >> 16
        for p in 0..<pixels {
            let i = p * from.channels
            var r: Int, g: Int, b: Int, a = 65535
            switch from.channels {
            case 1, 2:
                r = load(source, sample: i, bytesPerSample: inBytes) * widen
                (g, b) = (r, r)
                if from.channels == 2 { a = load(source, sample: i + 1, bytesPerSample: inBytes) * widen }
            default:
                r = load(source, sample: i, bytesPerSample: inBytes) * widen
                g = load(source, sample: i + 1, bytesPerSample: inBytes) * widen
                b = load(source, sample: i + 2, bytesPerSample: inBytes) * widen
                a = load(source, sample: i + 3, bytesPerSample: inBytes) * widen
            }
            let o = p * to.channels
            if to.isGrey {
                var grey = from.isGrey ? r : (luma.red * r + luma.green * g + luma.blue * b + 32768) >> 16
                if flatten { grey = (grey * a + bgGrey * (65535 - a) + 32767) / 65535 }
                store(grey, destination, sample: o, bytesPerSample: outBytes)
                if to.channels == 2 { store(a, destination, sample: o + 1, bytesPerSample: outBytes) }
            } else {
                if flatten {
                    r = (r * a + bg.0 * (65535 - a) + 32767) / 65535
                    g = (g * a + bg.1 * (65535 - a) + 32767) / 65535
                    b = (b * a + bg.2 * (65535 - a) + 32767) / 65535
                    a = 65535
                }
                store(r, destination, sample: o, bytesPerSample: outBytes)
                store(g, destination, sample: o + 1, bytesPerSample: outBytes)
                store(b, destination, sample: o + 2, bytesPerSample: outBytes)
                store(a, destination, sample: o + 3, bytesPerSample: outBytes)
            }
        }
    }

    /// The bytes of one pixel of `colour` in `layout`.
    static func encode(_ colour: RGBA, as layout: PixelLayout) -> [UInt8] {
        withUnsafeBytes(of: (colour.red, colour.green, colour.blue, colour.alpha)) { source in
            [UInt8](unsafeUninitializedCapacity: layout.bytesPerPixel) { buffer, count in
                convert(source.baseAddress!, .rgba8, to: UnsafeMutableRawPointer(buffer.baseAddress!), layout,
                        pixels: 1, background: .black)
                count = layout.bytesPerPixel
            }
        }
    }

    /// The 8-bit RGBA of one pixel stored in `layout`.
    static func decode(_ bytes: ArraySlice<UInt8>, as layout: PixelLayout) -> RGBA {
        var out: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        bytes.withUnsafeBytes { source in
            withUnsafeMutableBytes(of: &out) { destination in
                convert(source.baseAddress!, layout, to: destination.baseAddress!, .rgba8, pixels: 1, background: .black)
            }
        }
        return RGBA(red: out.0, green: out.1, blue: out.2, alpha: out.3)
    }
}
