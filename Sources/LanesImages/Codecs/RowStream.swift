import CLanesCodecs
import Foundation

extension ImageEncoder {
    /// What every stream encoder is (``PNGStream``, ``JPEGStream``, ``WebPStream``, ``AVIFStream``, which make
    /// it): rows written top to bottom into the one C encoder, the file going to a descriptor as it is made or into
    /// memory. One thread at a time may use a stream; after any error, or after ``finish()``, every call throws.
    ///
    /// ```swift
    /// let stream: ImageEncoder.RowStream = try ImageEncoder.PNGStream(width: 64, height: 64, hasAlpha: true)
    /// try stream.write(rows: 0..<64, of: bitmap)
    /// let png = try stream.finish()
    /// ```
    public class RowStream: RowEncoder {
        /// Width and height in pixels.
        public let width: Int, height: Int
        /// The layout of the rows written.
        public let layout: PixelLayout
        private let stream: CodecStream

        /// Starts the encoder `options` describe (its arguments already checked in the caller's words).
        init(_ options: clanes_encode_options, layout: PixelLayout) throws {
            width = Int(options.width)
            height = Int(options.height)
            self.layout = layout
            stream = try CodecStream(options)
        }

        /// Bytes of the finished file (0 until ``finish()`` succeeds).
        public var byteCount: Int { stream.byteCount }

        /// Rows written so far.
        public var rowsWritten: Int { stream.rowsWritten }

        /// Writes the next `count` rows, read from `rows` (`width * layout.bytesPerPixel` bytes each, unless
        /// `bytesPerRow` says otherwise). Writing past `height` throws.
        public func write(rows: UnsafePointer<UInt8>, count: Int, bytesPerRow: Int?) throws {
            try stream.write(rows: rows, count: count, bytesPerRow: bytesPerRow ?? width * layout.bytesPerPixel)
        }

        /// Ends the file once all `height` rows are written. Returns the encoded file when writing to memory; with a
        /// file descriptor the bytes are already written and the result is empty.
        @discardableResult
        public func finish() throws -> Data { try stream.finish() }
    }
}
