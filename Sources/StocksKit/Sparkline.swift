/// A one-row mini chart drawn with the block elements ▁▂▃▄▅▆▇█.
///
/// ```swift
/// Sparkline.render([1, 2, 3, 4, 5, 6, 7, 8], width: 8)   // "▁▂▃▄▅▆▇█"
/// Sparkline.render(prices, width: 20)                     // 20 cells, one per bucket
/// ```
public enum Sparkline {
    /// The eight levels, lowest first.
    public static let blocks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// Renders `values` into exactly `width` characters (empty for `width ≤ 0`).
    ///
    /// - More values than `width`: each character shows the mean of a bucket of
    ///   consecutive values.
    /// - Fewer values: one character per value, right-aligned and padded with spaces, so
    ///   sparklines in a list line up at their latest value.
    /// - The lowest value maps to ▁ and the highest to █; a constant series is a row of ▄.
    ///   NaN (or a bucket of only NaN) renders as a space; an empty series as all spaces.
    public static func render(_ values: [Double], width: Int) -> String {
        guard width > 0 else { return "" }
        let levels = self.levels(values, width: width)
        let cells = levels.map { $0.map { blocks[$0] } ?? " " }
        return String(repeating: " ", count: width - cells.count) + String(cells)
    }

    /// The block level (0…7) of each output character, nil for gaps; at most `width` entries.
    /// Useful for colouring, or for tests.
    public static func levels(_ values: [Double], width: Int) -> [Int?] {
        guard width > 0, !values.isEmpty else { return [] }
        let buckets = values.count <= width ? values : bucketMeans(values, count: width)
        let finite = buckets.filter(\.isFinite)
        guard let low = finite.min(), let high = finite.max() else { return buckets.map { _ in nil } }
        let range = high - low
        return buckets.map { value in
            guard value.isFinite else { return nil }
            guard range > 0, range.isFinite else { return 3 }
            let level = Int(((value - low) / range * 7).rounded())
            return min(max(level, 0), 7)
        }
    }

    /// Means of `count` nearly equal consecutive slices (NaN for a slice without finite values).
    private static func bucketMeans(_ values: [Double], count: Int) -> [Double] {
        (0..<count).map { bucket in
            let start = bucket * values.count / count
            let end = (bucket + 1) * values.count / count
            var sum = 0.0, n = 0
            for v in values[start..<end] where v.isFinite {
                sum += v
                n += 1
            }
            return n == 0 ? .nan : sum / Double(n)
        }
    }
}
