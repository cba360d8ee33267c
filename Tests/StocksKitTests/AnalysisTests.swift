import Foundation
import StocksKit
import Testing

@Suite("Analysis.run", .timeLimit(.minutes(5)))
struct AnalysisTests {
    private func day(_ y: Int, _ m: Int, _ d: Int) -> Date { StockDates.date(year: y, month: m, day: d)! }

    @Test func producesSmoothedSeriesForecastBandAndSummary() throws {
        let series = try #require(try BundledStocks.load().series.first { $0.id == "vega-stocks-monthly-2000-2010/MSFT" })
        let result = try Analysis.run(series)
        #expect(result.symbol == "MSFT")
        #expect(result.prices == series.prices)
        #expect(result.smoothed.count == series.count)
        #expect(result.smoothed != result.prices)
        #expect(result.forecast.points.count == 20)
        #expect(result.forecast.points.allSatisfy { $0.lower <= $0.value && $0.value <= $0.upper })
        #expect(result.forecast.points.last!.upper - result.forecast.points.last!.lower
                > result.forecast.points.first!.upper - result.forecast.points.first!.lower)
        #expect(result.summary?.last == series.prices.last)
        #expect(result.summary?.first == 39.81)
        // Monthly data: forecast dates continue monthly on the 1st.
        #expect(result.forecastDates.prefix(3) == [day(2010, 4, 1), day(2010, 5, 1), day(2010, 6, 1)])
    }

    @Test func eachSmootherOptionIsApplied() throws {
        let values = noisySeries(count: 80)
        let series = PriceSeries(symbol: "N", dates: SyntheticDates.weekdays(80), prices: values)
        let cases: [(Smoother, [Double])] = [
            (.exponential(alpha: 0.3), try ExponentialSmoothing.simple(values, alpha: 0.3)),
            (.holt(alpha: 0.3, beta: 0.1), try ExponentialSmoothing.holt(values, alpha: 0.3, beta: 0.1).level),
            (.savitzkyGolay(window: 11, order: 2), try SavitzkyGolay.smooth(values, window: 11, order: 2)),
            (.loess(span: 0.2, robustnessIterations: 1), try Loess.smooth(values, span: 0.2, robustnessIterations: 1)),
        ]
        for (smoother, expected) in cases {
            let result = try Analysis.run(series, options: AnalysisOptions(smoother: smoother, forecastHorizon: 3))
            #expect(result.smoothed == expected, "\(smoother)")
            #expect(result.forecast.points.count == 3)
        }
    }

    @Test func nonFinitePricesAreDropped() throws {
        let dates = SyntheticDates.weekdays(5)
        let series = PriceSeries(symbol: "X", dates: dates, prices: [1, .nan, 3, .infinity, 5])
        let result = try Analysis.run(series, options: AnalysisOptions(smoother: .exponential(alpha: 1)))
        #expect(result.prices == [1, 3, 5])
        #expect(result.dates == [dates[0], dates[2], dates[4]])
        #expect(result.droppedPoints == 2)
        #expect(result.smoothed == [1, 3, 5])
    }

    @Test func emptySeriesGivesAnEmptyResult() throws {
        let result = try Analysis.run(PriceSeries(symbol: "E", dates: [], prices: []))
        #expect(result.prices.isEmpty && result.smoothed.isEmpty)
        #expect(result.forecast.points.isEmpty && result.forecastDates.isEmpty)
        #expect(result.summary == nil)
    }

    @Test func forecastDatesFollowTheCadence() throws {
        // Weekly (the plotly file): +7 days.
        let weekly = try #require(try BundledStocks.load().series.first { $0.source.hasPrefix("plotly") })
        let weeklyResult = try Analysis.run(weekly, options: AnalysisOptions(forecastHorizon: 2))
        #expect(weeklyResult.forecastDates == [day(2020, 1, 6), day(2020, 1, 13)])
        // Weekdays: Friday is followed by Monday.
        let dates = SyntheticDates.weekdays(10)  // Mon 2023-01-02 … Fri 2023-01-13
        let daily = PriceSeries(symbol: "D", dates: dates, prices: (0..<10).map(Double.init))
        let dailyResult = try Analysis.run(daily, options: AnalysisOptions(forecastHorizon: 2))
        #expect(dailyResult.forecastDates == [day(2023, 1, 16), day(2023, 1, 17)])
        // Monthly from the 31st clamps to shorter months.
        let monthly = PriceSeries(symbol: "M", dates: [day(2021, 11, 30), day(2021, 12, 31), day(2022, 1, 31)],
                                  prices: [1, 2, 3])
        let monthlyResult = try Analysis.run(monthly, options: AnalysisOptions(forecastHorizon: 2))
        #expect(monthlyResult.forecastDates == [day(2022, 2, 28), day(2022, 3, 31)])
    }
}

/// Weekday dates from Monday 2023-01-02 for test series.
enum SyntheticDates {
    static func weekdays(_ count: Int) -> [Date] {
        (try? SyntheticStocks.generate(count: 1, days: count, seed: 0))?.first?.dates ?? []
    }
}
