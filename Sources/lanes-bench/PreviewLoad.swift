import Dispatch
import Foundation
import Lanes
import LanesImages

/// `lanes-bench preview-load FILE [LOADS] [WIDTH] [GAP_MS]`: loads FILE (a progressive JPEG) LOADS times (5) through
/// a fresh ``ImagePipeline`` with a preview handler, the body handed out from memory as a download would be, in 64 KB
/// chunks GAP_MS apart (10: about 6 MB/s; an `https` URL, so previews are decoded as it arrives), to WIDTH pixels wide
/// (0: full size, the default). Prints one JSON line: medians of a load's wall time and of the time from its last
/// byte to its image, the process's CPU time a load, the decodes the pipeline counted and the previews shown.
/// Run it under `/usr/bin/time -f %M` for its peak RSS (`scripts/bench-previews` runs it before and after a change).
enum PreviewLoad {
    static func run(_ arguments: [String]) -> Never {
        guard let path = arguments.first, let body = FileManager.default.contents(atPath: path) else {
            FileHandle.standardError.write(Data("usage: lanes-bench preview-load FILE [LOADS] [WIDTH]\n".utf8))
            exit(2)
        }
        let loads = arguments.count > 1 ? max(1, Int(arguments[1]) ?? 5) : 5
        let width = arguments.count > 2 ? Int(arguments[2]) ?? 0 : 0
        let gap = (arguments.count > 3 ? Double(arguments[3]) ?? 10 : 10) / 1000
        var seconds: [Double] = [], tails: [Double] = []
        var decodes = 0, previews = 0
        let cpuBefore = ResourceUsage.now().cpuSeconds
        for load in 0..<loads {
            let lastChunk = LockedValue<UInt64>(0)   // when the last chunk was handed out (uptime nanoseconds)
            let fetcher = MemoryFetcher(otherwise: .body(body)) { _, offset in
                if offset == body.count {
                    lastChunk.withLock { $0 = DispatchTime.now().uptimeNanoseconds }
                } else if offset > 0 {
                    Thread.sleep(forTimeInterval: gap)   // the network's pace
                }
            }
            let pipeline = ImagePipeline(configuration: ImagePipelineConfiguration(fetcher: fetcher))
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
            let end = DispatchTime.now().uptimeNanoseconds
            seconds.append(Double(end - start) / 1e9)
            tails.append(Double(end - lastChunk.withLock { $0 }) / 1e9)
            decodes += pipeline.statistics.decodes
            previews += shown.withLock { $0 }
        }
        let cpu = (ResourceUsage.now().cpuSeconds - cpuBefore) / Double(loads)
        let median = seconds.sorted()[seconds.count / 2], tail = tails.sorted()[tails.count / 2]
        print("{\"scenario\":\"preview-load\",\"loads\":\(loads),\"width\":\(width),\"median_s\":\(median),"
              + "\"tail_s\":\(tail),\"cpu_s_per_load\":\(cpu),\"decodes_per_load\":\(Double(decodes) / Double(loads)),\"previews_per_load\":"
              + "\(Double(previews) / Double(loads))}")
        exit(0)
    }
}
