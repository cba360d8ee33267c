/// Headline numbers for a price series: last price, change over the period, range, mean.
///
/// ```swift
/// let stats = SummaryStats([10, 12, 9, 11])!
/// stats.last            // 11
/// stats.change          // 1
/// stats.percentChange   // 10
/// stats.minimum         // 9
/// ```
public struct SummaryStats: Sendable, Equatable {
    /// The number of points.
    public var count: Int
    /// The first price.
    public var first: Double
    /// The last price.
    public var last: Double
    /// `last − first`.
    public var change: Double
    /// `100 · (last − first) / first`; nil when `first` is 0.
    public var percentChange: Double?
    /// The lowest price.
    public var minimum: Double
    /// The highest price.
    public var maximum: Double
    /// The index of the (first) lowest price.
    public var minimumIndex: Int
    /// The index of the (first) highest price.
    public var maximumIndex: Int
    /// The arithmetic mean price.
    public var mean: Double

    /// Computes the statistics of the finite values in `values`; nil if there are none.
    /// Indices refer to positions in `values`.
    public init?(_ values: [Double]) {
        guard let firstIndex = values.firstIndex(where: \.isFinite),
              let lastIndex = values.lastIndex(where: \.isFinite)
        else { return nil }
        first = values[firstIndex]
        last = values[lastIndex]
        change = last - first
        percentChange = first == 0 ? nil : 100 * change / first
        minimum = first
        maximum = first
        minimumIndex = firstIndex
        maximumIndex = firstIndex
        var sum = 0.0
        var finiteCount = 0
        for (i, v) in values.enumerated() where v.isFinite {
            finiteCount += 1
            sum += v
            if v < minimum { minimum = v; minimumIndex = i }
            if v > maximum { maximum = v; maximumIndex = i }
        }
        count = finiteCount
        mean = sum / Double(finiteCount)
    }
}
