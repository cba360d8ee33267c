import Foundation
import Lanes
import LanesImages
import LanesTesting
import Testing

/// A whole image whose transfer still ends short: the server announced 5,000 bytes more than it sent (or never sent
/// the last chunk, or cut the gzip stream) and closed cleanly. The image decodes, but the download failed, so the
/// pipeline and the rows read as the body arrives (what `lanes-image` writes from) report the fetch's error.
@Suite("A download cut short after a whole image", .timeLimit(.minutes(5)))
struct ShortBodyEndToEndTests {
    enum Framing: String, CaseIterable, Sendable { case plain, gzip, chunked }

    /// The route for `image` followed by 5,000 announced bytes that never come.
    static func route(_ image: [UInt8], _ framing: Framing) -> LoopbackRoute {
        let padded = image + [UInt8](repeating: 0, count: 5000)
        switch framing {
        case .plain:
            return LoopbackRoute(body: padded, ending: .close(afterBytes: image.count))
        case .gzip:
            let encoded = Gzip.stored(padded)
            return LoopbackRoute(body: encoded, headers: ["Content-Encoding": "gzip"],
                                 ending: .close(afterBytes: encoded.count - 5000))
        case .chunked:
            // Chunks of 1,000 bytes: the image's chunks and their framing, then the connection closes.
            let wire = image.count + (image.count / 1000 + 1) * 10
            return LoopbackRoute(body: padded, ending: .close(afterBytes: wire), chunkSize: 1000)
        }
    }

    static func isFetchFailure(_ error: any Error, url: URL, framing: Framing) -> Bool {
        guard let error = error as? FetchError else { return false }
        switch (error, framing) {
        case (.shortBody(let failed, let received, let expected), .plain):
            return failed == url.absoluteString && expected - received == 5000
        case (.shortBody(let failed, _, _), _), (.encodedBodyFailed(let failed, _), _), (.connection(let failed, _), _):
            return failed == url.absoluteString
        default:
            return false
        }
    }

    @Test("the pipeline reports a FetchError, with and without preview listeners",
          arguments: Framing.allCases, [false, true])
    func pipelineFails(framing: Framing, previews: Bool) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/photo.png", Self.route(try Fixture.bytes("chelsea.png"), framing))
        var configuration = ImagePipelineConfiguration(fetcher: DataFetcher(policy: testPolicy(attempts: 1)))
        configuration.previewInterval = .milliseconds(1)
        let pipeline = ImagePipeline(configuration: configuration)
        let url = server.url("/photo.png")
        let result = await withCheckedContinuation { (done: CheckedContinuation<Result<Bitmap, any Error>, Never>) in
            if previews {
                pipeline.load(ImageRequest(url: url), on: nil, preview: { _ in }) { done.resume(returning: $0) }
            } else {
                pipeline.load(ImageRequest(url: url), on: nil) { done.resume(returning: $0) }
            }
        }
        guard case .failure(let error) = result else {
            Issue.record("a download cut short was accepted (\(framing))")
            return
        }
        #expect(Self.isFetchFailure(error, url: url, framing: framing), "\(error)")
    }

    @Test("rows read as the body arrives fail at the last row", arguments: Framing.allCases)
    func streamedRowsFail(framing: Framing) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/photo.png", Self.route(try Fixture.bytes("chelsea.png"), framing))
        let fetcher = DataFetcher(policy: testPolicy(attempts: 1))
        let url = server.url("/photo.png")
        let failure = await failureOnDedicatedThread {
            _ = try Bitmap(readingAllRowsOf: StreamedRows(url: url, fetcher: fetcher))
        }
        let error = try #require(failure, "a download cut short was read whole (\(framing))")
        #expect(Self.isFetchFailure(error, url: url, framing: framing), "\(error)")
    }
}
