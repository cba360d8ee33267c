import Foundation
import StocksKit
import Testing

@Suite("Chart renderer", .timeLimit(.minutes(5)))
struct ChartRendererTests {
    private func assertShape(_ chart: Chart, width: Int, height: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(chart.rows.count == height, sourceLocation: sourceLocation)
        for row in chart.rows {
            #expect(row.characters.count == width, sourceLocation: sourceLocation)
            #expect(row.layers.count == width, sourceLocation: sourceLocation)
            #expect(row.runs.map(\.text).joined() == row.text, sourceLocation: sourceLocation)
        }
    }

    @Test func anIncreasingLineGoesFromBottomLeftToTopRight() {
        let chart = ChartRenderer(width: 30, height: 8, showsAxes: false).render(prices: (0...100).map(Double.init))
        assertShape(chart, width: 30, height: 8)
        #expect(chart.plotColumn == 0)
        #expect(chart.rows[7].layers[0] == .raw)
        #expect(chart.rows[0].layers[29] == .raw)
        #expect(chart.rows[0].layers[0] == .empty)
        #expect(chart.rows[7].layers[29] == .empty)
    }

    @Test func axesShowNiceLabelsAndDates() {
        let dates = (0..<101).map { StockDates.date(dayNumber: 17_532 + 7 * $0) }  // weekly from 2018-01-01
        let chart = ChartRenderer(width: 40, height: 10).render(prices: (0...100).map(Double.init), dates: dates)
        assertShape(chart, width: 40, height: 10)
        let ticks = try! #require(chart.ticks)
        #expect(ticks.lower == 0 && ticks.upper == 100)
        #expect(chart.plotColumn == 4)  // "100" plus the axis character
        #expect(chart.rows[0].text.hasPrefix("100┤"))
        #expect(chart.rows[8].text.hasPrefix("  0┤"))
        #expect(chart.rows[1].text.hasPrefix("   │"))
        let dateRow = chart.rows[9].text
        #expect(dateRow.hasPrefix("    2018-01-01"))
        #expect(dateRow.hasSuffix("2019-12-02"))
        #expect(chart.rows[0].runs.first == ChartRun(layer: .axis, text: "100┤"))
    }

    @Test func smoothedForecastAndBandLayersAppear() throws {
        let series = try #require(try BundledStocks.load().series.first { $0.id == "vega-stocks-monthly-2000-2010/AMZN" })
        let result = try Analysis.run(series, options: AnalysisOptions(forecastHorizon: 30))
        let chart = ChartRenderer(width: 80, height: 20).render(result)
        assertShape(chart, width: 80, height: 20)
        let layers = Set(chart.rows.flatMap(\.layers))
        #expect(layers == [.empty, .axis, .raw, .smoothed, .forecast, .band])
        // Forecast and band sit to the right of the data.
        let firstForecastColumn = chart.rows.compactMap { $0.layers.firstIndex(of: .forecast) }.min()!
        #expect(firstForecastColumn > chart.plotColumn + (80 - chart.plotColumn) * 3 / 4)
        #expect(chart.text.contains("Jan 2000"))
        #expect(chart.text.contains("Sep 2012"))  // the last forecast month
    }

    @Test func withoutBandFillOnlyEdgesAreBand() throws {
        let forecast = [ForecastPoint(step: 1, value: 5, lower: 0, upper: 10),
                        ForecastPoint(step: 2, value: 5, lower: 0, upper: 10)]
        let filled = ChartRenderer(width: 10, height: 6, showsAxes: false).render(prices: [5, 5], forecast: forecast)
        let unfilled = ChartRenderer(width: 10, height: 6, showsAxes: false, fillsBand: false)
            .render(prices: [5, 5], forecast: forecast)
        let count = { (chart: Chart) in chart.rows.flatMap(\.layers).filter { $0 == .band }.count }
        #expect(count(filled) > count(unfilled))
        #expect(count(unfilled) > 0)
    }

    @Test(arguments: [
        [Double](), [42], [3, 3, 3, 3], [1, .nan, 3, .nan, 5], [.nan, .nan], [-5, 1e300, -1e300], [.infinity, 2, 4],
    ])
    func degenerateInputDrawsWithoutTrapping(prices: [Double]) {
        for (width, height) in [(40, 10), (5, 2), (1, 1), (0, 0), (3, 8)] {
            let chart = ChartRenderer(width: width, height: height).render(
                prices: prices, smoothed: prices, forecast: [ForecastPoint(step: 1, value: .nan, lower: 1, upper: .nan)],
                dates: prices.indices.map { StockDates.date(dayNumber: $0) })
            assertShape(chart, width: width, height: height)
        }
    }

    @Test func specialCasesLookRight() {
        let empty = ChartRenderer(width: 20, height: 5).render(prices: [])
        #expect(empty.text.contains("no data"))
        let one = ChartRenderer(width: 10, height: 3, showsAxes: false).render(prices: [42])
        #expect(one.rows.flatMap(\.layers).filter { $0 == .raw }.count == 1)
        let flat = ChartRenderer(width: 10, height: 3, showsAxes: false).render(prices: [7, 7, 7, 7])
        #expect(flat.rows.filter { $0.layers.contains(.raw) }.count == 1)
        #expect(flat.rows.first { $0.layers.contains(.raw) }!.layers.allSatisfy { $0 == .raw })
        let gap = ChartRenderer(width: 20, height: 4, showsAxes: false).render(prices: [1, 1, .nan, .nan, 1, 1])
        #expect(gap.rows.flatMap(\.layers).contains(.empty))
        #expect(gap.rows.first { $0.layers.contains(.raw) }!.layers.contains(.empty))
    }

    @Test func niceTicks() {
        let a = AxisTicks(lower: 3.2, upper: 97.1, maximumCount: 6)
        #expect(a.values == [0, 20, 40, 60, 80, 100])
        #expect(a.labels == ["0", "20", "40", "60", "80", "100"])
        // 0.2 steps would need 7 ticks (0.8…2.0), so the next nice step, 0.5, is used.
        let b = AxisTicks(lower: 0.93, upper: 1.81, maximumCount: 6)
        #expect(b.step == 0.5)
        #expect(b.labels == ["0.5", "1.0", "1.5", "2.0"])
        let c = AxisTicks(lower: 0.93, upper: 1.81, maximumCount: 8)
        #expect(c.labels == ["0.8", "1.0", "1.2", "1.4", "1.6", "1.8", "2.0"])
        let constant = AxisTicks(lower: 50, upper: 50, maximumCount: 5)
        #expect(constant.lower < 50 && constant.upper > 50)
        let zero = AxisTicks(lower: 0, upper: 0, maximumCount: 3)
        #expect(zero.lower <= -1 && zero.upper >= 1)
        let bad = AxisTicks(lower: .nan, upper: 1, maximumCount: 0)
        #expect(bad.values.count >= 2)
        let huge = AxisTicks(lower: -1.7e308, upper: 1.7e308, maximumCount: 2)
        #expect(huge.values.allSatisfy(\.isFinite) && huge.lower <= -1.7e308 && huge.upper >= 1.7e308)
        #expect(AxisTicks(lower: -1, upper: 3, maximumCount: 2).values == [-5, 0, 5])
        #expect(AxisTicks.format(1.25, decimals: 1) == "1.3")
        #expect(AxisTicks.format(-0.001, decimals: 2) == "0.00")
        #expect(AxisTicks.format(-12.5, decimals: 0) == "-13")
        #expect(AxisTicks.format(0.05, decimals: 2) == "0.05")
    }
}
