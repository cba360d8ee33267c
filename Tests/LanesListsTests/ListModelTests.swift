import LanesLists
import Testing

/// A list of plain numbered cells that logs its events as short strings.
private final class Log {
    var events: [String] = []
    var cellOf: [Int: Int] = [:]   // row → cell id at will-display
}

@MainActor
private func makeList(rows: Int, viewport: Double, ahead: Double, behind: Double) -> (ListModel<Int>, Log) {
    var next = 0
    let list = ListModel(rowCount: rows, rowHeight: 10, viewportHeight: viewport, preload: .fixed(ahead: ahead, behind: behind)) {
        next += 1
        return next
    }
    let log = Log()
    list.observe { event in
        log.events.append(event.description)
        if case .willDisplay(let row, let cell) = event { log.cellOf[row] = cell }
    }
    return (list, log)
}

@MainActor
@Suite("ListModel", .timeLimit(.minutes(5)))
struct ListModelTests {
    @Test("visible rows are those intersecting the viewport")
    func visibleRows() {
        let (list, _) = makeList(rows: 100, viewport: 200, ahead: 0, behind: 0)
        list.layoutIfNeeded()
        #expect(list.visibleRows == 0..<20)
        list.scroll(to: 5)
        #expect(list.visibleRows == 0..<21)
        list.scroll(to: 10_000)
        #expect(list.scrollOffset == 800)
        #expect(list.visibleRows == 80..<100)
        list.scroll(to: -3)
        #expect(list.scrollOffset == 0)
    }

    @Test("the preload range follows the scroll direction: more ahead than behind")
    func preloadFollowsDirection() {
        let (list, _) = makeList(rows: 100, viewport: 100, ahead: 1, behind: 0.5)
        list.scroll(to: 200)
        #expect(list.direction == .forward)
        #expect(list.visibleRows == 20..<30)
        #expect(list.preloadRows == Array(15..<20) + Array(30..<40))
        list.scroll(to: 190)
        #expect(list.direction == .backward)
        #expect(list.visibleRows == 19..<29)
        #expect(list.preloadRows == Array(9..<19) + Array(29..<34))
        list.scroll(to: 190)                        // no movement: direction unchanged
        #expect(list.direction == .backward)
        list.scroll(to: 960)                        // clamped to 900: the last screen
        #expect(list.visibleRows == 90..<100)
        #expect(list.preloadRows == Array(85..<90)) // nothing past the end
    }

    @Test("a scripted scroll produces the events a reader expects, in order")
    func eventSequence() {
        let (list, log) = makeList(rows: 100, viewport: 40, ahead: 1, behind: 0.5)
        list.layoutIfNeeded()
        #expect(log.events == ["display 0", "display 1", "display 2", "display 3",
                               "preload 4", "preload 5", "preload 6", "preload 7"])
        log.events = []
        list.scroll(by: 10)                         // one row forward
        #expect(log.events == ["preload 0", "end 0", "display 4", "unload 4", "preload 8"])
        #expect(log.cellOf[4] == log.cellOf[0])     // row 0's cell shows row 4 now
        log.events = []
        list.scroll(by: 10)
        #expect(log.events == ["preload 1", "end 1", "display 5", "unload 5", "preload 9"])
        log.events = []
        list.scroll(by: -10)                        // reversal: rows come in descending order
        #expect(log.events == ["preload 5", "end 5", "display 1", "unload 9", "unload 8", "unload 7", "unload 1"])
        log.events = []
        list.scroll(to: list.maxScrollOffset)       // jump to the end
        #expect(log.events == ["end 1", "end 2", "end 3", "end 4",
                               "display 96", "display 97", "display 98", "display 99",
                               "unload 0", "unload 5", "unload 6", "preload 94", "preload 95"])
        #expect(list.cellsCreated == 4)             // every cell came from the pool
        #expect(list.reusableCellCount == 0)
    }

    @Test("cells are reused: a row's cell goes back to the pool and shows the next row")
    func reusePool() {
        let (list, log) = makeList(rows: 100, viewport: 10, ahead: 0, behind: 0)
        list.scroll(to: 30)
        list.scroll(to: 400)
        #expect(log.events == ["display 3", "end 3", "display 40"])
        #expect(log.cellOf[40] == log.cellOf[3])
        #expect(list.cell(forRow: 40) == log.cellOf[3])
        #expect(list.cell(forRow: 3) == nil)
        #expect(list.cellsCreated == 1)
    }

    @Test("row count, viewport and preload changes report what changed; reload redisplays")
    func changes() {
        let (list, log) = makeList(rows: 10, viewport: 40, ahead: 0.5, behind: 0)
        list.layoutIfNeeded()
        log.events = []
        list.setRowCount(3)
        #expect(log.events == ["end 3", "unload 4", "unload 5"])
        log.events = []
        list.setViewportHeight(20)
        #expect(log.events == ["preload 2", "end 2"])
        log.events = []
        list.setPreload(.off)
        #expect(log.events == ["unload 2"])
        log.events = []
        list.setPreload(.fixed(ahead: 1, behind: 0))
        list.reloadData(rowCount: 5)
        #expect(log.events == ["preload 2", "end 0", "end 1", "unload 2", "display 0", "display 1", "preload 2", "preload 3"])
    }

    @Test("a fixed preload of negative, infinite or NaN screens is clamped: nothing, or up to the ends of the list")
    func fixedPreloadClamps() {
        let (list, _) = makeList(rows: 100, viewport: 100, ahead: .infinity, behind: -1)
        list.scroll(to: 200)
        #expect(list.preloadRows == Array(30..<100))
        list.setPreload(.fixed(ahead: .nan, behind: 0.5))
        #expect(list.preloadRows == Array(15..<20))
        list.setPreload(.off)
        #expect(list.preloadRows.isEmpty)
        #expect(list.preload == .fixed(ahead: 0, behind: 0))
    }

    @Test("changes made by an observer wait until the current events are delivered")
    func reentrantScroll() {
        let (list, log) = makeList(rows: 100, viewport: 10, ahead: 0, behind: 0)
        list.observe { event in
            if case .willDisplay(0, _) = event { list.scroll(to: 10) }
        }
        list.layoutIfNeeded()
        #expect(log.events == ["display 0", "end 0", "display 1"])
    }
}
