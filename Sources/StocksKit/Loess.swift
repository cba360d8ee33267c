/// LOESS (locally weighted linear regression, Cleveland 1979) over equally spaced points.
///
/// For each point, a straight line is fitted by weighted least squares to its `q`
/// nearest neighbours (`q = span · n`, at least 3), with tricube weights
/// `(1 − (d/h)³)³` where `h` is the distance to the farthest neighbour. Optional
/// robustness iterations re-weight points by the bisquare of their residual over six
/// median absolute residuals, so isolated spikes stop pulling the curve.
///
/// The cost is `O(n · q)` per pass, i.e. quadratic in the series length for a fixed span:
/// this is the expensive smoother in StocksKit.
///
/// ```swift
/// let smooth = try Loess.smooth(prices, span: 0.1, robustnessIterations: 2)
/// ```
public enum Loess {
    /// Smooths `values`, treating their indices as the x coordinates.
    ///
    /// - Parameters:
    ///   - values: The series to smooth.
    ///   - isCancelled: Polled now and then; return true to stop.
    ///   - span: The fraction of points in each local fit, clamped to `0…1`; at least 3
    ///     points are always used.
    ///   - robustnessIterations: Extra re-weighted passes (0 = plain LOESS; 2 is typical).
    /// - Throws: `CancellationError` when `isCancelled` returns true (polled every few
    ///   hundred points of each pass).
    public static func smooth(
        _ values: [Double], span: Double, robustnessIterations: Int = 0, isCancelled: () -> Bool = { false }
    ) throws(CancellationError) -> [Double] {
        let n = values.count
        guard n > 2 else { return values }
        let span = span.isNaN ? 0.5 : min(max(span, 0), 1)
        let q = min(n, max(3, Int((span * Double(n)).rounded())))
        var robustness = [Double](repeating: 1, count: n)
        var fitted = [Double](repeating: 0, count: n)
        // Away from the ends every window has the same half-width, so its tricube weights
        // by distance are computed once.
        let interiorHalfWidth = q - 1 - (q - 1) / 2
        let interiorKernel = (0..<q).map { tricube(Double($0) / Double(interiorHalfWidth)) }
        for pass in 0...max(0, robustnessIterations) {
            if pass > 0 {
                guard updateRobustnessWeights(values, fitted, &robustness) else { break }
            }
            for i in 0..<n {
                try checkCancellation(i, isCancelled)
                fitted[i] = localLinearFit(values, robustness, at: i, neighbours: q,
                                           interiorHalfWidth: interiorHalfWidth, interiorKernel: interiorKernel)
            }
        }
        return fitted
    }

    @inline(__always)
    private static func tricube(_ r: Double) -> Double {
        guard r < 1 else { return 0 }
        let t = 1 - r * r * r
        return t * t * t
    }

    /// The weighted straight-line fit around index `i`, evaluated at `i`.
    private static func localLinearFit(
        _ y: [Double], _ robustness: [Double], at i: Int, neighbours q: Int,
        interiorHalfWidth: Int, interiorKernel: [Double]
    ) -> Double {
        let n = y.count
        // The q nearest indices form a contiguous window containing i.
        let lower = min(max(0, i - (q - 1) / 2), n - q)
        let upper = lower + q - 1
        let halfWidth = max(i - lower, upper - i)
        let interior = halfWidth == interiorHalfWidth
        let h = Double(halfWidth)
        var sw = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
        for j in lower...upper {
            let d = Double(j - i)
            let kernel = interior ? interiorKernel[abs(j - i)] : tricube(abs(d) / h)
            let w = kernel * robustness[j]
            sw += w
            sx += w * d
            sy += w * y[j]
            sxx += w * d * d
            sxy += w * d * y[j]
        }
        guard sw > 0 else { return y[i] }
        // Centred at x = i, the fitted value at i is the intercept.
        let meanX = sx / sw, meanY = sy / sw
        let varianceX = sxx / sw - meanX * meanX
        guard varianceX > 1e-12 * max(1, h * h) else { return meanY }
        let slope = (sxy / sw - meanX * meanY) / varianceX
        return meanY - slope * meanX
    }

    /// Bisquare weights from residuals; returns false when residuals are all (near) zero,
    /// meaning more iterations would change nothing.
    private static func updateRobustnessWeights(_ y: [Double], _ fitted: [Double], _ weights: inout [Double]) -> Bool {
        let residuals = zip(y, fitted).map { abs($0 - $1) }
        let sorted = residuals.sorted()
        let m = sorted.count
        let median = m % 2 == 1 ? sorted[m / 2] : (sorted[m / 2 - 1] + sorted[m / 2]) / 2
        guard median > 1e-12 * max(1, sorted[m - 1]) else { return false }
        let limit = 6 * median
        for j in weights.indices {
            let u = residuals[j] / limit
            weights[j] = u < 1 ? (1 - u * u) * (1 - u * u) : 0
        }
        return true
    }
}
