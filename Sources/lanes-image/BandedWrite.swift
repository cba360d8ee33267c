import Foundation
import Lanes
import LanesImages
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file or URL job run in bands: the file is decoded a few rows at a time (read with `pread`, never whole),
/// resized, blurred and tilt-shifted by row stages, and the rows are PNG- or JPEG-encoded, on a second thread band by
/// band, straight into the temporary output file. Nothing holds the decoded image. A grey file (grey, grey and alpha,
/// a grey JPEG) decodes to RGBA8 rows for the stages and is folded back to grey before the encoder (``ConvertedRows``),
/// as the whole-bitmap path folds it: the output stays grey, with the same bytes (but a PNG output keeps an alpha
/// channel that is all opaque, as for RGBA: its header is written before any pixel is seen). A 16-bit PNG decodes to
/// 8-bit rows when a resize, blur or tilt-shift follows (what the whole path makes of it at its first such step), and
/// to 16-bit rows of its stored layout when none does, so it stays 16-bit. `--greyscale` is a row stage too
/// (``GreyscaleRows``, then folded to one grey channel, with alpha when the file has an alpha channel). An `http(s)`
/// PNG or JPEG runs in bands too, decoded as its bytes arrive (``StreamedRows``; 8-bit rows). Not banded (nil from
/// ``prepare(_:plan:maxPixels:fetcher:context:isCancelled:)``, and the job takes the whole-bitmap path): other non-file
/// inputs, WebP, GIF, AVIF, HEIF and JPEG XL, a 16-bit download with none of those steps, and an Exif orientation
/// other than "up", since flipping the row order or transposing needs the whole image. A download of those is decoded
/// whole from the bytes it already fetched (its bitmap's rows are the chain), never fetched a second time.
///
/// A whole bitmap (a rotated photo's, a WebP's) is one more row source (``init(bitmap:plan:)``): every output goes
/// through the same band encoder.
final class BandedWrite {
    let chain: any RowSource
    /// The decoder at the head of the chain: an ``ImageRowDecoder`` on the file, ``StreamedRows`` on a download, nil
    /// for a bitmap's rows.
    let decoder: (any RowSource)?
    /// The input file (-1 for a download or a bitmap).
    private let descriptor: Int32
    private let plan: ProcessingPlan

    /// Rows moved from the last stage to the encoder per call.
    static let chunkRows = 64

    private init(chain: any RowSource, decoder: (any RowSource)?, descriptor: Int32, plan: ProcessingPlan) {
        self.chain = chain
        self.decoder = decoder
        self.descriptor = descriptor
        self.plan = plan
    }

