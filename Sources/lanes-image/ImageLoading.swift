import Foundation
import Lanes
import LanesImages
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Produces the processed bitmap of one job. ``DirectLoader`` does it with the codecs and
/// processors directly; the `ImagePipeline` takes its place once it lands (same contract:
/// fetch `source`, decode to fit `plan.targetSize`, run `plan.processors`).
protocol BitmapLoading: Sendable {
    func bitmap(for job: ImageJob, plan: ProcessingPlan) async throws -> Bitmap
}

/// The stand-in for the pipeline: reads files (or fetches URLs with URLSession), then decodes and
/// processes on `cpu`, a Lanes queue limited to `--threads`.
struct DirectLoader: BitmapLoading {
    let cpu: WorkQueue
    let maxPixels: Int

    func bitmap(for job: ImageJob, plan: ProcessingPlan) async throws -> Bitmap {
        let data = try await Self.fetch(job.source)
        let targetSize = plan.targetSize
        let chain = ProcessorChain(plan.processors)
        let maxPixels = maxPixels
        return try await cpu.add(label: "decode+process \(job.displayName)") { ctx in
            let decoded = try ImageDecoder().decode(data, targetSize: targetSize, maxPixels: maxPixels)
            return try chain.process(decoded, isCancelled: { ctx.isCancelled })
        }.value
    }

    /// The bytes at a `file://` or `http(s)://` URL; an HTTP status outside 200...299 is an error.
    static func fetch(_ url: URL) async throws -> Data {
        if url.isFileURL {
            return try Data(contentsOf: url)
        }
        let (data, response) = try await URLSession.shared.data(from: url)
        if let http = response as? HTTPURLResponse, !(200...299).contains(http.statusCode) {
            throw CLIError.httpStatus(http.statusCode)
        }
        return data
    }
}

/// Errors of the CLI's own making.
enum CLIError: Error, CustomStringConvertible {
    case httpStatus(Int)

    var description: String {
        switch self {
        case .httpStatus(let code): "HTTP status \(code) (\(HTTPURLResponse.localizedString(forStatusCode: code)))"
        }
    }
}

/// A one-line, human reason for a failure (no "Error Domain=..." noise).
func describe(_ error: any Error) -> String {
    switch error {
    case let error as ImageError:
        return error.description
    case let error as CLIError:
        return error.description
    case let error as URLError:
        return "network error: \(error.localizedDescription)"
    case let error as CocoaError where error.code == .fileReadNoSuchFile:
        return "no such file"
    case let error as CocoaError where error.code == .fileReadNoPermission || error.code == .fileWriteNoPermission:
        return "permission denied"
    case let error as CocoaError where error.code == .fileReadUnknown && isDirectoryError(error):
        return "is a directory"
    case let error as LanesError:
        return "\(error)"
    case let error as any CustomStringConvertible where !(error is NSError):
        return error.description
    default:
        return error.localizedDescription
    }
}

private func isDirectoryError(_ error: CocoaError) -> Bool {
    ((error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code ?? 0) == Int(EISDIR)
}
