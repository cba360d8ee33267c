import Lanes
import LanesTesting
import Testing

// The README's and the getting-started article's examples, compiled and run, so the docs cannot rot.

private struct Series: Sendable { var points: [Double] }
private struct Chart: Sendable { var rows: Int }

private func smooth(_ prices: [Double], isCancelled: () -> Bool) throws -> Series {
    var out: [Double] = []
    for (index, price) in prices.enumerated() {
        if index % 64 == 0, isCancelled() { throw LanesError.cancelled("smooth") }
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
        // Step 4: priority follows the screen.
        let render = charts.add(label: "row 12", priority: .prefetch) { ctx in try draw(row: 12, ctx) }
        render.priority = .visible
        #expect(try await render.value.rows == 12)
        // Step 5: never deliver into a reused cell.
        final class Cell: Sendable {
            let row = LockedRow()
        }
        let cell = Cell()
        cell.row.set(40)   // reused for row 40 before row 3's render finished
        let row = 3
        let delivered = Recorder<Int>()
        let stale = charts.add { ctx in try draw(row: row, ctx) }
        let done = Gate()
        stale.onCompletion(on: .main) { result in
            defer { done.open() }
            guard cell.row.get() == row else { return }   // the cell shows another row now
            if let chart = try? result.get() { delivered.append(chart.rows) }
        }
        await done.wait()
        #expect(delivered.elements.isEmpty)
        // Step 6: await from Swift concurrency.
        let chart = try await charts.add { ctx in try draw(row: 3, ctx) }.value
        #expect(chart.rows == 3)
    }
}

final class LockedRow: Sendable {
    private let value = Recorder<Int>()
    func set(_ row: Int) { value.append(row) }
    func get() -> Int? { value.elements.last }
}
