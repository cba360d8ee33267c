import Dispatch
import Foundation
import Lanes
import LanesImages

/// `lanes-bench pipeline-load URL WIDTH SIGMA [--staged]`: loads URL once through a fresh ``ImagePipeline`` (its
/// defaults: `DataFetcher`, the memory cache, a decode and a processor chain per core), fitted to WIDTH pixels wide
/// and blurred by SIGMA, as `lanes-image process URL --resize WIDTHx --blur SIGMA` decodes and processes it; with
/// `--staged`, with ``ImagePipelineConfiguration/processesInBands`` off (the decode and the blur each on a whole
/// bitmap). Prints `WxH`; the process's peak RSS is the figure (`images-pipeline` runs it under `/usr/bin/time`).
enum PipelineLoad {
    static func run(_ arguments: [String]) -> Never {
        let values = arguments.filter { !$0.hasPrefix("--") }
        guard values.count == 3, let url = URL(string: values[0]), let width = Int(values[1]), width > 0,
              let sigma = Double(values[2]), sigma > 0 else {
            FileHandle.standardError.write(Data("usage: lanes-bench pipeline-load URL WIDTH SIGMA [--staged]\n".utf8))
            exit(2)
        }
        var configuration = ImagePipelineConfiguration()
        configuration.processesInBands = !arguments.contains("--staged")
        let pipeline = ImagePipeline(configuration: configuration)
        let request = ImageRequest(url: url, targetSize: TargetSize(maxWidth: width),
                                   processors: [GaussianBlur(sigma: sigma)])
        let result = LockedValue<Result<Bitmap, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        pipeline.load(request, on: nil) { outcome in
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        switch result.withLock({ $0 })! {
        case .success(let bitmap):
            let banded = pipeline.statistics.bandedChains
            print("\(bitmap.width)x\(bitmap.height) banded chains \(banded)")
            exit(0)
        case .failure(let error):
            FileHandle.standardError.write(Data("pipeline-load: \(error)\n".utf8))
            exit(1)
        }
    }
}
