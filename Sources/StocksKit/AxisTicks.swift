import Foundation

/// "Nice" axis ticks (multiples of 1, 2 or 5 × 10ⁿ) covering a value range, with labels.
///
/// ```swift
/// let ticks = AxisTicks(lower: 3.2, upper: 97.1, maximumCount: 6)
/// ticks.values   // [0, 20, 40, 60, 80, 100]
/// ticks.labels   // ["0", "20", "40", "60", "80", "100"]
/// ```
public struct AxisTicks: Sendable, Equatable {
    /// The axis minimum (a multiple of `step`, ≤ the requested lower bound).
    public let lower: Double
    /// The axis maximum (a multiple of `step`, ≥ the requested upper bound).
    public let upper: Double
    /// The distance between ticks.
    public let step: Double
    /// The tick values from `lower` to `upper`.
    public let values: [Double]
    /// The tick labels, with as many decimals as the step needs.
    public let labels: [String]

    /// Computes about `maximumCount` ticks covering `lower…upper`: at most
    /// `max(3, maximumCount)`, since a range that straddles a tick needs two intervals. The
    /// bounds may be given in either order; an empty or non-finite range is widened to
    /// something drawable.
    public init(lower: Double, upper: Double, maximumCount: Int) {
        var low = min(lower, upper), high = max(lower, upper)
        if !low.isFinite || !high.isFinite { (low, high) = (0, 1) }
        if high - low <= max(abs(high), abs(low)) * 1e-12 {
            let pad = low == 0 ? 1 : abs(low) * 0.05
            (low, high) = (low - pad, high + pad)
        }
        let intervals = max(2, maximumCount - 1)
        var step = AxisTicks.niceStep((high - low) / Double(intervals))
        var first = (low / step).rounded(.down), last = (high / step).rounded(.up)
        while step.isFinite, last - first > Double(intervals) {  // rounding outward can add intervals
            step = AxisTicks.niceStep(step * 1.01)
            first = (low / step).rounded(.down)
            last = (high / step).rounded(.up)
        }
        guard step.isFinite, (first * step).isFinite, (last * step).isFinite else {
            // Values near the limits of Double: no nice multiples, just the two bounds.
            self.step = high - low
            self.lower = low
            self.upper = high
            values = [low, high]
            labels = values.map { String($0) }
            return
        }
        self.step = step
        self.lower = first * step
        self.upper = last * step
        let count = Int(last - first) + 1
        values = (0..<count).map { k in
            let v = (first + Double(k)) * step
            return abs(v) < step * 1e-9 ? 0 : v
        }
        let decimals = step >= 1 ? 0 : min(12, Int((-log10(step) - 1e-9).rounded(.up)))
        labels = values.map { AxisTicks.format($0, decimals: decimals) }
    }

    /// The smallest 1, 2, 5 × 10ⁿ that is ≥ `raw`.
    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0 else { return 1 }
        guard raw.isFinite else { return raw }
        let exponent = log10(raw).rounded(.down)
        let magnitude = pow(10, exponent)
        let fraction = raw / magnitude
        let nice: Double = fraction <= 1 + 1e-9 ? 1 : fraction <= 2 + 1e-9 ? 2 : fraction <= 5 + 1e-9 ? 5 : 10
        return nice * magnitude
    }

    /// Formats `value` with a fixed number of decimals, locale-independently.
    ///
    /// ```swift
    /// AxisTicks.format(1.25, decimals: 1)   // "1.3"  (halves round away from zero)
    /// AxisTicks.format(-0.001, decimals: 2) // "0.00"
    /// ```
    public static func format(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        let decimals = min(max(decimals, 0), 12)
        let scale = pow(10, Double(decimals))
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e15 else { return String(value) }
        let digits = String(Int64(scaled))
        let sign = value < 0 && scaled != 0 ? "-" : ""
        guard decimals > 0 else { return sign + digits }
        let padded = String(repeating: "0", count: max(0, decimals + 1 - digits.count)) + digits
        let split = padded.index(padded.endIndex, offsetBy: -decimals)
        return sign + padded[..<split] + "." + padded[split...]
    }
}
