import Foundation
import Lanes
import LanesImages
import LanesTesting
import Testing

/// The pipeline takes WebP, GIF, AVIF, HEIF and JPEG XL like PNG and JPEG: by content (the URL's name says PNG), decoded to the
/// request's size, within a budget that holds the decode's working set.
@Suite("Formats through the image pipeline", .timeLimit(.minutes(5)))
struct FormatPipelineTests {
    @Test("a URL named .png that serves WebP, GIF, AVIF, HEIF or JPEG XL loads, resized as asked",
          arguments: ["photo-lossy.webp", "anim.gif", "anim.webp", "photo.avif", "photo.heic", "photo.jxl", "anim.jxl"])
    func loadsByContent(_ name: String) throws {
        let data = try FormatFixture.data(name)
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(data)])
        let (pipeline, executor) = manualPipeline(fetcher: fetcher, budget: 1 << 20)
        let results = ResultBox()
        let size = TargetSize(maxWidth: 32)
        pipeline.load(ImageRequest(url: photoURL, targetSize: size), on: nil) { results.append($0) }
        executor.runAll()
        let bitmap = try #require(results.successes.first, "\(results.errors)")
        #expect(bitmap == (try ImageDecoder().decode(data, targetSize: size)))
        #expect(bitmap.width == 32 && bitmap.height == 24)
    }
}
