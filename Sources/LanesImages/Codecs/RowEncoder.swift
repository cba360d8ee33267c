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

/// The calls both streams make into the C shim, with the status turned into an error.
enum StreamCalls {
    /// Runs a C call that takes a message buffer; throws its error.
    static func run(_ call: (UnsafeMutablePointer<CChar>, Int) -> Int32) throws {
        var message = CodecBridge.messageBuffer()
        let status = call(&message, message.count)
        if let error = CodecBridge.encodeError(status, message) {
            throw error
        }
    }

    /// Writes `count` rows through `call` after checking the count against `height`.
    static func writeRows(_ count: Int, height: Int,
                          _ call: (UInt32, UnsafeMutablePointer<CChar>, Int) -> Int32) throws {
        guard count >= 0, count <= height else {
            throw ImageError.invalidArgument("cannot write \(count) rows of a \(height)-row image")
        }
        try run { call(UInt32(count), $0, $1) }
    }

    /// Runs a C `finish` call: the file (empty when it went to a descriptor) and its size.
    static func finish(toDescriptor: Bool,
                       _ call: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int>,
                                UnsafeMutablePointer<CChar>, Int) -> Int32) throws -> (data: Data, size: Int) {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        defer { clanes_free(output) }
        try run { call(&output, &size, $0, $1) }
        guard !toDescriptor, let output else { return (Data(), size) }
        return (Data(bytes: output, count: size), size)
    }
}
