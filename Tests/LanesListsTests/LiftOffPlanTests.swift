import Lanes
import LanesLists
import LanesTesting
import Testing

/// The toolkit's prediction at lift-off: the preload plans over the fling's whole path the moment the finger lifts
/// (the offsets' estimate needs frames of motion first), follows it, and drops it at a touch.
@MainActor
@Suite("Preload planned from the fling's lift-off", .timeLimit(.minutes(5)))
struct LiftOffPlanTests {
    @Test("at lift-off the list preloads along the predicted path at once; the estimate alone has nothing yet")
    func plansAtLiftOff() {
        let clock = VirtualClock(start: 1_000_000_000)
        let told = ListModel(rowCount: 10_000, rowHeight: 1, viewportHeight: 20, clock: clock) { 0 }
        let untold = ListModel(rowCount: 10_000, rowHeight: 1, viewportHeight: 20, clock: clock) { 0 }
        let costs = CostEstimate()
        costs.record(seconds: 0.003)
        for list in [told, untold] {
            list.planPreload(costs: costs, threads: 2)
            list.layoutIfNeeded()
        }
        told.liftOff(ScrollPrediction(velocity: 1_500, timeConstant: 0.3))
        #expect(!told.preloadRows.isEmpty)
        #expect(told.preloadRows.allSatisfy { $0 >= 20 })          // ahead, in the direction of the fling
        #expect(told.direction == .forward)
        #expect(untold.preloadRows.isEmpty)

        // A frame later, both have moved by the fling's first frame: the told list plans from the prediction.
        clock.advance(by: .milliseconds(16))
        let step = ScrollPrediction(velocity: 1_500, timeConstant: 0.3).travel(after: 0.016)
        told.scroll(to: step)
        untold.scroll(to: step)
        #expect(told.preloadRows.count > untold.preloadRows.count)
    }

    @Test("a touch drops the prediction: nothing speculative until the list moves steadily again")
    func touchDownDrops() {
        let clock = VirtualClock(start: 1_000_000_000)
        let list = ListModel(rowCount: 10_000, rowHeight: 1, viewportHeight: 20, clock: clock) { 0 }
        list.layoutIfNeeded()
        list.scroll(to: 2_000)
        list.liftOff(.gtk(velocity: -800))
        #expect(list.direction == .backward)
        #expect(!list.preloadRows.isEmpty && list.preloadRows.allSatisfy { $0 < 2_000 })
        clock.advance(by: .milliseconds(16))
        list.touchDown()
        list.scroll(to: 1_990)
        #expect(list.preloadRows.isEmpty)
    }

    @Test("the prediction ends at rest: under a row a second, the offsets' estimate takes over")
    func endsAtRest() {
        var tracker = PreloadTracker()
        let start: UInt64 = 1_000_000_000
        _ = tracker.update(offset: 0, at: start, rowHeight: 1, viewportHeight: 20)
        tracker.liftOff(ScrollPrediction(velocity: 600, timeConstant: 0.2), offset: 0, at: start)
        let moving = tracker.update(offset: 1, at: start + 16_000_000, rowHeight: 1, viewportHeight: 20)
        #expect(moving.ahead > 0)
        #expect(tracker.speed > 0)
        // Two seconds on, the prediction is at 600 × e^-10 rows/s: at rest.
        let rest = tracker.update(offset: 120, at: start + 2_000_000_000, rowHeight: 1, viewportHeight: 20)
        #expect(rest.ahead == 0)
        #expect(tracker.speed == 0)
    }

    @Test("a quick rendering is wanted while rows come faster than the threads render them, not at rest")
    func wantsQuickWhenOutpaced() {
        var tracker = PreloadTracker()
        let costs = CostEstimate()
        costs.record(seconds: 0.003)   // two threads render about 666 rows a second
        tracker.planPreload(costs: costs, threads: 2)
        let start: UInt64 = 1_000_000_000
        _ = tracker.update(offset: 0, at: start, rowHeight: 1, viewportHeight: 20)
        #expect(!tracker.wantsQuick(forRow: 5))
        tracker.liftOff(ScrollPrediction(velocity: 2_000, timeConstant: 0.3), offset: 0, at: start)
        _ = tracker.update(offset: 30, at: start + 16_000_000, rowHeight: 1, viewportHeight: 20)
        #expect(tracker.wantsQuick(forRow: 45))
        // 1.5 s on the fling runs at 2,000 × e^-5 ≈ 13 rows a second: the threads keep up.
        _ = tracker.update(offset: 590, at: start + 1_500_000_000, rowHeight: 1, viewportHeight: 20)
        #expect(!tracker.wantsQuick(forRow: 600))
    }

    @Test("the toolkits' shapes: GTK rests v/4 away, UIKit's normal rate about v/2, Android's distance is kept")
    func shapes() {
        #expect(abs(ScrollPrediction.gtk(velocity: 800).travel(after: 100) - 200) < 1e-6)
        #expect(abs(ScrollPrediction.uiKit(velocity: 1_000).travel(after: 100) - 499.5) < 0.1)
        #expect(abs(ScrollPrediction(distance: 900, duration: 1.2).travel(after: 100) - 900) < 1e-6)
        #expect(ScrollPrediction(velocity: .nan, timeConstant: 0.3).velocity == 0)
    }
}
