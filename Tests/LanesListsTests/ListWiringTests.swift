import Lanes
import LanesLists
import LanesTesting
import Testing

/// A list wired to a loader with `connect`: the seeds' behaviour with no app code beyond the binding.
@MainActor
@Suite("ListModel wired to a ContentLoader", .timeLimit(.minutes(5)))
struct ListWiringTests {
    private func makeList(_ h: LoaderHarness, rows: Int = 1_000, viewport: Double, ahead: Double = 1, behind: Double = 0)
        -> ListModel<TestCell>
    {
        var next = 0
        let loader = h.loader
        let list = ListModel(rowCount: rows, rowHeight: 1, viewportHeight: viewport, preload: .fixed(ahead: ahead, behind: behind)) {
            next += 1
            return TestCell(id: next, loader: loader)
        }
        list.connect(to: h.loader, key: { "row \($0)" }, binding: { $0.content })
        return list
    }

    @Test("visible rows load first at visible priority, the next screen is prefetched, and every cell fills")
    func fillsVisibleThenPrefetches() {
        let h = LoaderHarness()
        let list = makeList(h, viewport: 3)
        list.layoutIfNeeded()
        #expect(h.loader.inFlightPriority(of: "row 0") == .visible)
        #expect(h.loader.inFlightPriority(of: "row 4") == .prefetch)
        for _ in 0..<3 { h.workExecutor.runNext() }
        #expect(h.ran.elements == ["row 0", "row 1", "row 2"])
        h.settle()
        for row in 0..<3 { #expect(list.cell(forRow: row)!.shown == ["v:row \(row)"]) }
        #expect(h.loader.cache.contains("row 5"))
        list.scroll(by: 3)                           // the prefetched rows appear from the cache, at once
        for row in 3..<6 { #expect(list.cell(forRow: row)!.shown.last == "v:row \(row)") }
        #expect(list.cellsCreated == 3)
    }

    @Test("rows that scroll away are cancelled; a row just off screen keeps loading at prefetch priority")
    func cancelAndDemote() {
        let h = LoaderHarness()
        let list = makeList(h, viewport: 2, ahead: 0, behind: 1)
        list.layoutIfNeeded()
        list.scroll(by: 1)                           // row 0 leaves the screen into the preload range behind
        #expect(h.loader.inFlightPriority(of: "row 0") == .prefetch)
        #expect(h.loader.inFlightPriority(of: "row 2") == .visible)
        list.scroll(to: 500)                         // everything near the top is gone
        #expect(h.loader.inFlightPriority(of: "row 0") == nil)
        #expect(h.loader.inFlightPriority(of: "row 1") == nil)
        h.settle()
        #expect(h.ran.elements == ["row 500", "row 501", "row 498", "row 499"])
        #expect(h.loader.stats.cancelled == 3)
    }

    @Test("row 3's cell is reused for row 40 before row 3's render finishes; row 3's result never shows in it")
    func reusedCellNeverShowsOldRow() async {
        let h = LoaderHarness()
        let gate = h.gate("row 3")
        let list = makeList(h, viewport: 1, ahead: 0)
        list.scroll(to: 3)
        let cell = list.cell(forRow: 3)!
        let done = h.workExecutor.runNextOnDedicatedThread()
        await gate.started.wait()
        list.scroll(to: 40)
        #expect(list.cell(forRow: 40) === cell)
        gate.release.open()
        await done.wait()
        h.settle()
        #expect(cell.shown == ["v:row 40"])
        #expect(h.loader.stats.wrongCellDeliveries == 0)
        #expect(h.stopped.elements == ["row 3"])
    }

    @Test("the screen goes away: invalidate delivers nothing more")
    func screenGoesAway() {
        let h = LoaderHarness()
        let list = makeList(h, viewport: 4)
        list.layoutIfNeeded()
        h.workExecutor.runNext()
        h.loader.invalidate()
        h.settle()
        #expect(h.ran.elements == ["row 0"])
        for row in 0..<4 { #expect(list.cell(forRow: row)!.shown.isEmpty) }
    }

    @Test("the loader's queue cancelled while the list stays: every visible cell returns to its placeholder, counted, and loads when shown again")
    func queueCancelledBehindTheLoader() async throws {
        let h = LoaderHarness()
        let list = makeList(h, viewport: 3, ahead: 0)
        list.layoutIfNeeded()
        #expect(h.loader.inFlightCount == 3)
        h.work.cancelAll()                           // "leaving the screen → cancelAll()", but the list stayed
        try await h.waitForDeliveries(3)   // the three cancellations, on their way to the cells
        h.settle()
        #expect(h.ran.elements.isEmpty)
        #expect(h.loader.inFlightCount == 0)         // nothing left waiting for work that no longer runs
        #expect(h.loader.stats.cancelled == 3)
        for row in 0..<3 {
            let cell = list.cell(forRow: row)!
            #expect(cell.shown.isEmpty && cell.placeholders == ["row \(row)", "row \(row)"])
            #expect(!cell.content.isLoaded)
        }
        list.scroll(by: 3)                           // away and back: the rows load again
        list.scroll(by: -3)
        h.settle()
        for row in 0..<3 { #expect(list.cell(forRow: row)!.shown == ["v:row \(row)"]) }
    }
}
