import Foundation
import StocksKit
import Testing

@Suite("Forecast and summary", .timeLimit(.minutes(5)))
struct ForecastTests {
    @Test func aPerfectLineContinuesTheLineWithAZeroWidthBand() throws {
        let line = (0..<50).map { 3 * Double($0) + 10 }
        let forecast = try HoltForecast.forecast(line, horizon: 5)
        let expected = (50..<55).map { 3 * Double($0) + 10 }
        #expect(approximatelyEqual(forecast.points.map(\.value), expected, tolerance: 1e-9))
        #expect(forecast.points.map(\.step) == [1, 2, 3, 4, 5])
        #expect(forecast.residualStandardDeviation < 1e-9)
        #expect(forecast.points.allSatisfy { $0.upper - $0.lower < 1e-8 })
    }

    @Test func theBandIsZSigmaTimesRootH() throws {
        let values: [Double] = [10, 12, 11, 14, 13, 16, 15, 18, 17, 20]
        let parameters = HoltParameters(alpha: 0.5, beta: 0.2)
        let forecast = try HoltForecast.forecast(values, horizon: 4, parameters: parameters, z: 2)
        #expect(forecast.parameters == parameters)
        // σ from the one-step residuals of the same fit.
        let fit = try ExponentialSmoothing.holt(values, alpha: 0.5, beta: 0.2)
        let residuals = (2..<values.count).map { values[$0] - fit.fitted[$0] }
        let sigma = (residuals.map { $0 * $0 }.reduce(0, +) / Double(residuals.count)).squareRoot()
        #expect(abs(forecast.residualStandardDeviation - sigma) < 1e-12)
        #expect(sigma > 0.5)
        for point in forecast.points {
            let half = 2 * sigma * Double(point.step).squareRoot()
            #expect(abs(point.upper - point.value - half) < 1e-9)
            #expect(abs(point.value - point.lower - half) < 1e-9)
        }
        #expect(approximatelyEqual(forecast.points.map(\.value), fit.forecast(steps: 4)))
    }

    @Test func parameterSearchPrefersResponsiveSettingsForATrendChange() throws {
        // Flat, then a steady climb: small α/β lag badly, so the search should not pick them.
        let values = Array(repeating: 50.0, count: 30) + (1...30).map { 50 + 2 * Double($0) }
        let best = try HoltForecast.fitParameters(values)
        #expect(HoltForecast.alphaGrid.contains(best.alpha))
        #expect(HoltForecast.betaGrid.contains(best.beta))
        let bestSSE = try sse(values, best)
        let sluggish = try sse(values, HoltParameters(alpha: 0.05, beta: 0.01))
        #expect(bestSSE < sluggish / 10)
    }

    @Test func degenerateForecasts() throws {
        #expect(try HoltForecast.forecast([], horizon: 5).points.isEmpty)
        #expect(try HoltForecast.forecast([1, 2, 3], horizon: 0).points.isEmpty)
        let single = try HoltForecast.forecast([7], horizon: 2)
        #expect(single.points.map(\.value) == [7, 7])
        #expect(single.points.map(\.upper) == [7, 7])
    }

    @Test func summaryStatistics() throws {
        let stats = try #require(SummaryStats([10, 12, .nan, 9, 11]))
        #expect(stats.count == 4)
        #expect(stats.first == 10 && stats.last == 11)
        #expect(stats.change == 1)
        #expect(stats.percentChange == 10)
        #expect(stats.minimum == 9 && stats.minimumIndex == 3)
        #expect(stats.maximum == 12 && stats.maximumIndex == 1)
        #expect(stats.mean == 10.5)
        #expect(SummaryStats([]) == nil)
        #expect(SummaryStats([.nan]) == nil)
        #expect(SummaryStats([0, 5])?.percentChange == nil)
    }

    private func sse(_ values: [Double], _ p: HoltParameters) throws -> Double {
        let fit = try ExponentialSmoothing.holt(values, alpha: p.alpha, beta: p.beta)
        return (2..<values.count).reduce(0) { $0 + pow(values[$1] - fit.fitted[$1], 2) }
    }
}
