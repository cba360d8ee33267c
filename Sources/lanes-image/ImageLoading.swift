import Foundation
import Lanes
import LanesImages

/// Produces the processed bitmap of one job: fetch `source`, decode to fit `plan.targetSize`,
/// run `plan.processors`. ``PipelineLoader`` is the real one; the seam keeps the batch logic
/// independent of where bitmaps come from.
protocol BitmapLoading: Sendable {
    func bitmap(for job: ImageJob, plan: ProcessingPlan) async throws -> Bitmap
}

/// Loads through LanesImages' ``ImagePipeline``: fetches (files and http(s) with retries),
/// decodes and processes on its own queues, coalescing repeated requests.
struct PipelineLoader: BitmapLoading {
    let pipeline: ImagePipeline

    /// A pipeline for a batch run: `concurrency` transfers, `threads` decodes and processor
    /// chains at once, no memory cache (every output is written once and dropped). Bitmaps keep the file's layout
    /// (grey stays grey, 16-bit PNGs stay 16-bit until an operation that works in 8 bits).
    init(concurrency: Int, threads: Int, maxPixels: Int, fetchPolicy: FetchPolicy = FetchPolicy()) {
        let configuration = ImagePipelineConfiguration(
            fetcher: DataFetcher(policy: fetchPolicy), decoder: ImageDecoder(keepsStoredLayout: true),
            memoryCacheLimit: 0, maxPixels: maxPixels, fetchConcurrency: concurrency,
            decodeConcurrency: threads, processConcurrency: threads)
        pipeline = ImagePipeline(configuration: configuration)
    }

    func bitmap(for job: ImageJob, plan: ProcessingPlan) async throws -> Bitmap {
        let request = ImageRequest(url: job.source, targetSize: plan.targetSize, processors: plan.processors)
        return try await pipeline.image(for: request)
    }
}

/// A one-line, human reason for a failure (no "Error Domain=..." noise).
func describe(_ error: any Error) -> String {
    switch error {
    case let error as ImageError:
        return error.description
    case let error as FetchError:
        return error.description
    case let error as WriteError:
        return error.description
    case let error as LanesError:
        return "\(error)"
    case let error as POSIXError:
        return String(cString: strerror(error.code.rawValue))
    case let error as CocoaError where error.code == .fileReadNoSuchFile || error.code == .fileNoSuchFile:
        return "no such file or folder"
    case let error as CocoaError where error.code == .fileReadNoPermission || error.code == .fileWriteNoPermission:
        return "permission denied"
    case let error as CocoaError where error.code == .fileWriteOutOfSpace:
        return "no space left on the device"
    default:
        return error.localizedDescription
    }
}
