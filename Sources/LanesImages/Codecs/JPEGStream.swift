import CLanesCodecs
import Foundation

extension ImageEncoder {
    /// A JPEG encoder fed rows top to bottom (a ``RowStream``), with the settings of
    /// ``Format/jpeg(quality:background:optimizedCoding:)`` and the same bytes as ``encode(_:as:)`` of the same rows.
    /// The bytes go to a file descriptor as libjpeg makes them (64 KB at a time), or into memory
    /// (``RowStream/finish()`` returns them). With `optimizedCoding: false` it holds a few rows whatever the height
    /// (``workingSetBytes(width:height:layout:optimizedCoding:)``); with `true` libjpeg keeps every quantised
    /// coefficient until ``RowStream/finish()``.
    ///
    /// ```swift
    /// let stream = try ImageEncoder.JPEGStream(width: 640, height: 480, quality: 85, optimizedCoding: false)
    /// try stream.write(rows: 0..<480, of: bitmap)
    /// let jpeg = try stream.finish()   // the whole file
    /// ```
    ///
    /// The rows are in the layout given (``PixelLayout/rgba8`` unless given): grey layouts make a greyscale JPEG; alpha
    /// is flattened on the background.
    public final class JPEGStream: RowStream {

        /// Starts a JPEG of `width` x `height`. With `fileDescriptor` the bytes are written there as they are made
        /// (the descriptor is never closed); without it they are kept in memory. Throws
        /// ``ImageError/invalidArgument(_:)`` for an empty size or a quality outside 1...100.
        ///
        /// ```swift
        /// let grey = try ImageEncoder.JPEGStream(width: 640, height: 480, layout: .grey8, quality: 90)
        /// ```
        public init(width: Int, height: Int, layout: PixelLayout = .rgba8, quality: Int = 85,
                    background: RGBA = .white, optimizedCoding: Bool = true, fileDescriptor: Int32? = nil) throws {
            guard width > 0, height > 0, width <= 65_500, height <= 65_500 else { // libjpeg's JPEG_MAX_DIMENSION
                throw ImageError.invalidArgument("a JPEG stream needs a size of 1...65500 per side, got \(width)x\(height)")
            }
            guard (1...100).contains(quality) else {
                throw ImageError.invalidArgument("JPEG quality \(quality) is not 1...100")
            }
            var options = clanes_encode_options(format: CLANES_FORMAT_JPEG, width: width, height: height, layout: layout,
                                                fileDescriptor: fileDescriptor)
            options.quality = Int32(quality)
            options.optimize_coding = optimizedCoding ? 1 : 0
            options.background = background.rgb24
            try super.init(options, layout: layout)
        }

        /// An upper bound of what a stream holds besides the caller's rows: its output window and flattened row,
        /// libjpeg's row groups and, with `optimizedCoding`, every quantised coefficient (2 bytes each, 64 per 8x8
        /// block: about 3 bytes a pixel for colour at 4:2:0, 2 for grey).
        ///
        /// ```swift
        /// ImageEncoder.JPEGStream.workingSetBytes(width: 4000, height: 3000, optimizedCoding: false)  // ≈ 0.25 MB
        /// ```
        public static func workingSetBytes(width: Int, height: Int, layout: PixelLayout = .rgba8,
                                           optimizedCoding: Bool) -> Int {
            let rows = 65_536 + 16_384 + width * 40 // window, libjpeg's fixed tables, row groups of 16 rows
            guard optimizedCoding else { return rows }
            let blocks = layout.isGrey ? ((width + 7) / 8) * ((height + 7) / 8) : ((width + 15) / 16) * ((height + 15) / 16) * 6
            return rows + blocks * 128
        }
    }
}

extension RGBA {
    /// 0xRRGGBB (alpha dropped): the background the C encoders flatten on.
    var rgb24: UInt32 { UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue) }
}
