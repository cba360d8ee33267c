import Lanes
import LanesLists
import Testing

@Suite("Idle rows (work whose results outlive the screen)", .timeLimit(.minutes(5)))
struct IdleRowsTests {
    @Test("outward from the screen, the way the list last moved first, each side until it runs out")
    func order() {
        #expect(Array(IdleRows(around: 40..<60, rowCount: 100, direction: .forward).prefix(6))
            == [60, 39, 61, 38, 62, 37])
        #expect(Array(IdleRows(around: 40..<60, rowCount: 100, direction: .backward).prefix(4)) == [39, 60, 38, 61])
        #expect(Array(IdleRows(around: 2..<5, rowCount: 9, direction: .backward)) == [1, 5, 0, 6, 7, 8])
        #expect(Array(IdleRows(around: 0..<10, rowCount: 10, direction: .forward)).isEmpty)
        // Every row off screen exactly once.
        let all = Array(IdleRows(around: 30..<45, rowCount: 70, direction: .forward))
        #expect(all.count == 55 && Set(all) == Set(0..<30).union(45..<70))
    }

    @Test("only once the list has been still for the delay; a move withdraws them until it rests again")
    func onlyAtRest() {
        var tracker = PreloadTracker()
        var time: UInt64 = 1_000_000_000
        var offset = 100.0
        tracker.update(offset: offset, at: time, rowHeight: 1, viewportHeight: 20)
        // Scroll forward for a quarter second, a frame every 10 ms.
        for _ in 0..<25 {
            time += 10_000_000
            offset += 2
            tracker.update(offset: offset, at: time, rowHeight: 1, viewportHeight: 20)
        }
        let visible = 150..<170
        #expect(tracker.idleRows(around: visible, rowCount: 1000, at: time) == nil)
        // Still frames (the same offset) do not count as moves.
        tracker.update(offset: offset, at: time + 300_000_000, rowHeight: 1, viewportHeight: 20)
        #expect(tracker.idleRows(around: visible, rowCount: 1000, at: time + 499_000_000) == nil)
        let idle = tracker.idleRows(around: visible, rowCount: 1000, at: time + 500_000_000)
        #expect(idle.map { Array($0.prefix(3)) } == [170, 149, 171])
        // The user moves back a little: nothing, then rows above first once still again.
        time += 600_000_000
        tracker.update(offset: offset - 1, at: time, rowHeight: 1, viewportHeight: 20)
        #expect(tracker.idleRows(around: 149..<169, rowCount: 1000, at: time + 100_000_000) == nil)
        let back = tracker.idleRows(around: 149..<169, rowCount: 1000, at: time + 800_000_000, after: 0.8)
        #expect(back.map { Array($0.prefix(2)) } == [148, 169])
        #expect(PreloadTracker().idleRows(around: visible, rowCount: 1000, at: time) == nil)   // never fed
    }
}
