import Dispatch
import Lanes
import LanesTesting
import StocksKit
import Testing
@testable import StocksApp

@Suite(.serialized, .timeLimit(.minutes(5)), .heavy) struct ScriptedRunTests {
    /// Plays `script` against a fresh app on the main queue and returns its figures.
    @MainActor
    private func play(_ script: KeyScript, mode: AppMode, universe: StockUniverse) async -> (RunFigures, Frame?) {
        await withCheckedContinuation { continuation in
            DispatchQueue.main.async {
                let app = StocksController(universe: universe, mode: mode, width: 100, height: 30) { _ in }
                let runner = ScriptRunner(app: app, script: script) { figures in
                    continuation.resume(returning: (figures, app.lastFrame))
                }
                runner.start()
            }
        }
    }

    @Test("after stop() nothing is drawn: the terminal may already be restored") @MainActor
    func noFrameAfterStop() throws {
        let frames = Recorder<Int>()
        let series = try SyntheticStocks.generate(count: 20, days: 30, seed: 3)
        let app = StocksController(universe: StockUniverse(series), mode: .lanes, width: 100, height: 30) { _ in
            frames.append(1)
        }
        app.draw()
        #expect(frames.elements.count == 1)
        app.stop()
        app.draw()
        app.scheduleRedraw()
        app.handle(.down)
        #expect(frames.elements.count == 1)
    }

    @Test func scriptParsing() throws {
        let script = try KeyScript(parsing: "wait 5 # pause\n\npagedown x3 @10\nidle\nresize 80x24\nq")
        #expect(script.steps == [
            .wait(milliseconds: 5), .key(.pageDown), .wait(milliseconds: 10), .key(.pageDown),
            .wait(milliseconds: 10), .key(.pageDown), .idle, .resize(width: 80, height: 24), .key(.character("q")),
        ])
        #expect(throws: KeyScript.ParseError.self) { try KeyScript(parsing: "enter\nfly 3") }
        #expect(!KeyScript.demo.steps.isEmpty)
    }

    @Test @MainActor func lanesModeStaysResponsiveAndNeverFillsTheWrongRow() async throws {
        let series = try SyntheticStocks.generate(count: 1500, days: 160, seed: 7)
        let universe = StockUniverse(series)
        let script = try KeyScript(parsing: """
            enter
            idle
            pagedown x8 @10
            idle
            pageup x2 @10
            idle
            enter
            idle
            esc
            esc
            q
            """)
        let (naive, _) = await play(script, mode: .naive, universe: universe)
        let (lanes, frame) = await play(script, mode: .lanes, universe: universe)
        #expect(lanes.responsiveness.p99 < naive.responsiveness.p99)
        #expect(naive.responsiveness.max > .milliseconds(16))  // the 'before' does stall
        #expect(lanes.wrongCellDeliveries == 0)
        #expect(lanes.rendersStarted > 0)
        #expect(lanes.rendersCancelled > 0)  // rows flung past were withdrawn
        #expect(naive.rendersStarted == 0)  // naive draws rows on the main queue, not through the loader
        #expect(frame?.line(0).contains("stocks") == true)
    }

    @Test @MainActor func leavingAScreenCancelsItsWork() async throws {
        let series = try SyntheticStocks.generate(count: 3000, days: 400, seed: 3)
        let universe = StockUniverse(series)
        // Open and immediately leave the biggest category, then a stock's detail.
        let script = try KeyScript(parsing: "enter\nesc\nenter\nidle\nenter\nesc\nwait 20\nq")
        let (figures, _) = await play(script, mode: .lanes, universe: universe)
        #expect(figures.screenCancels >= 1)
    }
}
