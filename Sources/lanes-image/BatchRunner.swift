import Foundation
import Lanes
import LanesImages

/// What happened to one job.
struct JobResult: Sendable {
    var job: ImageJob
    /// `WxH, N KB` of the written file, or the reason it failed.
    var detail: String
    var failed: Bool
}

/// Runs jobs with at most `concurrency` files in flight. Every output is written by one band encoder
/// (``BandedWrite``): a file's rows come from its decoder through the row stages; any other job is loaded (fetched,
/// decoded, processed) whole through `loader`, and its bitmap's rows are encoded on `encoders`. Every job ends in a
/// ``JobResult``.
struct BatchRunner: Sendable {
    let plan: ProcessingPlan
    let loader: any BitmapLoading
    let encoders: WorkQueue
    let concurrency: Int
    let progress: ProgressReporter
    /// File (and, with a fetcher, URL) jobs run in bands (``BandedWrite``) when set; nil sends every job through
    /// `loader`.
    var banded: BandedFiles? = nil

    func run(_ jobs: [ImageJob]) async -> [JobResult] {
        let files = WorkQueue("lanes-image files", maxConcurrency: concurrency)
        progress.begin(total: jobs.count)
        let items = jobs.map { job in
            files.add(label: job.displayName) { context in await self.runOne(job, context: context) }
        }
        var results: [JobResult] = []
        for (job, item) in zip(jobs, items) {
            switch await item.result {
            case .success(let result): results.append(result)
            case .failure(let error): results.append(JobResult(job: job, detail: describe(error), failed: true))
            }
        }
        progress.end()
        return results
    }

    /// `context`: the job's item, whose cancellation also ends a download's wait for bytes.
    private func runOne(_ job: ImageJob, context: WorkContext) async -> JobResult {
        progress.started(job)
        let start = Date()
        let result: JobResult
        do {
            let (width, height, bytes): (Int, Int, Int)
            if let banded, let run = try BandedWrite.prepare(job, plan: plan, maxPixels: banded.maxPixels,
                                                             fetcher: banded.fetcher, context: context,
                                                             isCancelled: { Task.isCancelled }) {
                // Reserve what the stages hold, then decode, process and encode row band by row band.
                let reservation = try await banded.budget?.reserve(run.heldBytes, priority: .normal)
                defer { reservation?.release() }
                let (progress, rows) = (progress, run.chain.height)
                (width, height, bytes) = try run.write(to: job.output) { done in
                    progress.advanced(job, fraction: Double(done) / Double(rows))
                }
            } else {
                let bitmap = plan.finished(try await loader.bitmap(for: job, plan: plan))
                (width, height, bytes) = try await write(bitmap, job: job)
            }
            let seconds = Date().timeIntervalSince(start)
            result = JobResult(job: job, detail: "\(job.output.path) (\(width)x\(height), "
                + "\(Self.size(bytes)), \(String(format: "%.2f", seconds)) s)", failed: false)
        } catch {
            result = JobResult(job: job, detail: Self.reason(describe(error), for: job), failed: true)
        }
        progress.finished(job, failed: result.failed, detail: result.detail)
        return result
    }

    /// Writes a whole bitmap on the encoder queue through the band encoder every output takes (``BandedWrite``, its
    /// rows read from the bitmap), into a temporary file renamed into place, so a reader never sees half an image.
    /// The rows are reported to the progress bar as they are encoded.
    private func write(_ bitmap: Bitmap, job: ImageJob) async throws -> (Int, Int, Int) {
        let (plan, progress) = (plan, progress)
        return try await encoders.add(label: "encode \(job.displayName)") { _ in
            try BandedWrite(bitmap: bitmap, plan: plan).write(to: job.output) { done in
                progress.advanced(job, fraction: Double(done) / Double(bitmap.height))
            }
        }.value
    }

    /// The reason without a leading `<url>: ` (the line already names the input).
    static func reason(_ text: String, for job: ImageJob) -> String {
        for prefix in [job.source.absoluteString + ": ", job.source.path + ": "] where text.hasPrefix(prefix) {
            return String(text.dropFirst(prefix.count))
        }
        return text
    }

    static func size(_ bytes: Int) -> String {
        bytes < 10_000 ? "\(bytes) B" : bytes < 10_000_000 ? "\(bytes / 1000) KB" : "\(bytes / 1_000_000) MB"
    }
}

/// How file and URL jobs run in bands: the pixel limit and the budget their stages reserve from.
struct BandedFiles: Sendable {
    var maxPixels: Int
    var budget: MemoryBudget?
    /// Streams `http(s)` inputs in bands (nil: they take the whole path).
    var fetcher: (any DataFetching)? = nil
}

/// Writing an output failed (the folder vanished, the disk is full, no permission...).
struct WriteError: Error, CustomStringConvertible {
    var path: String
    var reason: String
    var description: String { "cannot write \(path): \(reason)" }
}
