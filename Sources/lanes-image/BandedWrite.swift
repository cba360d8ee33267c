import Foundation
import LanesImages
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file job run in bands: the file is decoded a few rows at a time (read with `pread`, never whole),
/// resized, blurred and tilt-shifted by row stages, and the rows are PNG- or JPEG-encoded, on a second thread band by
/// band, straight into the temporary output file. Nothing holds the decoded image. A grey file (grey, grey and alpha,
/// a grey JPEG) decodes to RGBA8 rows for the stages and is folded back to grey before the encoder (``ConvertedRows``),
/// as the whole-bitmap path folds it: the output stays grey, with the same bytes (but a PNG output keeps an alpha
/// channel that is all opaque, as for RGBA: its header is written before any pixel is seen). A 16-bit PNG decodes to 8-bit rows,
/// which is what the whole path makes of it at its first resize, blur or tilt-shift. Not banded (nil from
/// ``prepare(_:plan:maxPixels:isCancelled:)``, and the job takes the whole-bitmap path): `--greyscale`, non-file
/// inputs, a 16-bit file with none of those steps (it stays 16-bit), and an Exif orientation other than "up", since
/// flipping the row order or transposing needs the whole image.
final class BandedWrite {
    let chain: any RowSource
    let decoder: ImageRowDecoder
    private let descriptor: Int32
    private let plan: ProcessingPlan

    /// Rows moved from the last stage to the encoder per call.
    static let chunkRows = 64

    private init(chain: any RowSource, decoder: ImageRowDecoder, descriptor: Int32, plan: ProcessingPlan) {
        self.chain = chain
        self.decoder = decoder
        self.descriptor = descriptor
        self.plan = plan
    }

    deinit {
        close(descriptor)
    }

    /// The chain for `job`, or nil when the job must take the whole-bitmap path.
    static func prepare(_ job: ImageJob, plan: ProcessingPlan, maxPixels: Int,
                        isCancelled: @escaping () -> Bool) throws -> BandedWrite? {
        guard job.source.isFileURL, !plan.greyscale else { return nil }
        let descriptor = open(job.source.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil } // the whole path reports the error in its own words
        do {
            let info = try ImageRowDecoder.probe(fileDescriptor: descriptor)
            var denominator = 1
            var target: (width: Int, height: Int)?
            if let size = plan.targetSize {
                let fitted = size.fittedSize(width: info.width, height: info.height)
                target = fitted
                if info.format == .jpeg {
                    denominator = ImageDecoder.jpegScaleDenominator(width: info.width, height: info.height,
                                                                    targetWidth: fitted.width, targetHeight: fitted.height)
                }
            }
            // A 16-bit PNG (only PNGs are) becomes 8-bit at its first resize, blur or tilt-shift, as on the whole
            // path; with none it stays 16-bit, through the whole path (the decoder's rows are 8-bit).
            let layout = info.storedLayout
            let reduces = plan.blurSigma != nil || plan.tiltShift
                || target.map { $0.width != info.width || $0.height != info.height } ?? false
            // WebP, GIF and AVIF decode whole (their libraries have no row API): the whole-bitmap path.
            guard info.orientation == .up, !info.format.decodesFrames, layout.bytesPerSample == 1 || reduces else {
                close(descriptor)
                return nil
            }
            let decoder = try ImageRowDecoder(fileDescriptor: descriptor, scaleDenominator: denominator, maxPixels: maxPixels)
            var source: any RowSource = decoder
            if let target, target.width != source.width || target.height != source.height {
                source = try ResizeRows(source, width: target.width, height: target.height, isCancelled: isCancelled)
            }
            if let sigma = plan.blurSigma {
                source = try BlurRows(source, sigma: sigma, isCancelled: isCancelled)
            }
            if plan.tiltShift {
                source = try BlurRows(source, tiltShift: TiltShift(), isCancelled: isCancelled)
            }
            if layout.eightBit != source.layout {
                source = ConvertedRows(source, to: layout.eightBit) // red = green = blue: back to grey, exactly
            }
            return BandedWrite(chain: source, decoder: decoder, descriptor: descriptor, plan: plan)
        } catch {
            close(descriptor)
            throw error
        }
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

    /// Runs the chain into `url` through a temporary file; returns the size and the file's bytes. `rowsDone(n)` hears
    /// after every band that `n` output rows are done (the progress bar).
    func write(to url: URL, rowsDone: @escaping (Int) -> Void = { _ in }) throws -> (width: Int, height: Int, bytes: Int) {
        let chain = ReportingRows(self.chain, rowsDone: rowsDone)
        let width = chain.width, height = chain.height
        let bytes = try LiveTemporaryFiles.shared.write(to: url) { temporary -> Int in
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
        return (width, height, bytes)
    }
}
