import Foundation
import Lanes
import LanesImages
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ProcessingPlan {
    /// The processor to overlap with PNG encoding: a PNG output whose only step is a blur or a
    /// tilt-shift (their rows become final top to bottom). Nil for every other plan.
    var streamingProcessor: (any RowStreamingProcessor)? {
        guard format == .png, processors.count == 1 else { return nil }
        return processors[0] as? any RowStreamingProcessor
    }

    /// This plan without its processors: what to decode before a streamed process-and-encode.
    var decodeOnly: ProcessingPlan {
        var plan = self
        plan.blurSigma = nil
        plan.tiltShift = false
        plan.greyscale = false
        return plan
    }
}

/// Runs `processor` on `bitmap` while a second thread PNG-encodes the finished rows straight
/// into a temporary file beside `url`, then renames it to `url` (a reader never sees half an
/// image). Returns the processed size and the file's byte count; the temporary file is removed
/// on any failure.
func processAndWritePNG(_ bitmap: Bitmap, with processor: any RowStreamingProcessor, plan: ProcessingPlan,
                        to url: URL, isCancelled: @Sendable () -> Bool,
                        rowsDone: @escaping @Sendable (Int) -> Void = { _ in }) throws -> (width: Int, height: Int, bytes: Int) {
    do {
        let result = try LiveTemporaryFiles.shared.write(to: url) { temporary -> ImageEncoder.StreamedPNG in
            let descriptor = open(temporary.path, O_WRONLY | O_TRUNC | O_CLOEXEC) // created by LiveTemporaryFiles
            guard descriptor >= 0 else {
                throw WriteError(path: url.path, reason: String(cString: strerror(errno)))
            }
            defer { close(descriptor) }
            return try ImageEncoder().processAndEncodePNG(bitmap, with: processor, compressionLevel: plan.compression,
                                                          filter: plan.pngFilter, fileDescriptor: descriptor,
                                                          isCancelled: isCancelled, rowsEncoded: rowsDone)
        }
        return (result.bitmap.width, result.bitmap.height, result.byteCount)
    } catch let error as POSIXError {
        throw WriteError(path: url.path, reason: String(cString: strerror(error.code.rawValue)))  // the rename
    }
}

/// Encodes `bitmap` as `plan` says (a PNG of its level and filter, a JPEG, WebP or AVIF), `rowsPerReport` rows at a time, telling
/// `rowsDone` how many are in: the same bytes as ``ImageEncoder/encode(_:as:)`` gives, with progress while it works.
func encodeReporting(_ bitmap: Bitmap, plan: ProcessingPlan, rowsPerReport: Int = 64,
                     rowsDone: (Int) -> Void) throws -> Data {
    let stream: any RowEncoder
    var bitmap = bitmap
    switch plan.format {
    case .png:
        stream = try ImageEncoder.PNGStream(width: bitmap.width, height: bitmap.height, hasAlpha: !bitmap.isOpaque,
                                            layout: bitmap.layout, compressionLevel: plan.compression,
                                            filter: plan.pngFilter)
    case .jpeg, .jpg:
        stream = try ImageEncoder.JPEGStream(width: bitmap.width, height: bitmap.height, layout: bitmap.layout,
                                             quality: plan.quality, background: plan.background,
                                             optimizedCoding: plan.optimizedJPEG)
    case .webp, .avif:
        let opaque = bitmap.isOpaque
        if bitmap.layout != .rgba8 { bitmap = bitmap.converted(to: .rgba8) } // grey or 16-bit: RGBA8 rows
        stream = plan.format == .webp
            ? try ImageEncoder.WebPStream(width: bitmap.width, height: bitmap.height, hasAlpha: !opaque,
                                          quality: plan.quality, lossless: plan.lossless, effort: plan.effort)
            : try ImageEncoder.AVIFStream(width: bitmap.width, height: bitmap.height, hasAlpha: !opaque,
                                          quality: plan.quality, effort: plan.effort, threads: plan.encoderThreads)
    }
    for start in stride(from: 0, to: bitmap.height, by: rowsPerReport) {
        let end = min(start + rowsPerReport, bitmap.height)
        try stream.write(rows: start..<end, of: bitmap)
        rowsDone(end)
    }
    return try stream.finish()
}

/// Writes `data` to a temporary file beside `url` and renames it into place, so a reader never sees half an image.
func writeAtomically(_ data: Data, to url: URL) throws {
    do {
        try LiveTemporaryFiles.shared.write(to: url) { temporary in
            let handle = try FileHandle(forWritingTo: temporary) // never creates: the file was made when listed
            defer { try? handle.close() }
            try handle.write(contentsOf: data)
        }
    } catch {
        throw WriteError(path: url.path, reason: describe(error))
    }
}
