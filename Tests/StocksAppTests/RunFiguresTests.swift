import Lanes
@testable import StocksApp
import Testing

@Suite(.timeLimit(.minutes(5))) struct RunFiguresTests {
    @Test func theReportGivesTheHitchRateWithItsBandAndTheHangs() {
        var responsiveness = ResponsivenessStats(queue: "main", latencies: [.milliseconds(2)], hitches: 3)
        responsiveness.hitchTime = .milliseconds(96)
        responsiveness.activeTime = .seconds(12)
        responsiveness.hangs = 1
        let figures = RunFigures(
            mode: .lanes, responsiveness: responsiveness, rendersStarted: 0, rendersCompleted: 0, rendersCancelled: 0,
            cacheHits: 0, cached: 0, inFlight: 0, screenCancels: 0, wrongCellDeliveries: 0, frames: 0)
        #expect(figures.report.contains("hitch rate           8.0 ms/s (fair: good < 5, fair 5–10, poor > 10) over 12.0 s · hangs (>250 ms) 1"))
    }
}
