import Foundation

/// A catalogue of price series grouped into categories (by ``Sector``).
///
/// Categories are listed in ``Sector`` order with ``Sector/other`` last, and only
/// non-empty ones appear. Within a category, series are sorted by symbol, then by their first
/// date (so two series of one symbol list oldest first), then by source.
///
/// ```swift
/// let universe = StockUniverse(try SyntheticStocks.generate(count: 100, days: 250, seed: 1))
/// for category in universe.categories {
///     print(category.name, category.series.count)
/// }
/// let apple = universe.series(symbol: "AAPL")   // every series with that symbol
/// ```
public struct StockUniverse: Sendable, Equatable {
    /// One group of series that share a sector.
    public struct Category: Sendable, Equatable, Identifiable {
        /// The sector that defines this category.
        public let sector: Sector
        /// The series in this category, sorted by symbol, first date, then source.
        public let series: [PriceSeries]
        /// The category's display name, e.g. "Technology".
        public var name: String { sector.displayName }
        /// The sector, which identifies the category.
        public var id: Sector { sector }
    }

    /// The non-empty categories in ``Sector`` order.
    public let categories: [Category]
    private let locationByID: [String: (category: Int, offset: Int)]

    /// Groups `series` into categories by their ``PriceSeries/sector``.
    ///
    /// If several series share an ``PriceSeries/id``, only the first is kept.
    public init(_ series: [PriceSeries]) {
        var seen = Set<String>()
        var groups: [Sector: [PriceSeries]] = [:]
        for item in series where seen.insert(item.id).inserted {
            groups[item.sector, default: []].append(item)
        }
        categories = groups.keys.sorted().map { sector in
            let sorted = groups[sector]!.sorted {
                let first = $0.dates.first ?? .distantPast, second = $1.dates.first ?? .distantPast
                return ($0.symbol, first, $0.source) < ($1.symbol, second, $1.source)
            }
            return Category(sector: sector, series: sorted)
        }
        var locations: [String: (category: Int, offset: Int)] = [:]
        for (c, category) in categories.enumerated() {
            for (offset, item) in category.series.enumerated() {
                locations[item.id] = (c, offset)
            }
        }
        locationByID = locations
    }

    /// Two universes are equal when they hold the same categories and series.
    public static func == (lhs: StockUniverse, rhs: StockUniverse) -> Bool {
        lhs.categories == rhs.categories
    }

    /// Every series, in category order (the order a browser lists them).
    public var allSeries: [PriceSeries] { categories.flatMap(\.series) }

    /// The total number of series.
    public var count: Int { locationByID.count }

    /// The series with the given ``PriceSeries/id``, if any.
    public func series(id: String) -> PriceSeries? {
        guard let location = locationByID[id] else { return nil }
        return categories[location.category].series[location.offset]
    }

    /// Every series with `symbol` (case-insensitive), in category order.
    public func series(symbol: String) -> [PriceSeries] {
        let wanted = symbol.uppercased()
        return categories.flatMap { $0.series.filter { $0.symbol.uppercased() == wanted } }
    }
}
