import CLanesCodecs
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decodes a PNG or JPEG a few rows at a time (libpng row reading, libjpeg scanlines), from memory
/// or straight from a file descriptor, so a stream never holds the decoded image. The rows are in
/// *stored* orientation (the Exif orientation is ``info``'s to apply) and RGBA8 unless a PNG is asked for another
/// ``PixelLayout`` (its stored one, 16-bit included: ``ImageInfo/storedLayout``), and a JPEG can be DCT-scaled by 1/2,
/// 1/4 or 1/8 while it decodes.
///
/// What it holds (``retainedBytes``): a row or two for a PNG, one iMCU strip for a JPEG (plus, for a
/// progressive JPEG, libjpeg's coefficient image). An interlaced PNG is the exception: its rows are
/// final only after the last Adam7 pass, so it is decoded whole at the first read (``holdsWholeImage``).
///
/// ```swift
/// let decoder = try ImageRowDecoder(data: jpeg, scaleDenominator: 4)
/// var row = [UInt8](repeating: 0, count: decoder.bytesPerRow)
/// try row.withUnsafeMutableBytes { try decoder.readRows(1, into: $0.baseAddress!, bytesPerRow: decoder.bytesPerRow) }
/// let deep = try ImageRowDecoder(data: png, layout: .rgba16)   // 16-bit rows, 8 bytes a pixel
/// ```
public final class ImageRowDecoder: RowSource, OpacityReporting {
    /// The header: format, stored size, orientation.
    public let info: ImageInfo
    public let width: Int
    public let height: Int
    public let layout: PixelLayout
    /// Whether the decoder keeps the whole image (an interlaced PNG).
    public let holdsWholeImage: Bool
    public let retainedBytes: Int
    /// A JPEG, or a PNG without an alpha channel or `tRNS`.
    public let isOpaque: Bool
    public var rowsRead: Int { context.rowsRead }

    private let context: DecoderContext
    /// The input when it was copied in (`init(data:)`), freed with the decoder.
    private let owned: UnsafeMutableRawBufferPointer?

    /// Decodes a copy of `data`, at `1/scaleDenominator` for a JPEG (1, 2, 4 or 8; PNG: 1), to rows of `layout`
    /// (a JPEG: RGBA8 only; a PNG: any layout with at least its stored channels, see
    /// ``ImageDecoder/init(keepsStoredLayout:)``). Images of more than `maxPixels` stored pixels are refused from
    /// the header.
    public convenience init(data: Data, scaleDenominator: Int = 1, layout: PixelLayout = .rgba8,
                            maxPixels: Int = ImageDecoder.defaultMaxPixels) throws {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
        _ = data.copyBytes(to: copy)
        try self.init(bytes: UnsafeRawBufferPointer(rebasing: copy[..<data.count]), owned: copy, fileDescriptor: -1,
                      scaleDenominator: scaleDenominator, layout: layout, maxPixels: maxPixels)
    }

    /// Decodes the regular file open at `fileDescriptor`, read with `pread` from offset 0 as rows are
    /// asked for (the descriptor is never closed, and its offset is not moved); `layout` as for ``init(data:scaleDenominator:layout:maxPixels:)``.
    public convenience init(fileDescriptor: Int32, scaleDenominator: Int = 1, layout: PixelLayout = .rgba8,
                            maxPixels: Int = ImageDecoder.defaultMaxPixels) throws {
        var status = stat()
        guard fstat(fileDescriptor, &status) == 0 else {
            throw ImageError.invalidArgument("cannot read the file: \(String(cString: strerror(errno)))")
        }
        try self.init(bytes: nil, owned: nil, fileDescriptor: fileDescriptor, fileSize: Int(status.st_size),
                      scaleDenominator: scaleDenominator, layout: layout, maxPixels: maxPixels)
    }

    /// Decodes `bytes`, which must stay valid until the decoder is gone (see ``ImageDecoder``'s use).
    /// `owned` (freed with the decoder, or here when the header is refused) is the buffer `bytes` lies in, if any.
    init(bytes: UnsafeRawBufferPointer?, owned: UnsafeMutableRawBufferPointer?, fileDescriptor: Int32,
         fileSize: Int = 0, scaleDenominator: Int, layout requested: PixelLayout = .rgba8, maxPixels: Int) throws {
        self.owned = owned
        let opened: DecoderContext
        let rows: clanes_row_layout
        do {
            if let bytes {
                try CodecBridge.requireImage(bytes)
            } else {
                try Self.sniff(fileDescriptor: fileDescriptor)
            }
            let options = DecoderContext.Options(maxPixels: maxPixels, scaleDenominator: scaleDenominator,
                                                 layout: requested)
            opened = try DecoderContext(bytes.map { .memory($0) } ?? .file(descriptor: fileDescriptor, size: fileSize),
                                        options: options)
            let header = try opened.header()
            if header.format.decodesFrames {
                throw ImageError.unsupportedVariant(
                    header.format, "decoded whole by ImageDecoder (its library reads no rows), not by ImageRowDecoder")
            }
            rows = try opened.startRows()
        } catch {
            owned?.deallocate() // not every property is set yet, so deinit will not run
            throw error
        }
        context = opened
        info = try opened.header()
        width = Int(rows.width)
        height = Int(rows.height)
        layout = PixelLayout(channels: Int(rows.channels), bytesPerSample: Int(rows.bytes_per_sample)) ?? .rgba8
        holdsWholeImage = rows.whole_image != 0
        retainedBytes = Int(rows.held_bytes)
        isOpaque = rows.opaque != 0
    }

    deinit {
        owned?.deallocate()
    }

    public func readRows(_ count: Int, into destination: UnsafeMutableRawPointer, bytesPerRow: Int) throws {
        try checkRead(count, bytesPerRow: bytesPerRow)
        _ = try context.readRows(count, into: destination, bytesPerRow: bytesPerRow)
    }

    /// The header of the regular file open at `fileDescriptor` (read with `pread`; no pixels decoded).
    ///
    /// ```swift
    /// let info = try ImageRowDecoder.probe(fileDescriptor: descriptor)
    /// ```
    public static func probe(fileDescriptor: Int32) throws -> ImageInfo {
        var status = stat()
        guard fstat(fileDescriptor, &status) == 0 else {
            throw ImageError.invalidArgument("cannot read the file: \(String(cString: strerror(errno)))")
        }
        return try probe(fileDescriptor: fileDescriptor, size: Int(status.st_size))
    }

    /// The header of the file at `fileDescriptor` (the decoder context reads a prefix, longer while the header runs
    /// past it).
    static func probe(fileDescriptor: Int32, size: Int) throws -> ImageInfo {
        try sniff(fileDescriptor: fileDescriptor)
        return try DecoderContext(.file(descriptor: fileDescriptor, size: size), options: .init(maxPixels: .max))
            .header()
    }

    /// Throws ``ImageError/unsupportedFormat(_:)`` when the file's first bytes are no image the decoder reads.
    private static func sniff(fileDescriptor: Int32) throws {
        var head = [UInt8](repeating: 0, count: 512)
        let got = head.withUnsafeMutableBytes { pread(fileDescriptor, $0.baseAddress, $0.count, 0) }
        guard got >= 0 else {
            throw ImageError.invalidArgument("cannot read the file: \(String(cString: strerror(errno)))")
        }
        try CodecBridge.requireImage(head[..<got])
    }
}
