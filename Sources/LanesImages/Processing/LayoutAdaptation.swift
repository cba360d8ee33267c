extension Bitmap {
    /// Runs an operation written for 8-bit RGBA (``Resize``, ``GaussianBlur``, ``TiltShift``, the decoder's
    /// resampler) on a bitmap of any layout: grey is spread to RGBA, processed, and folded back to grey (exactly: every
    /// channel went through the same arithmetic), so the result has this bitmap's channels at 8 bits. A 16-bit
    /// bitmap comes back at 8 bits: those engines compute in 8-bit lanes (SIMD floats packed to bytes), and carrying
    /// 16 bits through them would double their memory and widen every pack for precision no 8-bit output keeps.
    func processedAsRGBA8(_ operation: (Bitmap) throws -> Bitmap) rethrows -> Bitmap {
        if layout == .rgba8 { return try operation(self) }
        return try operation(converted(to: .rgba8)).converted(to: layout.eightBit)
    }
}
