import Foundation
import StocksKit
import Testing

@Suite("Cancellation", .timeLimit(.minutes(5)))
struct CancellationTests {
    private let long = noisySeries(count: 20_000)

    @Test func smoothersThrowWhenCancelled() {
        #expect(throws: CancellationError.self) { try Loess.smooth(long, span: 0.3, isCancelled: { true }) }
        #expect(throws: CancellationError.self) {
            try SavitzkyGolay.smooth(long, window: 51, order: 3, isCancelled: { true })
        }
        #expect(throws: CancellationError.self) { try ExponentialSmoothing.simple(long, alpha: 0.2, isCancelled: { true }) }
        #expect(throws: CancellationError.self) {
            try ExponentialSmoothing.holt(long, alpha: 0.2, beta: 0.1, isCancelled: { true })
        }
        #expect(throws: CancellationError.self) { try HoltForecast.forecast(long, horizon: 5, isCancelled: { true }) }
    }

    @Test func aLongLoessStopsSoonAfterCancellationIsRequested() {
        // Cancel on the 5th poll: the smoother must notice within a few hundred points,
        // far before finishing 20,000 points × 2 robustness passes.
        var polls = 0
        #expect(throws: CancellationError.self) {
            try Loess.smooth(long, span: 0.05, robustnessIterations: 2, isCancelled: {
                polls += 1
                return polls >= 5
            })
        }
        #expect(polls == 5)
    }

    @Test func pollingDoesNotChangeResults() throws {
        var polls = 0
        let polled = try Loess.smooth(Array(long.prefix(2_000)), span: 0.05, isCancelled: {
            polls += 1
            return false
        })
        #expect(polled == (try Loess.smooth(Array(long.prefix(2_000)), span: 0.05)))
        #expect(polls >= 2_000 / 256)  // polled every few hundred points
    }

    @Test func analysisParsingAndGenerationThrowWhenCancelled() throws {
        let series = PriceSeries(symbol: "L", dates: SyntheticDates.weekdays(2_000),
                                 prices: Array(long.prefix(2_000)))
        #expect(throws: CancellationError.self) { try Analysis.run(series, isCancelled: { true }) }
        #expect(throws: CancellationError.self) {
            try SyntheticStocks.generate(count: 100, days: 100, seed: 1, isCancelled: { true })
        }
        let csv = "date,X\n" + (0..<1_000).map { "2018-01-01,\($0)" }.joined(separator: "\n")
        #expect(throws: CancellationError.self) { try StockCSV.parse(csv, fileName: "c.csv", isCancelled: { true }) }
        #expect(throws: CancellationError.self) { try BundledStocks.load(isCancelled: { true }) }
    }
}
