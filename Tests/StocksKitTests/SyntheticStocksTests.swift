import Foundation
import StocksKit
import Testing

@Suite("Synthetic stocks and PRNG", .timeLimit(.minutes(5)))
struct SyntheticStocksTests {
    @Test func splitMixMatchesTheReferenceSequence() {
        var mix = SplitMix64(seed: 0)
        #expect(mix.next() == 0xE220_A839_7B1D_CDAF)
        #expect(mix.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(mix.next() == 0x06C4_5D18_8009_454F)
    }

    @Test func xoshiroMatchesAnIndependentImplementation() {
        // Values from a Python transcription of the reference C code, seeded via SplitMix64(0).
        var rng = Xoshiro256StarStar(seed: 0)
        #expect(rng.next() == 0x99EC_5F36_CB75_F2B4)
        #expect(rng.next() == 0xBF6E_1F78_4956_452A)
        #expect(rng.next() == 0x1A5F_849D_4933_E6E0)
    }

    @Test func unitDoublesAndNormalsHaveTheRightShape() {
        var rng = Xoshiro256StarStar(seed: 7)
        let uniforms = (0..<10_000).map { _ in rng.nextUnitDouble() }
        #expect(uniforms.allSatisfy { $0 >= 0 && $0 < 1 })
        let mean = uniforms.reduce(0, +) / 10_000
        #expect(abs(mean - 0.5) < 0.02)
        let normals = (0..<10_000).map { _ in rng.nextApproximateNormal() }
        let nMean = normals.reduce(0, +) / 10_000
        let variance = normals.map { ($0 - nMean) * ($0 - nMean) }.reduce(0, +) / 10_000
        #expect(abs(nMean) < 0.05)
        #expect(abs(variance - 1) < 0.05)
    }

    @Test func generationIsDeterministicForASeed() throws {
        let a = try SyntheticStocks.generate(count: 50, days: 120, seed: 2012)
        let b = try SyntheticStocks.generate(count: 50, days: 120, seed: 2012)
        #expect(a == b)
    }

    @Test func anotherSeedGivesOtherData() throws {
        let a = try SyntheticStocks.generate(count: 50, days: 120, seed: 2012)
        let c = try SyntheticStocks.generate(count: 50, days: 120, seed: 2013)
        #expect(a.map(\.symbol) != c.map(\.symbol))
        #expect(a.map(\.prices) != c.map(\.prices))
    }

    @Test func aTickerDoesNotDependOnHowManyAreGenerated() throws {
        let few = try SyntheticStocks.generate(count: 3, days: 60, seed: 9)
        let many = try SyntheticStocks.generate(count: 40, days: 60, seed: 9)
        #expect(Array(many.prefix(3)) == few)
    }

    @Test func seriesArePlausible() throws {
        let series = try SyntheticStocks.generate(count: 300, days: 250, seed: 1)
        #expect(series.count == 300)
        #expect(Set(series.map(\.symbol)).count == 300)
        #expect(series.allSatisfy { $0.count == 250 && $0.source == "synthetic" })
        #expect(series.allSatisfy { s in s.symbol.allSatisfy { $0.isUppercase } && (1...5).contains(s.symbol.count) })
        #expect(!series.contains { Sector.isWellKnown($0.symbol) })
        #expect(series.allSatisfy { $0.prices.allSatisfy { $0 > 0 && $0.isFinite } })
        #expect(series.allSatisfy { (5...500.01).contains($0.prices[0]) })
        // Weekdays only, starting Monday 2023-01-02.
        let dates = series[0].dates
        #expect(dates.first == StockDates.date(year: 2023, month: 1, day: 2))
        #expect(dates.allSatisfy { !(StockDates.weekday(of: $0) == 0 || StockDates.weekday(of: $0) == 6) })
        #expect(dates[5] == StockDates.date(year: 2023, month: 1, day: 9))
        // Several sectors are used, so a browser has categories to show.
        #expect(Set(series.map(\.sector)).count >= 8)
        // Prices move: not a constant series.
        #expect(series.allSatisfy { Set($0.prices).count > 10 })
    }

    @Test func fiveThousandTickersOfFiveHundredDays() throws {
        let series = try SyntheticStocks.generate(count: 5_000, days: 500, seed: 42)
        #expect(series.count == 5_000)
        #expect(Set(series.map(\.symbol)).count == 5_000)
        #expect(series.allSatisfy { $0.count == 500 })
    }

    @Test func degenerateCounts() throws {
        #expect(try SyntheticStocks.generate(count: 0, days: 10, seed: 1).isEmpty)
        let noDays = try SyntheticStocks.generate(count: 2, days: -5, seed: 1)
        #expect(noDays.map(\.count) == [0, 0])
    }
}
