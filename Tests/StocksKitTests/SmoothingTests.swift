import Foundation
import StocksKit
import Testing

@Suite("Smoothing", .timeLimit(.minutes(5)))
struct SmoothingTests {
    @Test func simpleExponentialSmoothingMatchesHandComputation() throws {
        #expect(try ExponentialSmoothing.simple([1, 2, 3, 4], alpha: 0.5) == [1, 1.5, 2.25, 3.125])
        // α = 0.3: s1 = 0.3·20 + 0.7·10 = 13; s2 = 0.3·15 + 0.7·13 = 13.6
        #expect(approximatelyEqual(try ExponentialSmoothing.simple([10, 20, 15], alpha: 0.3), [10, 13, 13.6]))
        #expect(try ExponentialSmoothing.simple([5, 6], alpha: 1) == [5, 6])
        #expect(try ExponentialSmoothing.simple([], alpha: 0.5).isEmpty)
    }

    @Test func holtMatchesHandComputation() throws {
        // x = [1, 3, 4, 8], α = β = 0.5, ℓ0 = 1, b0 = 2:
        // t1: ŷ = 3,    ℓ = 3,     b = 2
        // t2: ŷ = 5,    ℓ = 4.5,   b = 0.5·1.5 + 0.5·2 = 1.75
        // t3: ŷ = 6.25, ℓ = 7.125, b = 0.5·2.625 + 0.5·1.75 = 2.1875
        let fit = try ExponentialSmoothing.holt([1, 3, 4, 8], alpha: 0.5, beta: 0.5)
        #expect(fit.level == [1, 3, 4.5, 7.125])
        #expect(fit.trend == [2, 2, 1.75, 2.1875])
        #expect(fit.fitted == [1, 3, 5, 6.25])
        #expect(fit.forecast(steps: 2) == [9.3125, 11.5])
    }

    @Test func holtOnShortInput() throws {
        let single = try ExponentialSmoothing.holt([4], alpha: 0.5, beta: 0.5)
        #expect(single.forecast(steps: 3) == [4, 4, 4])
        #expect(try ExponentialSmoothing.holt([], alpha: 0.5, beta: 0.5).forecast(steps: 3).isEmpty)
    }

    @Test func savitzkyGolayCoefficientsForWindow5Order2() {
        let c = SavitzkyGolay.coefficients(window: 5, order: 2)
        #expect(approximatelyEqual(c.map { $0 * 35 }, [-3, 12, 17, 12, -3], tolerance: 1e-10))
    }

    @Test func savitzkyGolayCoefficientsForOtherWindows() {
        // Classic tables: window 7 order 2 → (−2, 3, 6, 7, 6, 3, −2)/21;
        // window 5 order 0 → moving average; order 3 equals order 2 for the centre.
        let c7 = SavitzkyGolay.coefficients(window: 7, order: 2)
        #expect(approximatelyEqual(c7.map { $0 * 21 }, [-2, 3, 6, 7, 6, 3, -2], tolerance: 1e-10))
        #expect(approximatelyEqual(SavitzkyGolay.coefficients(window: 5, order: 0), Array(repeating: 0.2, count: 5)))
        #expect(approximatelyEqual(SavitzkyGolay.coefficients(window: 7, order: 3), c7, tolerance: 1e-10))
        // Off-centre coefficients sum to 1 and reproduce the line they are evaluated on.
        let edge = SavitzkyGolay.coefficients(window: 5, order: 2, evaluatedAt: -2)
        #expect(abs(edge.reduce(0, +) - 1) < 1e-12)
        #expect(approximatelyEqual(edge.map { $0 * 35 }, [31, 9, -3, -5, 3], tolerance: 1e-10))
    }

    @Test func savitzkyGolayReproducesAQuadraticExactly() throws {
        let quadratic: [Double] = (0..<40).map { (i: Int) -> Double in
            let x = Double(i)
            return 0.5 * x * x - 3 * x + 7
        }
        let smoothed = try SavitzkyGolay.smooth(quadratic, window: 9, order: 2)
        // Interior and (thanks to off-centre fits) edges alike.
        #expect(approximatelyEqual(Array(smoothed[4..<36]), Array(quadratic[4..<36]), tolerance: 1e-9))
        #expect(approximatelyEqual(smoothed, quadratic, tolerance: 1e-8))
    }

    @Test func savitzkyGolayReducesNoise() throws {
        let noisy = noisySeries(count: 300)
        let smoothed = try SavitzkyGolay.smooth(noisy, window: 21, order: 3)
        #expect(roughness(smoothed) < roughness(noisy) / 5)
    }

    @Test func savitzkyGolayAdjustsBadParametersInsteadOfTrapping() throws {
        #expect(try SavitzkyGolay.smooth([], window: 5, order: 2).isEmpty)
        #expect(try SavitzkyGolay.smooth([3], window: 5, order: 2) == [3])
        let line: [Double] = [1, 2, 3]
        #expect(approximatelyEqual(try SavitzkyGolay.smooth(line, window: 50, order: 9), line))
        #expect(try SavitzkyGolay.smooth([1, 2, 3, 4], window: 4, order: -1).count == 4)
    }

    @Test func loessReproducesALineAndSmoothsNoise() throws {
        let line = (0..<100).map { 2.5 * Double($0) - 10 }
        #expect(approximatelyEqual(try Loess.smooth(line, span: 0.2), line, tolerance: 1e-9))
        let noisy = noisySeries(count: 300)
        let smoothed = try Loess.smooth(noisy, span: 0.1, robustnessIterations: 2)
        #expect(roughness(smoothed) < roughness(noisy) / 5)
    }

    @Test func robustLoessIgnoresASpike() throws {
        let clean = noisySeries(count: 300)
        var spiked = clean
        spiked[150] += 200
        let reference = try Loess.smooth(clean, span: 0.1, robustnessIterations: 2)
        let plain = try Loess.smooth(spiked, span: 0.1)
        let robust = try Loess.smooth(spiked, span: 0.1, robustnessIterations: 2)
        #expect(abs(plain[150] - reference[150]) > 5)    // the spike drags plain LOESS up
        #expect(abs(robust[150] - reference[150]) < 1)   // robustness weights remove it
    }

    @Test func loessHandlesShortInput() throws {
        #expect(try Loess.smooth([], span: 0.5).isEmpty)
        #expect(try Loess.smooth([1, 2], span: 0.5) == [1, 2])
        #expect(approximatelyEqual(try Loess.smooth([1, 2, 3], span: 0.01), [1, 2, 3]))
    }

    /// Sum of squared second differences: large for jagged data, small for smooth curves.
    private func roughness(_ values: [Double]) -> Double {
        (1..<(values.count - 1)).reduce(0) { sum, i in
            let d = values[i - 1] - 2 * values[i] + values[i + 1]
            return sum + d * d
        }
    }
}
