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
    public var rowsRead: Int { Int(clanes_row_decoder_rows_read(decoder)) }

    private let decoder: OpaquePointer?
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
        let header: ImageInfo
        do {
            header = try bytes.map { try CodecBridge.probe($0) }
                ?? Self.probe(fileDescriptor: fileDescriptor, size: fileSize)
            guard let pixels = header.pixelCount, pixels <= maxPixels else {
                throw ImageError.tooLarge(width: header.width, height: header.height, limit: maxPixels)
            }
            if header.format.decodesFrames {
                throw ImageError.unsupportedVariant(
                    header.format, "decoded whole by ImageDecoder (its library reads no rows), not by ImageRowDecoder")
            }
            if header.format == .png && scaleDenominator != 1 {
                throw ImageError.invalidArgument("a PNG decodes at scale 1 only, not 1/\(scaleDenominator)")
            }
        } catch {
            owned?.deallocate() // not every property is set yet, so deinit will not run
            throw error
        }
        info = header
        var message = CodecBridge.messageBuffer()
        var opened: OpaquePointer?
        var layout = clanes_row_layout()
        var request = clanes_row_request()
        request.data = bytes?.baseAddress?.assumingMemoryBound(to: UInt8.self)
        request.size = bytes?.count ?? fileSize
        request.fd = bytes == nil ? fileDescriptor : -1
        request.format = header.format == .png ? CLANES_FORMAT_PNG : CLANES_FORMAT_JPEG
        request.scale_denom = Int32(scaleDenominator)
        request.channels = Int32(requested.channels)
        request.bytes_per_sample = Int32(requested.bytesPerSample)
        let status = clanes_row_decoder_open(&request, &opened, &layout, &message, message.count)
        decoder = opened
        width = Int(layout.width)
        height = Int(layout.height)
        self.layout = PixelLayout(channels: Int(layout.channels), bytesPerSample: Int(layout.bytes_per_sample)) ?? .rgba8
        holdsWholeImage = layout.whole_image != 0
        retainedBytes = Int(layout.held_bytes)
        isOpaque = layout.opaque != 0
        if let error = CodecBridge.decodeError(status, message, format: header.format) {
            throw error // every property is set: deinit frees the decoder and `owned`
        }
    }

    deinit {
        clanes_row_decoder_destroy(decoder)
        owned?.deallocate()
    }

    public func readRows(_ count: Int, into destination: UnsafeMutableRawPointer, bytesPerRow: Int) throws {
        try checkRead(count, bytesPerRow: bytesPerRow)
        var message = CodecBridge.messageBuffer()
        let status = clanes_row_decoder_read(decoder, destination.assumingMemoryBound(to: UInt8.self), bytesPerRow,
                                             UInt32(count), &message, message.count)
        if status == CLANES_ERR_IO {
            throw ImageError.corrupt("cannot read the file: \(CodecBridge.text(of: message))")
        }
        if let error = CodecBridge.decodeError(status, message, format: info.format) {
            throw error
        }
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

    /// The header of the file at `fileDescriptor`: the first 256 KB, more if a long JPEG header needs it.
    static func probe(fileDescriptor: Int32, size: Int) throws -> ImageInfo {
        var length = min(size, 256 << 10)
        while true {
            var bytes = [UInt8](repeating: 0, count: max(length, 1))
            let got = bytes.withUnsafeMutableBytes { pread(fileDescriptor, $0.baseAddress, length, 0) }
            guard got >= 0 else {
                throw ImageError.invalidArgument("cannot read the file: \(String(cString: strerror(errno)))")
            }
            do {
                return try bytes.withUnsafeBytes { try CodecBridge.probe(UnsafeRawBufferPointer(rebasing: $0[..<got])) }
            } catch ImageError.truncated where got == length && length < size {
                length = min(size, length * 4)
            }
        }
    }
}
