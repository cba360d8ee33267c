import Foundation
import Lanes
import LanesAppSupport
import StocksKit

/// The stocks the app browses: bundled, from a directory of CSV files, or synthetic.
///
/// ```swift
/// let data = StockData.load(try AppOptions(arguments: ["--synthetic", "5000"]))
/// print(data.summary)   // "5000 synthetic tickers"
/// ```
struct StockData: Sendable {
    var universe: StockUniverse
    /// Problems with files (each names the file and line); the other files still load.
    var errors: [StockDataError]
    /// Rows skipped because their price was `null` (not errors).
    var nullRows = 0
    /// A short description for the title line.
    var summary: String

    /// Loads what `options` ask for.
    static func load(_ options: AppOptions) -> StockData {
        let result: StockLoadResult
        let summary: String
        switch options.data {
        case .bundled:
            result = (try? BundledStocks.load()) ?? StockLoadResult()
            summary = "\(result.series.count) bundled series"
        case .directory(let path):
            result = (try? StockCSV.loadDirectory(at: URL(fileURLWithPath: path))) ?? StockLoadResult()
            summary = "\(result.series.count) series from " + TerminalText.sanitized(URL(fileURLWithPath: path).lastPathComponent)
        case .synthetic(let count):
            let series = (try? SyntheticStocks.generate(count: count, days: options.syntheticDays, seed: options.seed)) ?? []
            result = StockLoadResult(series: series)
            summary = "\(series.count) synthetic tickers"
        }
        return StockData(universe: StockUniverse(result.series), errors: result.errors, nullRows: result.nullRows,
                         summary: summary)
    }
}
