/// A problem found while loading stock data: which file, which line, and what was wrong.
///
/// `line` is 1-based and counts physical lines (a header is line 1); it is nil for
/// problems with the file as a whole, such as an unreadable file or an unknown header.
///
/// ```swift
/// let error = StockDataError(file: "prices.csv", line: 7, reason: "invalid price \"n/a\"")
/// print(error)   // prices.csv:7: invalid price "n/a"
/// ```
public struct StockDataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file's path as it was opened, e.g. "/home/me/data/prices.csv" (for ``StockCSV/parse(_:fileName:isCancelled:)``,
    /// whatever name the caller passed).
    public var file: String
    /// The 1-based line number, or nil when the problem concerns the whole file.
    public var line: Int?
    /// What was wrong, e.g. `expected 3 fields, found 2`.
    public var reason: String

    /// Creates an error for `file` at `line` (nil for the whole file).
    public init(file: String, line: Int?, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    /// `file:line: reason`, or `file: reason` when there is no line.
    public var description: String {
        if let line { "\(file):\(line): \(reason)" } else { "\(file): \(reason)" }
    }
}

/// The outcome of loading one or more CSV files: the series that loaded and every problem
/// found along the way.
///
/// Loading is forgiving: a malformed line is reported in ``errors`` and skipped, and the
/// file's good rows still load; a file that cannot be used at all (unreadable, unknown
/// header) contributes only an error. So a result can hold both series and errors.
///
/// ```swift
/// let result = try StockCSV.parse("symbol,date,price\nX,Jan 1 2000,oops\n", fileName: "x.csv")
/// result.series.isEmpty        // true
/// result.errors.first?.line    // 2
/// ```
public struct StockLoadResult: Sendable, Equatable {
    /// The series that loaded, in file order and, within a file, in column/appearance order.
    public var series: [PriceSeries]
    /// Every problem found, in file and line order.
    public var errors: [StockDataError]
    /// Rows skipped because their price was `null` (Yahoo's "no trade that day"; in the wide format, cells):
    /// not errors, but counted so an app can say how many.
    public var nullRows: Int

    /// Creates a result.
    public init(series: [PriceSeries] = [], errors: [StockDataError] = [], nullRows: Int = 0) {
        self.series = series
        self.errors = errors
        self.nullRows = nullRows
    }

    /// Appends another result's series and errors to this one.
    public mutating func append(_ other: StockLoadResult) {
        series += other.series
        errors += other.errors
        nullRows += other.nullRows
    }
}
