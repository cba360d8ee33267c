import Lanes
import LanesLists
import LanesTesting
import Testing

/// The plan made at a lift-off over the predicted path: the rows each frame of the fling will show, in deadline
/// order, as many as the threads can have ready in time (on every thread when prefetch's share cannot keep up); rows
/// it cannot make load at utility; a touch drops the plan and its queued work; with a quick tier, quick renderings
/// only for the rows whose full content cannot be ready in time. A 20-row screen, renders of 3 ms, and a fling from
/// row 0 at 1,800 rows a second slowing with τ = 0.3 s: frame 1 shows rows 29..<50 (rows 20..<29 pass between frames),
/// frame 2 rows 56..<77.
@MainActor
@Suite("The lift-off plan over the predicted path", .timeLimit(.minutes(5)))
struct LiftOffScheduleTests {
    static let fling = ScrollPrediction(velocity: 1_800, timeConstant: 0.3)

    /// A list of `String` keys on a width-2 queue that prefetch may use one thread of, driven by hand.
    @MainActor final class Setup {
        let executor = ManualExecutor(), main = ManualExecutor()
        let queue: WorkQueue
        let loader: ContentLoader<String, String>
        let quick: ContentLoader<String, String>?
        let clock = VirtualClock(start: 1_000_000_000)
        let list: ListModel<Row>

        final class Row { var content: ContentBinding<String, String>? }

        init(quickTier: Bool = false) {
            queue = WorkQueue("rows", maxConcurrency: 2, executor: executor)
            queue.setSpeculativeLimit(1, below: .normal)
            let delivery = WorkQueue("test-main", maxConcurrency: 1, executor: main)
            loader = ContentLoader(queue: queue, deliveryQueue: delivery, cache: CostLimitedCache(costLimit: 1_000)) {
                key, _ in "full:" + key
            }
            quick = quickTier
                ? ContentLoader(queue: queue, deliveryQueue: delivery, cache: CostLimitedCache(costLimit: 1_000)) {
                    key, _ in "quick:" + key
                } : nil
            list = ListModel(rowCount: 10_000, rowHeight: 1, viewportHeight: 20, clock: clock) { Row() }
            list.connect(to: loader, quick: quick, key: { "\($0)" }) { [loader, quick] row in
                if row.content == nil { row.content = loader.binding(quick: quick, placeholder: { _ in }) { _, _ in } }
                return row.content!
            }
            list.layoutIfNeeded()   // the first screen's work stays queued: run, it would time these bodies at ~0 s
            loader.costs.record(seconds: 0.003)
            quick?.costs.record(seconds: 0.0004)
        }
    }

    @Test("at lift-off the rows of the fling's first frames are planned at once, on every thread; rows no frame shows are not")
    func plansTheNearRows() {
        let s = Setup()
        s.list.liftOff(Self.fling)
        let planned = Set(s.list.preloadRows)
        // Frame 1's rows, due before frame 2 (33 ms): two threads have about ten of them ready, the nearest first.
        #expect((29..<39).allSatisfy(planned.contains))
        // The rows between the screen and frame 1 pass unseen: no work for them.
        #expect((20..<29).allSatisfy { !planned.contains($0) })
        // Prefetch's one thread cannot keep up, so the plan takes both, at normal priority.
        #expect(s.list.preloadPriority == .normal)
        #expect(s.loader.inFlightPriority(of: "29") == .normal)
        // The plan runs past the fling's first quarter second (the old plan skipped to a run of rows far ahead and left
        // these to chance).
        #expect(planned.contains(where: { $0 > 300 }))
    }

    @Test("a row the plan cannot have ready in time loads at utility when it shows; a planned row at visible")
    func skippedRowsAtUtility() {
        let s = Setup()
        s.list.liftOff(Self.fling)
        let planned = Set(s.list.preloadRows)
        // Frame 1 shows 21 rows until frame 2: one more than two threads can render in 33 ms.
        let missed = (29..<50).filter { !planned.contains($0) }
        #expect(missed == [49])
        #expect(!missed.isEmpty)
        s.clock.advance(by: .nanoseconds(16_666_667))
        s.list.scroll(to: Self.fling.travel(after: 1.0 / 60))
        for row in missed { #expect(s.list.loadPriority(forRow: row) == .utility) }
        #expect(s.list.loadPriority(forRow: 29) == .visible)
        #expect(s.loader.inFlightPriority(of: "29") == .visible)
        if let row = missed.first { #expect(s.loader.inFlightPriority(of: "\(row)") == .utility) }
    }

    @Test("a touch drops the plan: the work queued for rows the finger will not reach is cancelled")
    func touchDownCancels() throws {
        let s = Setup()
        s.list.liftOff(Self.fling)
        let far = try #require(s.list.preloadRows.first { $0 > 300 })
        let near = try #require(s.list.preloadRows.first { $0 >= 56 })
        #expect(s.loader.inFlightPriority(of: "\(far)") == .normal)
        s.clock.advance(by: .nanoseconds(16_666_667))
        s.list.scroll(to: Self.fling.travel(after: 1.0 / 60))
        s.list.touchDown()
        s.list.scroll(to: Self.fling.travel(after: 1.0 / 60))
        #expect(s.list.preloadRows.isEmpty)
        #expect(s.loader.inFlightPriority(of: "\(far)") == nil)
        #expect(s.loader.inFlightPriority(of: "\(near)") == nil)
        // The rows on screen keep theirs.
        #expect(s.loader.inFlightPriority(of: "40") != nil)
    }

    @Test("with a quick tier: quick renderings ahead only for rows whose full content cannot be ready in time")
    func quickOnlyWhereFullCannot() throws {
        let s = Setup(quickTier: true)
        let quick = try #require(s.quick)
        s.list.liftOff(Self.fling)
        let planned = s.list.preloadRows
        let quickRows = planned.filter { quick.inFlightPriority(of: "\($0)") != nil }
        let fullRows = planned.filter { s.loader.inFlightPriority(of: "\($0)") != nil }
        // Every row frames 1 and 2 show gets something ahead (two threads have the quick renderings of all of them
        // ready, where they had full ones for only 20 of frame 1's 21 and about a dozen of frame 2's).
        #expect((29..<50).allSatisfy(planned.contains) && (56..<77).allSatisfy(planned.contains))
        #expect(!quickRows.isEmpty && !fullRows.isEmpty)
        #expect(Set(quickRows).isDisjoint(with: fullRows))
        // A row planned for its full content does not ask for a quick one when it shows; a quick-planned row does.
        if let full = fullRows.first { #expect(!s.list.wantsQuick(forRow: full)) }
        if let row = quickRows.first { #expect(s.list.wantsQuick(forRow: row)) }
        // At rest, far on, the fling's last rows get their full content (nothing is due before it stops).
        #expect(fullRows.contains(where: { $0 > 500 }))
    }
}
