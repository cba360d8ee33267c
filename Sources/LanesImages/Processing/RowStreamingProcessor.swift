/// An ``ImageProcessor`` whose output has the input's size and whose rows become final top to
/// bottom, so a consumer, such as ``ImageEncoder/PNGStream``, can start on the first rows while
/// the rest are still being computed. ``GaussianBlur`` and ``TiltShift`` are such processors;
/// `ImageEncoder.processAndEncodePNG(_:with:…)`
/// overlaps one with PNG encoding.
///
/// ```swift
/// let blur = GaussianBlur(sigma: 8)
/// var out = Bitmap(width: photo.width, height: photo.height)
/// try out.withUnsafeMutablePixels { destination in
///     try blur.process(photo, into: destination, isCancelled: { false }) { finished in
///         print("rows 0..<\(finished) are final")
///     }
/// }
/// ```
public protocol RowStreamingProcessor: ImageProcessor {
    /// Writes the processed image (same size as `bitmap`) into `destination`, which holds at
    /// least `bitmap.byteCount` bytes; every byte of the image is written. `rowsCompleted(n)` is
    /// called with growing `n`, the last time with `bitmap.height`: rows `0..<n` of
    /// `destination` are final and will not be written again, so another thread synchronised
    /// with the call may read them while the rest is computed. Produces exactly the bytes of
    /// `process(_:isCancelled:)`. Throws ``ImageError/cancelled`` once `isCancelled()` is true.
    func process(_ bitmap: Bitmap, into destination: UnsafeMutableBufferPointer<UInt8>,
                 isCancelled: @Sendable () -> Bool, rowsCompleted: (Int) -> Void) throws
}