    /// The rows of `bitmap`, written as `plan` says (its processing is done: the bitmap is what is written).
    convenience init(bitmap: Bitmap, plan: ProcessingPlan) {
        self.init(chain: BitmapRows(bitmap), decoder: nil, descriptor: -1, plan: plan)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The chain for `job`, or nil when the job must take the whole-bitmap path. An `http(s)` input streams through
    /// `fetcher` (``StreamedRows``: decoded as its bytes arrive; nil `fetcher`: the whole path); when its header
    /// rules bands out, the rest of the body is fetched and decoded whole from the bytes already fetched, never fetched
    /// again. Cancelling `context` (the job's item) cancels the download and ends a wait for its bytes.
    static func prepare(_ job: ImageJob, plan: ProcessingPlan, maxPixels: Int, fetcher: (any DataFetching)? = nil,
                        context: WorkContext? = nil, isCancelled: @escaping () -> Bool) throws -> BandedWrite? {
        guard job.source.isFileURL else {
            guard let fetcher, ["http", "https"].contains(job.source.scheme?.lowercased() ?? "") else { return nil }
            let download = try StreamedDownload(url: job.source, fetcher: fetcher, maxPixels: maxPixels,
                                                context: context)
            // The incremental decoder hands out 8-bit rows: a 16-bit download that stays 16-bit is decoded whole, as
            // is one whose header rules bands out otherwise, from the bytes already fetched (never fetched again).
            guard let shape = shape(of: download.info, plan: plan), !shape.deep else {
                return try whole(download, plan: plan, maxPixels: maxPixels, isCancelled: isCancelled)
            }
            let rows = try StreamedRows(download, maxPixels: maxPixels, scaleDenominator: shape.denominator)
            return BandedWrite(chain: try chain(from: rows, info: rows.info, shape: shape, opaque: rows.isOpaque,
                                                plan: plan, isCancelled: isCancelled),
                               decoder: rows, descriptor: -1, plan: plan)
        }
        let descriptor = open(job.source.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil } // the whole path reports the error in its own words
        do {
            let info = try ImageRowDecoder.probe(fileDescriptor: descriptor)
            guard let shape = shape(of: info, plan: plan) else {
                close(descriptor)
                return nil
            }
            let decoder = try ImageRowDecoder(fileDescriptor: descriptor, scaleDenominator: shape.denominator,
                                              layout: shape.deep ? info.storedLayout : .rgba8, maxPixels: maxPixels)
            return BandedWrite(chain: try chain(from: decoder, info: info, shape: shape, opaque: decoder.isOpaque,
                                                plan: plan, isCancelled: isCancelled),
                               decoder: decoder, descriptor: descriptor, plan: plan)
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// The rest of `download`'s body decoded whole, processed as the whole path does (the decode at the plan's
    /// target size, its processors, then what the plan does last), written through the band encoder.
    private static func whole(_ download: StreamedDownload, plan: ProcessingPlan, maxPixels: Int,
                              isCancelled: @escaping () -> Bool) throws -> BandedWrite {
        let decoded = try ImageDecoder(keepsStoredLayout: true)
            .decode(download.wholeBody(), targetSize: plan.targetSize, maxPixels: maxPixels)
        if isCancelled() { throw ImageError.cancelled }
        return BandedWrite(bitmap: plan.finished(try ProcessorChain(plan.processors).process(decoded)), plan: plan)
    }

    /// How a job runs in bands, from the header; nil when it takes the whole path.
    private struct Shape {
        /// A JPEG's DCT scale.
        var denominator = 1
        /// The size to resize to.
        var target: (width: Int, height: Int)?
        /// A 16-bit PNG with no resize, blur or tilt-shift: its rows stay in their stored 16-bit layout.
        var deep = false
    }

    private static func shape(of info: ImageInfo, plan: ProcessingPlan) -> Shape? {
        // WebP, GIF, AVIF, HEIF and JPEG XL decode whole (frames: their libraries read no rows): the whole-bitmap path.
        guard info.orientation == .up, !info.format.decodesFrames else { return nil }
        var shape = Shape()
        if let size = plan.targetSize {
            let fitted = size.fittedSize(width: info.width, height: info.height)
            shape.target = fitted
            if info.format == .jpeg {
                shape.denominator = ImageDecoder.jpegScaleDenominator(
                    width: info.width, height: info.height, targetWidth: fitted.width, targetHeight: fitted.height)
            }
        }
        // A 16-bit PNG (only PNGs are) becomes 8-bit at its first resize, blur or tilt-shift, as on the whole
        // path; with none it stays 16-bit: the decoder hands out rows of its stored layout.
        let reduces = plan.blurSigma != nil || plan.tiltShift
            || shape.target.map { $0.width != info.width || $0.height != info.height } ?? false
        shape.deep = info.storedLayout.bytesPerSample == 2 && !reduces
        return shape
    }

    /// The stages after `decoder`: resize, blur, tilt-shift, then greyscale, or back to grey for a grey input.
    private static func chain(from decoder: any RowSource, info: ImageInfo, shape: Shape, opaque: Bool,
                              plan: ProcessingPlan, isCancelled: @escaping () -> Bool) throws -> any RowSource {
        var source = decoder
        if let target = shape.target, target.width != source.width || target.height != source.height {
            source = try ResizeRows(source, width: target.width, height: target.height, isCancelled: isCancelled)
        }
        // The processors' row stages, as the pipeline runs them (blur, tilt-shift, greyscale: the plan's order).
        source = try ProcessorRows.chain(over: source, plan.processors, isCancelled: isCancelled)
        let layout = info.storedLayout
        if plan.greyscale {
            // As `ProcessingPlan.finished` makes it: one grey channel at the rows' depth, plus alpha when the file
            // has any (the header is written before any pixel is seen: an alpha channel that is all opaque stays).
            let channels = layout.hasAlpha && !opaque ? 2 : 1
            source = ConvertedRows(source,
                                   to: PixelLayout(channels: channels, bytesPerSample: source.layout.bytesPerSample)!)
        } else if !shape.deep && layout.eightBit != source.layout {
            source = ConvertedRows(source, to: layout.eightBit) // red = green = blue: back to grey, exactly
        }
        return source
    }

    /// What the run holds at its peak: every stage's rings and windows, the decoder's rows, the encoder's two bands
    /// (in the output's layout: a grey output's bands are a quarter of RGBA's)
    /// and, for a JPEG, libjpeg's own (a few rows; every coefficient with `--optimize-jpeg`). The budget reservation.
    var heldBytes: Int {
        var encoder = 2 * Self.chunkRows * chain.bytesPerRow
        if plan.format == .webp || plan.format == .avif {
            encoder += Self.wholeEncoderBytes(width: chain.width, height: chain.height)
        } else if plan.format != .png {
            encoder += ImageEncoder.JPEGStream.workingSetBytes(width: chain.width, height: chain.height,
                                                               layout: chain.layout, optimizedCoding: plan.optimizedJPEG)
        }
        return chain.retainedBytesInChain + encoder
    }

    /// What a WebP or AVIF encoder holds for a `width` x `height` image: the RGBA8 canvas its stream gathers
    /// (libwebp and libavif encode a whole picture) and about as much again for the library's YUV planes and state.
    static func wholeEncoderBytes(width: Int, height: Int) -> Int {
        8 * width * height
    }

    /// Runs the chain into `url` through a temporary file (removed on any failure); returns the size and the file's
    /// bytes. `rowsDone(n)` hears after every band that `n` output rows are done (the progress bar). A failure to
    /// create, write or rename the file is a ``WriteError`` naming `url`.
    func write(to url: URL, rowsDone: @escaping (Int) -> Void = { _ in }) throws -> (width: Int, height: Int, bytes: Int) {
        let chain = ReportingRows(self.chain, rowsDone: rowsDone)
        let width = chain.width, height = chain.height
        let bytes: Int
        do {
            bytes = try encode(chain, to: url)
        } catch let error as POSIXError {
            throw WriteError(path: url.path, reason: String(cString: strerror(error.code.rawValue)))  // the rename
        } catch let error as CocoaError {
            throw WriteError(path: url.path, reason: describe(error))
        }
        return (width, height, bytes)
    }

    /// The band encoder: rows pulled from `chain` on this thread, encoded on a second one into a temporary file.
    private func encode(_ chain: any RowSource, to url: URL) throws -> Int {
        try LiveTemporaryFiles.shared.write(to: url) { temporary -> Int in
            let output = open(temporary.path, O_WRONLY | O_TRUNC | O_CLOEXEC) // created by LiveTemporaryFiles
            guard output >= 0 else { throw WriteError(path: url.path, reason: String(cString: strerror(errno))) }
            defer { close(output) }
            // Decode + process on this thread, encoding on a second one, band by band.
            switch plan.format {
            case .png:
                return try ImageEncoder().encodePNG(rowsOf: chain, compressionLevel: plan.compression,
                                                    filter: plan.pngFilter, fileDescriptor: output,
                                                    bandRows: Self.chunkRows).byteCount
            case .webp:
                return try ImageEncoder().encodeWebP(rowsOf: chain, quality: plan.quality, lossless: plan.lossless,
                                                     effort: plan.effort, fileDescriptor: output,
                                                     bandRows: Self.chunkRows).byteCount
            case .avif:
                return try ImageEncoder().encodeAVIF(rowsOf: chain, quality: plan.quality, effort: plan.effort,
                                                     threads: plan.encoderThreads, fileDescriptor: output,
                                                     bandRows: Self.chunkRows).byteCount
            case .jpeg, .jpg:
                break
            }
            return try ImageEncoder().encodeJPEG(rowsOf: chain, quality: plan.quality, background: plan.background,
                                                 optimizedCoding: plan.optimizedJPEG, fileDescriptor: output,
                                                 bandRows: Self.chunkRows).byteCount
        }
    }
}
