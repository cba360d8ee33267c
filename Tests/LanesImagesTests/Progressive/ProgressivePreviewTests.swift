import Foundation
import Lanes
import LanesImages
import LanesLists
import LanesTesting
import Testing

/// Previews of a slow progressive JPEG over real HTTP: the loopback server sends the file up to a gate after its
/// first scan, then after its fifth, then the rest, each gate opened by the test; the throttle runs on a virtual
/// clock, so which previews come is fixed: one at once, one after the interval, none within it.
@Suite("Progressive previews", .timeLimit(.minutes(5)))
struct ProgressivePreviewTests {
    /// The progressive fixture and the offsets of its gates: just after the header of scan 2 (scan 1 complete) and
    /// of scan 5 (scans 1-4 complete).
    static func slowJPEG() throws -> (body: [UInt8], route: LoopbackRoute) {
        let jpeg = try Fixture.bytes("progressive/chelsea-progressive.jpg")
        let scans = (0..<jpeg.count - 1).filter { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA }
        #expect(scans.count >= 6)
        let route = LoopbackRoute(body: jpeg, ending: .gated([(scans[1] + 20, "scan 5"), (scans[4] + 20, "rest")]))
        return (jpeg, route)
    }

    static func pipeline(clock: VirtualClock) -> ImagePipeline {
        var configuration = ImagePipelineConfiguration(fetcher: DataFetcher(policy: testPolicy()))
        configuration.previewClock = clock
        return ImagePipeline(configuration: configuration)
    }

    static func request(_ url: URL) -> ImageRequest { ImageRequest(url: url, targetSize: TargetSize(maxWidth: 200)) }

    @Test("A slow progressive JPEG: a preview at once, one after the interval, then the image")
    func previewsThenImage() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/slow.jpg", try Self.slowJPEG().route)
        let clock = VirtualClock()
        let pipeline = Self.pipeline(clock: clock)
        let delivery = WorkQueue("previews", maxConcurrency: 1)
        let log = Recorder<String>()
        let done = Gate()
        pipeline.load(Self.request(server.url("/slow.jpg")), on: delivery, preview: { bitmap in
            log.append("preview \(bitmap.width)x\(bitmap.height)")
        }) { result in
            log.append((try? result.get()).map { "image \($0.width)x\($0.height)" } ?? "error \(result)")
            done.open()
        }
        try await waitUntil("the first scan's preview") { log.elements.count == 1 }
        clock.advance(by: .milliseconds(500))   // the interval ends: the next scans may show
        server.open("scan 5")
        try await waitUntil("the fifth scan's preview") { log.elements.count == 2 }
        server.open("rest")   // the remaining scans arrive within the interval: no preview, then the image
        await done.wait()
        clock.advance(by: .seconds(5))
        _ = try await delivery.add(label: "flush") { _ in }.value
        #expect(log.elements == ["preview 200x133", "preview 200x133", "image 200x133"])
        let whole = try ImageDecoder().decode(Data(try Self.slowJPEG().body), targetSize: TargetSize(maxWidth: 200))
        #expect(pipeline.cachedImage(for: Self.request(server.url("/slow.jpg")))?.pixels == whole.pixels)
    }

    @Test("Cancelling stops the download and the previews")
    func cancelStopsPreviews() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/slow.jpg", try Self.slowJPEG().route)
        let clock = VirtualClock()
        let pipeline = Self.pipeline(clock: clock)
        let delivery = WorkQueue("previews", maxConcurrency: 1)
        let log = Recorder<String>()
        let task = pipeline.load(Self.request(server.url("/slow.jpg")), on: delivery, preview: { _ in
            log.append("preview")
        }) { result in log.append(result.map { _ in "image" }.mapError { $0 }.isCancellation ? "cancelled" : "other") }
        try await waitUntil("the first preview") { log.elements == ["preview"] }
        // Cancelled on the delivery queue: every preview that runs there later would be "after cancel".
        _ = try await delivery.add(label: "cancel") { _ in task.cancel() }.value
        let connection = try #require(server.events.connections(requesting: "/slow.jpg").first)
        #expect(await server.waitUntil { $0.clientClosed(connection) })
        clock.advance(by: .seconds(1))
        server.open("scan 5")
        server.open("rest")
        _ = try await delivery.add(label: "flush") { _ in }.value
        #expect(log.elements == ["preview", "cancelled"])
        #expect(pipeline.stagesInFlight == (fetches: 0, bitmaps: 0))
    }
}

/// Previews into cells: two cells show the same slow image; one is reused for another row after the first preview.
@MainActor
@Suite("Progressive previews in bindings", .timeLimit(.minutes(5)))
struct ProgressiveBindingTests {
    final class Cell {
        var log: [String] = []
    }

    @Test("Placeholder, previews, image; a reused cell gets no preview of its old row")
    func reusedCellGetsNoPreview() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        // Held until both bindings listen: a first preview rendered before the second binding joined would never
        // reach it (the next one needs the virtual clock to move).
        var slowRoute = try ProgressivePreviewTests.slowJPEG().route
        slowRoute.latch = "start"
        server.route("/slow.jpg", slowRoute)
        server.route("/other.png", LoopbackRoute(body: try Fixture.bytes("chelsea.png"), latch: "never"))
        let clock = VirtualClock()
        let pipeline = ProgressivePreviewTests.pipeline(clock: clock)
        let cells = ManualExecutor()
        let delivery = WorkQueue("cells", maxConcurrency: 1, executor: cells)
        func bind(_ cell: Cell) -> ImageBinding {
            ImageBinding(pipeline: pipeline, deliveryQueue: delivery, placeholder: { _ in cell.log.append("placeholder") },
                         preview: { request, _ in cell.log.append("preview " + request.url.lastPathComponent) }) {
                request, result in
                cell.log.append((try? result.get()).map { _ in "image " + request.url.lastPathComponent } ?? "error")
            }
        }
        let first = Cell(), second = Cell()
        let firstBinding = bind(first), secondBinding = bind(second)
        let slow = ProgressivePreviewTests.request(server.url("/slow.jpg"))
        firstBinding.show(slow)
        secondBinding.show(slow)
        server.open("start")
        while first.log.count < 2 || second.log.count < 2 { // each binding's preview comes as an item of its own
            try await Self.deliveries(on: cells)
            cells.runAll()
        }
        #expect(first.log == ["placeholder", "preview slow.jpg"])
        firstBinding.show(ImageRequest(url: server.url("/other.png")))   // reused for another row
        clock.advance(by: .milliseconds(500))
        server.open("scan 5")
        try await Self.deliveries(on: cells)
        cells.runAll()
        server.open("rest")
        while !secondBinding.isLoaded {
            try await Self.deliveries(on: cells)
            cells.runAll()
        }
        #expect(first.log == ["placeholder", "preview slow.jpg", "placeholder"])
        #expect(second.log == ["placeholder", "preview slow.jpg", "preview slow.jpg", "image slow.jpg"])
        firstBinding.clear()
        secondBinding.clear()
    }

    /// Waits until deliveries wait on `cells`.
    nonisolated static func deliveries(on cells: ManualExecutor) async throws {
        try await waitUntil("a delivery for the cells") { cells.pendingRunners > 0 }
    }
}

extension Result {
    /// Whether this is a failure with `CancellationError`.
    fileprivate var isCancellation: Bool {
        if case .failure(let error) = self { return error is CancellationError }
        return false
    }
}
