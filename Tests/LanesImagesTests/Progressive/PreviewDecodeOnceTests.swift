import Dispatch
import Foundation
import Lanes
@testable import LanesImages
import LanesLists
import LanesTesting
import Testing

/// A download watched for previews is decoded once: the incremental decoder that renders the previews ends with the
/// image, and the decode stage makes the request's image from it instead of decoding the body again (the same
/// pixels as a decode of the whole body). Where it cannot (a size needing another DCT scale than the feed's), the
/// body is decoded again, and the statistics say so.
@Suite("Previews decode a download once", .timeLimit(.minutes(5)))
struct PreviewDecodeOnceTests {
    /// Loads `requests` (with a preview handler where asked) from one fetch of `body`; returns the images, how many
    /// previews came and the statistics.
    static func load(_ body: Data, _ requests: [(ImageRequest, previews: Bool)]) async throws
        -> (images: [Bitmap], previews: Int, stats: ImagePipelineStatistics) {
        // The body arrives in pieces once `release` is signalled; halfway, it waits for `resume` (signalled by the
        // first preview: so the feed shows one, and its decoder was used).
        let release = DispatchSemaphore(value: 0), resume = DispatchSemaphore(value: 0)
        let piece = 2_000, half = body.count / 2
        let fetcher = MemoryFetcher(otherwise: .body(body, chunkSize: piece)) { _, offset in
            if offset == 0 { release.wait() }
            if offset >= half && offset < half + piece { resume.wait() }
        }
        var configuration = ImagePipelineConfiguration(fetcher: fetcher)
        configuration.previewClock = VirtualClock()
        let pipeline = ImagePipeline(configuration: configuration)
        let previews = Recorder<Int>()
        let results = Recorder<(Int, Result<Bitmap, any Error>)>()
        let gates = requests.map { _ in Gate() }
        for (index, (request, wantsPreviews)) in requests.enumerated() {
            let done: @Sendable (Result<Bitmap, any Error>) -> Void = { result in
                results.append((index, result))
                gates[index].open()
            }
            if wantsPreviews {
                pipeline.load(request, on: nil, preview: { bitmap in
                    previews.append(bitmap.width)
                    resume.signal()
                }, completion: done)
            } else {
                pipeline.load(request, on: nil, completion: done)
            }
        }
        release.signal()   // every request waits for the one fetch: the body arrives now
        for gate in gates { await gate.wait() }
        let images = try results.elements.sorted { $0.0 < $1.0 }.map { try $0.1.get() }
        return (images, previews.elements.count, pipeline.statistics)
    }

    static let url = URL(string: "https://example.com/photo")!

    @Test("A progressive JPEG or interlaced PNG with previews is decoded once, to the whole decode's pixels",
          arguments: ["progressive/chelsea-progressive.jpg", "progressive/chelsea-interlaced.png"],
          [nil, TargetSize(maxWidth: 200), TargetSize(maxWidth: 97, maxHeight: 97)])
    func decodedOnce(fixture: String, target: TargetSize?) async throws {
        let body = try Fixture.data(fixture)
        let request = ImageRequest(url: Self.url, targetSize: target)
        let (images, previews, stats) = try await Self.load(body, [(request, true)])
        #expect(previews >= 1)
        #expect(stats.decodes == 1, "\(stats)")
        #expect(images.first?.pixels == (try ImageDecoder().decode(body, targetSize: target).pixels))
    }

    @Test("A second size needing another DCT scale than the previews' is decoded again, to the whole decode's pixels")
    func otherScaleDecodesAgain() async throws {
        let body = try Fixture.data("progressive/chelsea-progressive.jpg")
        let small = TargetSize(maxWidth: 40), whole: TargetSize? = nil
        let (images, previews, stats) = try await Self.load(body, [
            (ImageRequest(url: Self.url, targetSize: small), true),
            (ImageRequest(url: Self.url, targetSize: whole), false),
        ])
        #expect(stats.fetches == 1)
        #expect(previews >= 1)
        #expect(stats.decodes == 2, "\(stats)")   // the feed's, at 1/8, and the whole size's
        #expect(images.map(\.pixels) == [try ImageDecoder().decode(body, targetSize: small).pixels,
                                         try ImageDecoder().decode(body).pixels])
    }
}

/// The preview feed's decoding follows the fetch's priority: the stage hands priority changes to the transfer handle,
/// which passes them to the feed's lane as well.
@Suite("Preview feed priority")
struct PreviewFeedPriorityTests {
    final class Recording: FetchHandle {
        let priorities = Recorder<WorkPriority>()
        func cancel() {}
        func setPriority(_ priority: WorkPriority) { priorities.append(priority) }
    }

    @Test("A priority change reaches both the transfer and the feed's lane")
    func followsTheFetch() {
        let feed = PreviewFeed(listeners: { [] }, interval: .seconds(1),
                               clock: VirtualClock(), maxPixels: 1_000_000, priority: .prefetch,
                               counters: Counters(ImagePipelineStatistics()))
        let transfer = Recording()
        #expect(feed.priority == .prefetch)
        FeedingTransfer(transfer: transfer, feed: feed).setPriority(.visible)
        #expect(transfer.priorities.elements == [.visible])
        #expect(feed.priority == .visible)
    }
}
