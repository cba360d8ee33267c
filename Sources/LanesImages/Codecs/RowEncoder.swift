import CLanesCodecs
import Foundation

/// An encoder fed rows top to bottom: ``ImageEncoder/PNGStream`` and ``ImageEncoder/JPEGStream``. Bytes go to a file
/// descriptor as they are made, or into memory for ``finish()`` to return.
///
/// ```swift
/// let stream: any RowEncoder = try ImageEncoder.JPEGStream(width: 640, height: 480, optimizedCoding: false)
/// try stream.write(rows: 0..<480, of: bitmap)
/// let jpeg = try stream.finish()
/// ```
public protocol RowEncoder: AnyObject {
    /// Width and height in pixels.
    var width: Int { get }
    /// Height in pixels.
    var height: Int { get }
    /// The layout of the rows written.
    var layout: PixelLayout { get }
    /// Rows encoded so far.
    var rowsWritten: Int { get }
    /// Bytes of the finished file (0 until ``finish()`` succeeds).
    var byteCount: Int { get }
    /// Encodes the next `count` rows, read from `rows` (`width * layout.bytesPerPixel` bytes each, unless
    /// `bytesPerRow` says otherwise). Writing past `height` throws.
    func write(rows: UnsafePointer<UInt8>, count: Int, bytesPerRow: Int?) throws
    /// Ends the file once all `height` rows are written: the file when writing to memory, empty with a descriptor.
    @discardableResult func finish() throws -> Data
}

extension RowEncoder {
    /// Encodes rows `rows` of `bitmap` (same width and layout); they must be the next rows of the image.
    ///
    /// ```swift
    /// try stream.write(rows: 0..<bitmap.height, of: bitmap)
    /// ```
    public func write(rows: Range<Int>, of bitmap: Bitmap) throws {
        guard bitmap.width == width, bitmap.layout == layout, rows.lowerBound >= 0, rows.upperBound <= bitmap.height else {
            throw ImageError.invalidArgument("rows \(rows) of a \(bitmap.width)x\(bitmap.height) \(bitmap.layout) bitmap"
                + " do not fit a \(width)-pixel-wide \(layout) stream")
        }
        if rows.isEmpty { return }
        try bitmap.withUnsafePixels { pixels in
            try write(rows: pixels.baseAddress! + rows.lowerBound * bitmap.bytesPerRow, count: rows.count,
                      bytesPerRow: bitmap.bytesPerRow)
        }
    }

    /// ``write(rows:count:bytesPerRow:)`` with rows `width * layout.bytesPerPixel` bytes apart.
    public func write(rows: UnsafePointer<UInt8>, count: Int) throws {
        try write(rows: rows, count: count, bytesPerRow: nil)
    }
}

/// The C encoder (`clanes_encoder`: PNG, JPEG, WebP or AVIF, one struct of options) and its calls, with every status turned into
/// an error: what ``ImageEncoder/PNGStream`` and ``ImageEncoder/JPEGStream`` forward to. Destroys it when it goes.
final class CodecStream {
    private var encoder: OpaquePointer?
    private let height: Int
    private let toDescriptor: Bool
    /// Bytes of the finished file (0 until ``finish()`` succeeds).
    private(set) var byteCount = 0

    /// Starts an encoder for `options` (its header is written), or throws its error.
    init(_ options: clanes_encode_options) throws {
        height = Int(options.height)
        toDescriptor = options.fd >= 0
        var options = options
        var created: OpaquePointer?
        do {
            try Self.run { clanes_encoder_begin(&options, &created, $0, $1) }
        } catch {
            clanes_encoder_destroy(created) // an encoder that failed while starting
            throw error
        }
        encoder = created
    }

    deinit {
        clanes_encoder_destroy(encoder)
    }

    var rowsWritten: Int { Int(clanes_encoder_rows_written(encoder)) }

    /// Encodes `count` rows `bytesPerRow` apart.
    func write(rows: UnsafePointer<UInt8>, count: Int, bytesPerRow: Int) throws {
        guard count >= 0, count <= height else {
            throw ImageError.invalidArgument("cannot write \(count) rows of a \(height)-row image")
        }
        try Self.run { clanes_encoder_write_rows(encoder, rows, bytesPerRow, UInt32(count), $0, $1) }
    }

    /// The finished file (empty when it went to a descriptor).
    func finish() throws -> Data {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        defer { clanes_free(output) }
        try Self.run { clanes_encoder_finish(encoder, &output, &size, $0, $1) }
        byteCount = size
        guard !toDescriptor, let output else { return Data() }
        return Data(bytes: output, count: size)
    }

    /// Runs a C call that takes a message buffer; throws its error.
    private static func run(_ call: (UnsafeMutablePointer<CChar>, Int) -> Int32) throws {
        var message = CodecBridge.messageBuffer()
        let status = call(&message, message.count)
        if let error = CodecBridge.encodeError(status, message) {
            throw error
        }
    }
}

extension clanes_encode_options {
    /// Options for `format` of `width` x `height` rows in `layout`, to `fileDescriptor` (nil: memory).
    init(format: Int32, width: Int, height: Int, layout: PixelLayout, fileDescriptor: Int32?) {
        self.init()
        self.format = format
        self.width = UInt32(width)
        self.height = UInt32(height)
        channels = Int32(layout.channels)
        bytes_per_sample = Int32(layout.bytesPerSample)
        fd = fileDescriptor ?? -1
    }
}
