import Foundation

/// The small real-world data set shipped inside StocksKit (the `Data` resource folder).
///
/// - `vega-stocks-monthly-2000-2010.csv`: monthly closing prices in US dollars of MSFT,
///   AMZN, IBM, GOOG and AAPL, Jan 2000 – Mar 2010 (long format, 560 rows). From
///   vega-datasets 0.9.0 `data/stocks.csv`, BSD-3-Clause.
/// - `plotly-stocks-weekly-2018-2019.csv`: weekly prices of GOOG, AAPL, AMZN, FB, NFLX and
///   MSFT, 2018–2019, each *relative to its first week* (1.0 = price on 2018-01-01), in the
///   wide format (105 rows). From plotly.py 5.24.1 `plotly/package_data/datasets/stocks.csv.gz`, MIT.
///
/// Licences and attribution are in the repository's NOTICE file. Series from the two files
/// share symbols; they are told apart by ``PriceSeries/source`` (the file stem) and so by
/// ``PriceSeries/id``, and on screen by their ``PriceSeries/period`` and ``PriceSeries/kind``:
/// the weekly file's series load as ``PriceSeries/Kind/relative``.
///
/// ```swift
/// let result = try BundledStocks.load()
/// let universe = StockUniverse(result.series)
/// let apple = universe.series(symbol: "AAPL")   // 2: one from each file
/// apple.map(\.period)                           // ["2000–2010", "2018–2019"]
/// apple.map(\.kind)                             // [.price, .relative]
/// ```
public enum BundledStocks {
    /// The long-format monthly file (vega-datasets).
    public static let monthlyFileName = "vega-stocks-monthly-2000-2010.csv"
    /// The wide-format weekly file (plotly).
    public static let weeklyFileName = "plotly-stocks-weekly-2018-2019.csv"

    /// The bundled `Data` folder, or nil if the resource bundle is missing.
    public static var directoryURL: URL? {
        Bundle.module.url(forResource: "Data", withExtension: nil)
    }

    /// Loads both bundled files. The bundled files are clean, so `errors` is empty unless
    /// the resource bundle is missing or damaged.
    ///
    /// - Throws: `CancellationError` when `isCancelled` returns true.
    public static func load(isCancelled: () -> Bool = { false }) throws(CancellationError) -> StockLoadResult {
        guard let directory = directoryURL else {
            return StockLoadResult(errors: [StockDataError(file: "Data", line: nil,
                                                           reason: "bundled data folder not found")])
        }
        var result = try StockCSV.loadDirectory(at: directory, isCancelled: isCancelled)
        let relativeSource = StockCSV.fileStem(weeklyFileName)
        for index in result.series.indices where result.series[index].source == relativeSource {
            result.series[index].kind = .relative
        }
        return result
    }
}
