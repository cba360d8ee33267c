/// Savitzky–Golay smoothing: each point is replaced by the value at that point of a
/// least-squares polynomial fitted to the points in a window around it.
///
/// Coefficients are computed here by least squares for any window and order (see
/// ``coefficients(window:order:evaluatedAt:)``). Near the ends, where a centred window does
/// not fit, the polynomial is fitted to the first (or last) `window` points and evaluated
/// at the point's own position, so polynomials of degree ≤ `order` are reproduced exactly
/// everywhere, edges included.
///
/// ```swift
/// let weights = SavitzkyGolay.coefficients(window: 5, order: 2).map { $0 * 35 }   // [-3, 12, 17, 12, -3]
/// let smooth = try SavitzkyGolay.smooth(prices, window: 21, order: 3)
/// ```
public enum SavitzkyGolay {
    /// The highest polynomial order supported; higher requests are clamped.
    public static let maximumOrder = 8

    /// The convolution coefficients for a window of `window` points (odd, ≥ 1) that give the
    /// fitted polynomial's value at offset `position` from the window's centre
    /// (`-window/2 … window/2`; 0 is the classic centred filter).
    ///
    /// - Precondition: `window` is odd and positive, `0 ≤ order < window`,
    ///   `order ≤ maximumOrder`, and `|position| ≤ window / 2`.
    public static func coefficients(window: Int, order: Int, evaluatedAt position: Int = 0) -> [Double] {
        precondition(window > 0 && window % 2 == 1, "Savitzky–Golay window must be odd and positive")
        precondition(order >= 0 && order < window && order <= maximumOrder, "Savitzky–Golay order out of range")
        let half = window / 2
        precondition(abs(position) <= half, "Savitzky–Golay position outside the window")
        // Work in scaled coordinates u = offset / half ∈ [-1, 1] for good conditioning.
        let scale = half == 0 ? 1.0 : Double(half)
        let terms = order + 1
        func powers(_ offset: Int) -> [Double] {
            let u = Double(offset) / scale
            var row = [Double](repeating: 1, count: terms)
            for k in stride(from: 1, to: terms, by: 1) { row[k] = row[k - 1] * u }
            return row
        }
        let rows = (-half...half).map(powers)
        // Normal matrix M = AᵀA; solve M z = a(position); coefficient j = a(offset_j) · z.
        var normal = [Double](repeating: 0, count: terms * terms)
        for row in rows {
            for i in 0..<terms {
                for j in 0..<terms { normal[i * terms + j] += row[i] * row[j] }
            }
        }
        let z = solveLinearSystem(normal, powers(position), size: terms)
        return rows.map { row in
            var sum = 0.0
            for k in 0..<terms { sum += row[k] * z[k] }
            return sum
        }
    }

    /// Smooths `values` with a Savitzky–Golay filter.
    ///
    /// Invalid parameters are adjusted rather than trapping: an even `window` grows by one,
    /// the window shrinks to the largest odd size ≤ `values.count`, and `order` is clamped
    /// to `0…min(window − 1, maximumOrder)`. Series shorter than 2 points are returned as is.
    ///
    /// - Throws: `CancellationError` when `isCancelled` returns true (polled every few
    ///   hundred points).
    public static func smooth(
        _ values: [Double], window: Int, order: Int, isCancelled: () -> Bool = { false }
    ) throws(CancellationError) -> [Double] {
        let n = values.count
        guard n > 1 else { return values }
        var window = max(1, window)
        if window % 2 == 0 { window += 1 }
        if window > n { window = n % 2 == 1 ? n : n - 1 }
        let order = min(max(order, 0), window - 1, maximumOrder)
        let half = window / 2
        var result = [Double](repeating: 0, count: n)
        let centre = coefficients(window: window, order: order)
        try values.withUnsafeBufferPointer { (x) throws(CancellationError) in
            try centre.withUnsafeBufferPointer { (c) throws(CancellationError) in
                for i in half..<(n - half) {
                    try checkCancellation(i - half, isCancelled)
                    var sum = 0.0
                    let start = i - half
                    for k in 0..<window { sum += c[k] * x[start + k] }
                    result[i] = sum
                }
            }
        }
        // Edges: fit the first / last full window, evaluate off-centre.
        for i in 0..<min(half, n) {
            try checkCancellation(i, isCancelled)
            let head = coefficients(window: window, order: order, evaluatedAt: i - half)
            result[i] = dot(head, values, from: 0)
            let tail = coefficients(window: window, order: order, evaluatedAt: half - i)
            result[n - 1 - i] = dot(tail, values, from: n - window)
        }
        return result
    }

    private static func dot(_ coefficients: [Double], _ values: [Double], from start: Int) -> Double {
        var sum = 0.0
        for k in coefficients.indices { sum += coefficients[k] * values[start + k] }
        return sum
    }
}

/// Solves the `size × size` system `matrix · x = rhs` (row-major) by Gaussian elimination
/// with partial pivoting. A singular pivot is treated as zero, giving a least-norm-like
/// answer rather than NaN.
func solveLinearSystem(_ matrix: [Double], _ rhs: [Double], size n: Int) -> [Double] {
    var a = matrix, b = rhs
    for column in 0..<n {
        var pivot = column
        for row in (column + 1)..<max(n, column + 1) where abs(a[row * n + column]) > abs(a[pivot * n + column]) {
            pivot = row
        }
        if pivot != column {
            for k in 0..<n { a.swapAt(column * n + k, pivot * n + k) }
            b.swapAt(column, pivot)
        }
        let p = a[column * n + column]
        guard abs(p) > 1e-300 else { continue }
        for row in (column + 1)..<max(n, column + 1) {
            let factor = a[row * n + column] / p
            if factor == 0 { continue }
            for k in column..<n { a[row * n + k] -= factor * a[column * n + k] }
            b[row] -= factor * b[column]
        }
    }
    var x = [Double](repeating: 0, count: n)
    for row in stride(from: n - 1, through: 0, by: -1) {
        var sum = b[row]
        for k in (row + 1)..<max(n, row + 1) { sum -= a[row * n + k] * x[k] }
        let p = a[row * n + row]
        x[row] = abs(p) > 1e-300 ? sum / p : 0
    }
    return x
}
