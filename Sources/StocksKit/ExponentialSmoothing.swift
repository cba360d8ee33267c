/// Exponential smoothing: simple (level only) and Holt's linear trend method.
///
/// Non-finite inputs propagate; ``Analysis`` removes them before smoothing.
///
/// ```swift
/// let s = try ExponentialSmoothing.simple([1, 2, 3, 4], alpha: 0.5)
/// // [1, 1.5, 2.25, 3.125]
/// let fit = try ExponentialSmoothing.holt([1, 2, 3, 4], alpha: 0.5, beta: 0.5)
/// fit.forecast(steps: 2)   // [5, 6]
/// ```
public enum ExponentialSmoothing {
    /// Simple exponential smoothing: `s[0] = x[0]`, `s[t] = α·x[t] + (1 − α)·s[t−1]`.
    ///
    /// - Parameters:
    ///   - values: The series to smooth.
    ///   - alpha: The smoothing factor, clamped to `0...1` (1 returns the input).
    ///   - isCancelled: Polled now and then; return true to stop.
    /// - Throws: `CancellationError` when `isCancelled` returns true (polled every few hundred points).
    public static func simple(
        _ values: [Double], alpha: Double, isCancelled: () -> Bool = { false }
    ) throws(CancellationError) -> [Double] {
        let alpha = clampUnit(alpha)
        var result = [Double](repeating: 0, count: values.count)
        guard let first = values.first else { return result }
        var level = first
        for t in values.indices {
            try checkCancellation(t, isCancelled)
            if t > 0 { level = alpha * values[t] + (1 - alpha) * level }
            result[t] = level
        }
        return result
    }

    /// Holt's linear trend method.
    ///
    /// Initialisation: `ℓ[0] = x[0]`, `b[0] = x[1] − x[0]` (0 for a single point). Then for
    /// `t ≥ 1`: `ŷ[t] = ℓ[t−1] + b[t−1]`, `ℓ[t] = α·x[t] + (1 − α)·ŷ[t]`,
    /// `b[t] = β·(ℓ[t] − ℓ[t−1]) + (1 − β)·b[t−1]`.
    ///
    /// - Parameters:
    ///   - values: The series to smooth.
    ///   - alpha: Level smoothing, clamped to `0...1`.
    ///   - beta: Trend smoothing, clamped to `0...1`.
    ///   - isCancelled: Polled now and then; return true to stop.
    /// - Throws: `CancellationError` when `isCancelled` returns true.
    public static func holt(
        _ values: [Double], alpha: Double, beta: Double, isCancelled: () -> Bool = { false }
    ) throws(CancellationError) -> HoltFit {
        let alpha = clampUnit(alpha), beta = clampUnit(beta)
        let n = values.count
        var level = [Double](repeating: 0, count: n)
        var trend = [Double](repeating: 0, count: n)
        var fitted = [Double](repeating: 0, count: n)
        guard n > 0 else { return HoltFit(level: [], trend: [], fitted: []) }
        level[0] = values[0]
        trend[0] = n > 1 ? values[1] - values[0] : 0
        fitted[0] = values[0]
        for t in 1..<n {
            try checkCancellation(t, isCancelled)
            let prediction = level[t - 1] + trend[t - 1]
            fitted[t] = prediction
            level[t] = alpha * values[t] + (1 - alpha) * prediction
            trend[t] = beta * (level[t] - level[t - 1]) + (1 - beta) * trend[t - 1]
        }
        return HoltFit(level: level, trend: trend, fitted: fitted)
    }

    /// The sum of squared one-step-ahead errors of Holt's method from `t = 2` on (the first
    /// two predictions are exact by construction). Allocation-free; used for parameter fits.
    static func holtSSE(_ values: [Double], alpha: Double, beta: Double) -> Double {
        guard values.count > 2 else { return 0 }
        var level = values[0], trend = values[1] - values[0], sse = 0.0
        for t in 1..<values.count {
            let prediction = level + trend
            if t >= 2 {
                let error = values[t] - prediction
                sse += error * error
            }
            let newLevel = alpha * values[t] + (1 - alpha) * prediction
            trend = beta * (newLevel - level) + (1 - beta) * trend
            level = newLevel
        }
        return sse
    }

    static func clampUnit(_ x: Double) -> Double {
        x.isNaN ? 0.5 : min(max(x, 0), 1)
    }
}

/// The result of ``ExponentialSmoothing/holt(_:alpha:beta:isCancelled:)``.
///
/// ```swift
/// let fit = try ExponentialSmoothing.holt(prices, alpha: 0.5, beta: 0.1)
/// let next5 = fit.forecast(steps: 5)
/// ```
public struct HoltFit: Sendable, Equatable {
    /// The smoothed level `ℓ[t]`, one per input point (the smoothed series).
    public let level: [Double]
    /// The smoothed slope `b[t]` per step.
    public let trend: [Double]
    /// One-step-ahead predictions `ŷ[t] = ℓ[t−1] + b[t−1]`; `fitted[0]` is the first value.
    public let fitted: [Double]

    /// Creates a fit from its components.
    public init(level: [Double], trend: [Double], fitted: [Double]) {
        self.level = level
        self.trend = trend
        self.fitted = fitted
    }

    /// Point forecasts `ℓ[n−1] + h·b[n−1]` for `h = 1…steps`; empty for an empty fit.
    public func forecast(steps: Int) -> [Double] {
        guard let l = level.last, let b = trend.last, steps > 0 else { return [] }
        return (1...steps).map { l + Double($0) * b }
    }
}
