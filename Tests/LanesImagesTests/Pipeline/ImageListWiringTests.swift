import Foundation
import Lanes
import LanesImages
import LanesLists
import LanesTesting
import Testing

/// `ListModel.connect` drives image cells exactly as it drives any other: the pipeline is a list loader.
@MainActor
@Suite("A list drives image cells", .timeLimit(.minutes(5)))
struct ImageListWiringTests {
    @MainActor final class PhotoCell {
        var shown: [String] = []
        var placeholders: [String] = []
        private(set) var photo: ImageBinding!

        init(loader: ContentLoader<ImageRequest, Bitmap>) {
            photo = loader.binding(placeholder: { [unowned self] request in placeholders.append(request.url.lastPathComponent) }) {
                [unowned self] request, result in
                if case .success = result { shown.append(request.url.lastPathComponent) }
            }
        }
    }

    @Test("connect binds visible rows through the pipeline; a cell reused before its image arrives gets only its new row's")
    func connectDrivesImageCells() throws {
        let png = try Fixture.data("chelsea.png")
        let urls = (0..<40).map { URL(string: "https://images.test/\($0).png")! }
        let fetcher = ScriptedFetcher(
            Dictionary(uniqueKeysWithValues: urls.map { ($0.absoluteString, Result<Data, FetchError>.success(png)) }),
            holds: true)
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let loader = pipeline.loader(deliveringOn: WorkQueue("cells", maxConcurrency: 1, executor: executor))
        let requests = urls.map { ImageRequest(url: $0, targetSize: TargetSize(maxWidth: 16), processors: [Greyscale()]) }
        let list = ListModel(rowCount: urls.count, rowHeight: 1, viewportHeight: 2) { PhotoCell(loader: loader) }
        list.connect(to: loader, key: { requests[$0] }, binding: { $0.photo })
        list.layoutIfNeeded()
        // The visible rows' whole chain (fetch → decode → filter) runs at visible priority.
        #expect(pipeline.priorityInFlight(of: requests[0]) == .visible)
        #expect(loader.inFlightPriority(of: requests[1]) == .visible)
        executor.runAll()
        let firstTransfers = fetcher.handles.filter { ["0.png", "1.png"].contains($0.url.lastPathComponent) }
        #expect(firstTransfers.count == 2 && firstTransfers.allSatisfy { $0.priorities.first == .visible })

        // Scrolled far away before anything arrived: the cells are reused for rows 30 and 31.
        list.scroll(to: 30)
        #expect(firstTransfers.allSatisfy { $0.isCancelled })   // nobody else wanted rows 0 and 1
        executor.runAll()
        fetcher.completeAll()
        while executor.runAll() > 0 {}
        #expect(list.cell(forRow: 30)?.shown == ["30.png"])
        #expect(list.cell(forRow: 31)?.shown == ["31.png"])
        #expect(list.cellsCreated == 2)
        #expect(loader.stats.wrongCellDeliveries == 0)
        #expect(pipeline.cachedImage(for: requests[30])?.width == 16)
    }
}
