/// Smoothing parameters for Holt's linear trend method.
///
/// ```swift
/// let fixed = HoltParameters(alpha: 0.5, beta: 0.1)
/// let forecast = try HoltForecast.forecast(prices, horizon: 10, parameters: fixed)
/// ```
public struct HoltParameters: Sendable, Equatable {
    /// Level smoothing factor in `0…1`.
    public var alpha: Double
    /// Trend smoothing factor in `0…1`.
    public var beta: Double

    /// Creates parameters (values are clamped to `0…1` when used).
    public init(alpha: Double, beta: Double) {
        self.alpha = alpha
        self.beta = beta
    }
}

/// One forecast step: the point forecast and its prediction band.
///
/// ```swift
/// let point = forecast.points[0]
/// print("next: \(point.value) (\(point.lower)…\(point.upper))")
/// ```
public struct ForecastPoint: Sendable, Equatable {
    /// Steps ahead of the last observation (1, 2, …).
    public var step: Int
    /// The point forecast.
    public var value: Double
    /// The lower edge of the band.
    public var lower: Double
    /// The upper edge of the band.
    public var upper: Double

    /// Creates a forecast point.
    public init(step: Int, value: Double, lower: Double, upper: Double) {
        self.step = step
        self.value = value
        self.lower = lower
        self.upper = upper
    }
}

/// A forecast of the next points with a widening band.
///
/// ```swift
/// let forecast = try HoltForecast.forecast(prices, horizon: 20)
/// let widths = forecast.points.map { $0.upper - $0.lower }   // grows like √h
/// ```
public struct Forecast: Sendable, Equatable {
    /// The Holt parameters used (fitted or given).
    public var parameters: HoltParameters
    /// The standard deviation of one-step-ahead residuals, σ.
    public var residualStandardDeviation: Double
    /// The forecast points, `step` 1…horizon.
    public var points: [ForecastPoint]

    /// Creates a forecast.
    public init(parameters: HoltParameters, residualStandardDeviation: Double, points: [ForecastPoint]) {
        self.parameters = parameters
        self.residualStandardDeviation = residualStandardDeviation
        self.points = points
    }
}

/// Forecasts with Holt's linear trend method and a band of `± z · σ · √h`.
///
/// σ is the root mean square of the one-step-ahead residuals; the band widens with the
/// square root of the step `h`, as for a random walk. (The exact Holt prediction interval
/// widens a little faster; this simpler band is meant for display.) When parameters are
/// not given, α and β are chosen by a grid search minimising the squared one-step errors.
///
/// ```swift
/// let forecast = try HoltForecast.forecast([1, 2, 3, 4, 5], horizon: 3)
/// forecast.points.map(\.value)   // ≈ [6, 7, 8]
/// ```
public enum HoltForecast {
    /// The α values tried by the parameter search.
    public static let alphaGrid: [Double] = stride(from: 0.05, through: 0.95, by: 0.05).map { $0 }
    /// The β values tried by the parameter search.
    public static let betaGrid: [Double] = [0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5]

    /// Finds the (α, β) on ``alphaGrid`` × ``betaGrid`` with the least squared one-step error;
    /// ties go to the earlier grid point. Series of fewer than 3 points get (0.5, 0.1).
    ///
    /// - Throws: `CancellationError` when `isCancelled` returns true (polled before each of
    ///   the grid's fits, each one pass over the series).
    public static func fitParameters(
        _ values: [Double], isCancelled: () -> Bool = { false }
    ) throws(CancellationError) -> HoltParameters {
        guard values.count > 2 else { return HoltParameters(alpha: 0.5, beta: 0.1) }
        var best = HoltParameters(alpha: alphaGrid[0], beta: betaGrid[0])
        var bestSSE = Double.infinity
        for alpha in alphaGrid {
            for beta in betaGrid {
                if isCancelled() { throw CancellationError() }
                let sse = ExponentialSmoothing.holtSSE(values, alpha: alpha, beta: beta)
                if sse < bestSSE {
                    bestSSE = sse
                    best = HoltParameters(alpha: alpha, beta: beta)
                }
            }
        }
        return best
    }

    /// Forecasts `horizon` points after `values`.
    ///
    /// - Parameters:
    ///   - values: The series so far.
    ///   - horizon: How many points to forecast.
    ///   - isCancelled: Polled now and then; return true to stop.
    ///   - parameters: Holt's α and β; nil fits them with ``fitParameters(_:isCancelled:)``.
    ///   - z: The band's half-width in σ units (1.96 ≈ 95 % for normal errors).
    ///   - floor: The lowest value the series can take (0 for prices, which cannot go negative): the point
    ///     forecast and both edges of the band are raised to it. Nil leaves them unbounded.
    /// - Returns: An empty forecast for empty input or a non-positive horizon.
    /// - Throws: `CancellationError` when `isCancelled` returns true.
    public static func forecast(
        _ values: [Double], horizon: Int, parameters: HoltParameters? = nil, z: Double = 1.96,
        floor: Double? = nil, isCancelled: () -> Bool = { false }
    ) throws(CancellationError) -> Forecast {
        let parameters = if let parameters { parameters } else {
            try fitParameters(values, isCancelled: isCancelled)
        }
        guard !values.isEmpty, horizon > 0 else {
            return Forecast(parameters: parameters, residualStandardDeviation: 0, points: [])
        }
        let fit = try ExponentialSmoothing.holt(values, alpha: parameters.alpha, beta: parameters.beta,
                                                isCancelled: isCancelled)
        var sse = 0.0
        for t in stride(from: 2, to: values.count, by: 1) {
            let e = values[t] - fit.fitted[t]
            sse += e * e
        }
        let sigma = values.count > 2 ? (sse / Double(values.count - 2)).squareRoot() : 0
        let z = z.isFinite ? abs(z) : 0
        let points = fit.forecast(steps: horizon).enumerated().map { index, value in
            let h = index + 1
            let halfWidth = z * sigma * Double(h).squareRoot()
            let low = floor ?? -.infinity
            return ForecastPoint(step: h, value: max(low, value), lower: max(low, value - halfWidth),
                                 upper: max(low, value + halfWidth))
        }
        return Forecast(parameters: parameters, residualStandardDeviation: sigma, points: points)
    }
}
