import Dispatch
import Foundation
import Lanes
import LanesImages

/// `lanes-bench preview-load FILE [LOADS] [WIDTH]`: loads FILE (a progressive JPEG) LOADS times (5) through a fresh
/// ``ImagePipeline`` with a preview handler, the body handed out in 64 KB chunks from memory as a download would be
/// (an `https` URL, so previews are decoded as it arrives), to WIDTH pixels wide (0: full size, the default).
/// Prints one JSON line: the median wall time of a load, the decodes the pipeline counted and the previews shown.
/// Run it under `/usr/bin/time -f %M` for its peak RSS (`scripts/bench-previews` runs it before and after a change).
enum PreviewLoad {
    /// Hands out a body in chunks on a thread of its own.
    final class ChunkedMemory: DataFetching {
        struct Done: FetchHandle {
            func cancel() {}
            func setPriority(_ priority: WorkPriority) {}
        }

        let body: Data

        init(_ body: Data) { self.body = body }

        func fetch(_ url: URL, priority: WorkPriority,
                   completion: @escaping @Sendable (Result<Data, FetchError>) -> Void) -> any FetchHandle {
            let body = self.body
            Thread { completion(.success(body)) }.start()
            return Done()
        }

        func fetch(_ url: URL, priority: WorkPriority, chunks: @escaping @Sendable (Data) -> Void,
                   completion: @escaping @Sendable (Result<Void, FetchError>) -> Void) -> any FetchHandle {
            let body = self.body
            Thread {
                for start in stride(from: 0, to: body.count, by: 64 << 10) {
                    chunks(body.subdata(in: start..<min(body.count, start + (64 << 10))))
                }
                completion(.success(()))
            }.start()
            return Done()
        }
    }

    static func run(_ arguments: [String]) -> Never {
        guard let path = arguments.first, let body = FileManager.default.contents(atPath: path) else {
            FileHandle.standardError.write(Data("usage: lanes-bench preview-load FILE [LOADS] [WIDTH]\n".utf8))
            exit(2)
        }
        let loads = arguments.count > 1 ? max(1, Int(arguments[1]) ?? 5) : 5
        let width = arguments.count > 2 ? Int(arguments[2]) ?? 0 : 0
        var seconds: [Double] = []
        var decodes = 0, previews = 0
        for load in 0..<loads {
            let pipeline = ImagePipeline(configuration: ImagePipelineConfiguration(fetcher: ChunkedMemory(body)))
            let request = ImageRequest(url: URL(string: "https://bench.invalid/\(load).jpg")!,
                                       targetSize: width > 0 ? TargetSize(maxWidth: width) : nil)
            let shown = LockedValue(0)
            let done = DispatchSemaphore(value: 0)
            let start = DispatchTime.now().uptimeNanoseconds
            pipeline.load(request, on: nil, preview: { _ in shown.withLock { $0 += 1 } }) { result in
                if case .failure(let error) = result {
                    FileHandle.standardError.write(Data("preview-load: \(error)\n".utf8))
                    exit(1)
                }
                done.signal()
            }
            done.wait()
            seconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            decodes += pipeline.statistics.decodes
            previews += shown.withLock { $0 }
        }
        let median = seconds.sorted()[seconds.count / 2]
        print("{\"scenario\":\"preview-load\",\"loads\":\(loads),\"width\":\(width),\"median_s\":\(median),"
              + "\"decodes_per_load\":\(Double(decodes) / Double(loads)),\"previews_per_load\":"
              + "\(Double(previews) / Double(loads))}")
        exit(0)
    }
}
