import Foundation
import Lanes

/// A fetcher that hands out a body held in memory in chunks, on a thread of its own, as a download would: for
/// tests, demos and benchmarks of progressive previews and streamed decoding, without a network.
///
/// Before each chunk, and once more before the fetch completes, it calls `pace` with the offset of what comes next
/// (the body's length for the end): sleep there to pace the transfer like a network, or wait there for a test's
/// gate. Every URL gets the same body; a fetch cannot be cancelled (the body is in memory).
///
/// ```swift
/// // A 6 MB/s link: 64 KB chunks 10 ms apart.
/// let network = ChunkedMemoryFetcher(jpeg, chunkSize: 64 << 10) { offset in
///     if offset > 0 && offset < jpeg.count { Thread.sleep(forTimeInterval: 0.010) }
/// }
/// let previewing = ImagePipeline(configuration: ImagePipelineConfiguration(fetcher: network))
/// ```
public final class ChunkedMemoryFetcher: DataFetching {
    private struct Handle: FetchHandle {
        func cancel() {}
        func setPriority(_ priority: WorkPriority) {}
    }

    /// The body every fetch hands out.
    public let body: Data
    /// The size of each chunk but the last.
    public let chunkSize: Int
    private let pace: @Sendable (_ offset: Int) -> Void

    /// A fetcher of `body` in chunks of `chunkSize` bytes (at least 1), calling `pace` before each chunk with its
    /// offset and before the end with `body.count`.
    public init(_ body: Data, chunkSize: Int = 64 << 10, pace: @escaping @Sendable (_ offset: Int) -> Void = { _ in }) {
        self.body = Data(body)   // offsets from 0, even for a slice
        self.chunkSize = max(1, chunkSize)
        self.pace = pace
    }

    /// Hands out the whole body, after the same pacing as a streamed fetch.
    public func fetch(
        _ url: URL, priority: WorkPriority, completion: @escaping @Sendable (Result<Data, FetchError>) -> Void
    ) -> any FetchHandle {
        fetch(url, priority: priority, chunks: { _ in }) { [body] in completion($0.map { body }) }
    }

    /// Hands out the body chunk by chunk on a thread of its own, then completes.
    public func fetch(
        _ url: URL, priority: WorkPriority, chunks: @escaping @Sendable (Data) -> Void,
        completion: @escaping @Sendable (Result<Void, FetchError>) -> Void
    ) -> any FetchHandle {
        Thread { [body, chunkSize, pace] in
            for start in stride(from: 0, to: body.count, by: chunkSize) {
                pace(start)
                chunks(body.subdata(in: start..<min(body.count, start + chunkSize)))
            }
            pace(body.count)
            completion(.success(()))
        }.start()
        return Handle()
    }
}
