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

/// A C stream (`clanes_png_stream`, `clanes_jpeg_stream`) and its calls, with every status turned into an error: what
/// ``ImageEncoder/PNGStream`` and ``ImageEncoder/JPEGStream`` forward to. Destroys the stream when it goes.
final class CodecStream {
    typealias WriteRows = @convention(c) (OpaquePointer?, UnsafePointer<UInt8>?, Int, UInt32,
                                          UnsafeMutablePointer<CChar>?, Int) -> Int32
    typealias Finish = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                                       UnsafeMutablePointer<Int>?, UnsafeMutablePointer<CChar>?, Int) -> Int32

    private var stream: OpaquePointer?
    private let height: Int
    private let toDescriptor: Bool
    private let writeRows: WriteRows, finishCall: Finish
    private let rowsCall: @convention(c) (OpaquePointer?) -> UInt32
    private let destroy: @convention(c) (OpaquePointer?) -> Void
    /// Bytes of the finished file (0 until ``finish()`` succeeds).
    private(set) var byteCount = 0

    /// Runs `begin` (which receives the stream pointer and a message buffer) and keeps the stream, or throws its error
    /// after destroying whatever it made.
    init(height: Int, toDescriptor: Bool, begin: (UnsafeMutablePointer<OpaquePointer?>, UnsafeMutablePointer<CChar>, Int) -> Int32,
         writeRows: WriteRows, finish: Finish, rowsWritten: @escaping @convention(c) (OpaquePointer?) -> UInt32,
         destroy: @escaping @convention(c) (OpaquePointer?) -> Void) throws {
        self.height = height
        self.toDescriptor = toDescriptor
        self.writeRows = writeRows
        finishCall = finish
        rowsCall = rowsWritten
        self.destroy = destroy
        var created: OpaquePointer?
        do {
            try Self.run { begin(&created, $0, $1) }
        } catch {
            destroy(created) // a stream that failed while starting
            throw error
        }
        stream = created
    }

    deinit {
        destroy(stream)
    }

    var rowsWritten: Int { Int(rowsCall(stream)) }

    /// Encodes `count` rows `bytesPerRow` apart.
    func write(rows: UnsafePointer<UInt8>, count: Int, bytesPerRow: Int) throws {
        guard count >= 0, count <= height else {
            throw ImageError.invalidArgument("cannot write \(count) rows of a \(height)-row image")
        }
        try Self.run { writeRows(stream, rows, bytesPerRow, UInt32(count), $0, $1) }
    }

    /// The finished file (empty when it went to a descriptor).
    func finish() throws -> Data {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        defer { clanes_free(output) }
        try Self.run { finishCall(stream, &output, &size, $0, $1) }
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
