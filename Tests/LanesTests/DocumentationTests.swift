import Lanes
import LanesTesting
import Testing

// The README's and the getting-started article's examples, compiled and run, so the docs cannot rot.

private struct Series: Sendable { var points: [Double] }
private struct Chart: Sendable { var rows: Int }

private func smooth(_ prices: [Double], isCancelled: () -> Bool) throws -> Series {
    var out: [Double] = []
    for (index, price) in prices.enumerated() {
        if index % 64 == 0, isCancelled() { throw CancellationError() }
        out.append(price * 0.5)
    }
    return Series(points: out)
}

private func fetch(_ url: String, _ ctx: WorkContext) throws -> [UInt8] {
    try ctx.checkCancellation()
    return Array(url.utf8)
}

private func tiltShift(_ data: [UInt8], _ ctx: WorkContext) throws -> [UInt8] {
    try ctx.checkCancellation()
    return data.reversed()
}

private func draw(row: Int, _ ctx: WorkContext) throws -> Chart {
    try ctx.checkCancellation()
    return Chart(rows: row)
}

@Suite("Documentation examples", .timeLimit(.minutes(5)))
struct DocumentationTests {
    @Test("README: process off main, deliver to main, cancel")
    func readmeTaste() async throws {
        let prices = [1.0, 2.0, 3.0]
        let shown = Recorder<Int>()
        // --- README
        let processing = WorkQueue("processing", maxConcurrency: 2)
        let smoothed = processing.add(label: "smooth AAPL") { ctx in
            try smooth(prices, isCancelled: { ctx.isCancelled })
        }
        smoothed.onCompletion(on: .main) { result in
            if case .success(let series) = result { shown.append(series.points.count) }
        }
        // ---
        _ = try await smoothed.value
        await WorkQueue.main.idle()
        await processing.idle()
        #expect(shown.elements == [3])
        processing.cancelAll()
    }

    @Test("Getting started: cancel, typed edges, priorities, reused cells, await")
    func gettingStarted() async throws {
        let network = WorkQueue("network")
        let filters = WorkQueue("filters")
        let charts = WorkQueue("charts")
        let height = 10
        // Step 2: long loops check for cancellation.
        let filter = WorkQueue("processing").add(label: "filter") { ctx in
            for _ in 0..<height { try ctx.checkCancellation() }
        }
        try await filter.value
        // Step 3: a typed edge.
        let download = network.add(label: "download") { ctx in try fetch("abc", ctx) }
        let tilted = filters.add(consuming: download, label: "tilt-shift") { data, ctx in try tiltShift(data, ctx) }
        #expect(try await tilted.value == Array("cba".utf8))
        // Step 3: one handle per chain (PhotoCell, below, is the article's). Manual queues: nothing runs until said.
        let manual = ManualExecutor()
        let slowNetwork = WorkQueue("network-manual", executor: manual)
        let slowFilters = WorkQueue("filters-manual", executor: manual)
        let photoCell = PhotoCell()
        await MainActor.run { photoCell.show("row 3", network: slowNetwork, filters: slowFilters) }
        #expect(slowNetwork.counts.unfinished == 1)
        await MainActor.run { photoCell.show("row 40", network: slowNetwork, filters: slowFilters) }
        #expect(slowNetwork.counts.unfinished == 1)   // row 3's download stopped with its filter
        #expect(slowFilters.counts.unfinished == 1)
        manual.runAll()
        await WorkQueue.main.idle()
        #expect(await photoCell.image == Array("04 wor".utf8))
        // Step 3: a kept producer runs on after its consumer is cancelled.
        let fetchAndCache = fetch
        let url = "kept"
        // --- Step 3, keep
        let kept = slowNetwork.add(label: "download") { ctx in try fetchAndCache(url, ctx) }.keep()
        // ---
        slowFilters.add(consuming: kept, label: "tilt-shift") { data, ctx in try tiltShift(data, ctx) }.cancel()
        #expect(kept.state == .pending)
        manual.runAll()
        #expect(kept.state == .succeeded)
        // Step 4: priority follows the screen.
        let render = charts.add(label: "row 12", priority: .prefetch) { ctx in try draw(row: 12, ctx) }
        render.priority = .visible
        #expect(try await render.value.rows == 12)
        // Step 5: never deliver into a reused cell (ChartCell, below, is the article's).
        let cell = ChartCell()
        await MainActor.run {
            cell.bind(row: 3, charts: charts)
            cell.bind(row: 40, charts: charts)   // reused for row 40 before row 3's render was delivered
        }
        await charts.idle()
        await WorkQueue.main.idle()
        #expect(await cell.row == 40)
        #expect(await cell.chart?.rows == 40)
        // Step 6: await from Swift concurrency; cancellation looks like Swift's.
        var shown: [Int] = []
        let show = { (chart: Chart) in shown.append(chart.rows) }
        // --- Step 6
        do {
            let chart = try await charts.add { ctx in try draw(row: 3, ctx) }.value
            show(chart)
        } catch is CancellationError {
            // the item, or the task awaiting it, was cancelled
        }
        // ---
        #expect(shown == [3])
        let hold = Gate()   // the item cannot finish before the task is cancelled
        let cancelled = Task {
            do {
                _ = try await charts.add { ctx in hold.wait(); return try draw(row: 4, ctx) }.value
            } catch is CancellationError {
                return true
            }
            return false
        }
        cancelled.cancel()
        #expect(try await cancelled.value)
        hold.open()
    }
}

// --- Getting started, step 3: the photo cell, one handle per chain (the article's, made file-private here).
@MainActor private final class PhotoCell {
    private(set) var image: [UInt8]?
    private var photo: WorkItem<[UInt8]>?     // the tilt-shift, which owns its download

    func show(_ url: String, network: WorkQueue, filters: WorkQueue) {
        photo?.cancel()                         // reused: the old row's filter and download stop
        image = nil
        let download = network.add(label: "download") { ctx in try fetch(url, ctx) }
        let tilted = filters.add(consuming: download, label: "tilt-shift") { data, ctx in try tiltShift(data, ctx) }
        photo = tilted
        tilted.onMainCompletion { result in
            guard self.photo == tilted else { return }   // the cell shows another photo now
            self.image = try? result.get()
        }
    }
}
// ---

// --- Getting started, step 5: a @MainActor cell, no assumeIsolated (the article's, made file-private here).
@MainActor private final class ChartCell {
    private(set) var row: Int?
    private(set) var chart: Chart?
    private var render: WorkItem<Chart>?

    func bind(row: Int, charts: WorkQueue) {
        render?.cancel()                          // reused: the old row's render is waste
        self.row = row
        chart = nil
        let render = charts.add(label: "row \(row)") { ctx in try draw(row: row, ctx) }
        self.render = render
        render.onMainCompletion { result in
            guard self.row == row else { return }   // the cell shows another row now
            self.chart = try? result.get()
        }
    }
}
// ---
