import StocksKit
import Testing

@Suite("Sparkline", .timeLimit(.minutes(5)))
struct SparklineTests {
    @Test func anIncreasingSeriesRisesFromLowestToHighestBlock() {
        #expect(Sparkline.render([1, 2, 3, 4, 5, 6, 7, 8], width: 8) == "▁▂▃▄▅▆▇█")
        let long = Sparkline.render((0..<1_000).map(Double.init), width: 12)
        #expect(long.count == 12)
        #expect(long.first == "▁" && long.last == "█")
        let levels = Sparkline.levels((0..<1_000).map(Double.init), width: 12).compactMap { $0 }
        #expect(levels == levels.sorted())
    }

    @Test func aDecreasingSeriesFalls() {
        #expect(Sparkline.render([8, 7, 6, 5, 4, 3, 2, 1], width: 8) == "█▇▆▅▄▃▂▁")
    }

    @Test func bucketsAverageValues() {
        // Two buckets: mean(0, 0) = 0 and mean(10, 10) = 10.
        #expect(Sparkline.render([0, 0, 10, 10], width: 2) == "▁█")
    }

    @Test func degenerateInput() {
        #expect(Sparkline.render([], width: 4) == "    ")
        #expect(Sparkline.render([5, 5, 5], width: 3) == "▄▄▄")
        #expect(Sparkline.render([7], width: 3) == "  ▄")  // right-aligned
        #expect(Sparkline.render([1, .nan, 3], width: 3) == "▁ █")
        #expect(Sparkline.render([.nan, .nan], width: 2) == "  ")
        #expect(Sparkline.render([1, 2], width: 0) == "")
        #expect(Sparkline.render([-Double.greatestFiniteMagnitude, Double.greatestFiniteMagnitude], width: 2) == "▄▄")
    }
}
