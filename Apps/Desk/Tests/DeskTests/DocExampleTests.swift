import Foundation
import Lanes
import LanesImages
import Testing

#if canImport(Glibc)
import Glibc
#endif

// The examples of the LanesGLib article (Sources/LanesGLib/LanesGLib.docc/LanesGLib.md), compiled and run. Keep the
// two in step.

@MainActor final class PhotoCell {
    private(set) var row = -1
    private(set) var image: Bitmap?
    private var task: ImageTask?

    func show(row: Int, url: URL, from pipeline: ImagePipeline) {
        task?.cancel()                       // the row this cell showed before is no longer needed
        self.row = row
        image = nil
        task = pipeline.load(ImageRequest(url: url, targetSize: TargetSize(maxWidth: 200))) { [weak self] result in
            guard let self, self.row == row else { return }   // reused for another row: drop it
            self.image = try? result.get()
        }
    }
}

@Suite(.timeLimit(.minutes(5)))
struct DocExampleTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().appendingPathComponent("../../../../Tests/LanesImagesTests/Fixtures")
        .standardizedFileURL

    @Test func aReusedCellShowsOnlyItsNewRowsImage() async throws {
        let pipeline = ImagePipeline()
        let cell = PhotoCell()
        // Reused at once: row 1 (a 512 × 512 photo) is cancelled, row 2 (451 × 300) is what the cell must show.
        await cell.show(row: 1, url: Self.fixtures.appendingPathComponent("camera.png"), from: pipeline)
        await cell.show(row: 2, url: Self.fixtures.appendingPathComponent("chelsea.png"), from: pipeline)
        let deadline = ContinuousClock.now + .seconds(60)
        while await cell.image == nil, ContinuousClock.now < deadline { await Task.yield() }
        let image = try #require(await cell.image)
        #expect(image.width == 200 && image.height == 133)
        #expect(await cell.row == 2)
    }

    @Test func aPoolRunsVisibleItemsAtTheProcesssLevelAndBackgroundOnesBelow() async throws {
        let work = ThreadPoolExecutor(maxThreads: 2, idleTimeout: 30)
        let thumbnails = WorkQueue("thumbnails", maxConcurrency: 2, executor: work)
        let base = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        let visible = try await thumbnails.add(priority: .visible) { _ in
            getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        }.value
        let background = try await thumbnails.add(priority: .background) { _ in
            getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        }.value
        #expect(visible == base)
        #expect(background == min(19, base + 10))
    }

    @Test func aPoolWithABackgroundCeilingRunsVisibleItemsAtTheLowestLevel() async throws {
        let work = ThreadPoolExecutor(maxThreads: 2, idleTimeout: 30, ceiling: .background)
        let charts = WorkQueue("charts", maxConcurrency: 2, executor: work)
        let base = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        let nice = try await charts.add(priority: .visible) { _ in
            getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)   // the calling thread's nice value on Linux
        }.value
        #expect(nice == min(19, base + 10))
    }
}
