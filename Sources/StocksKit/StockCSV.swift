import Foundation

/// Parses stock price CSV files in three layouts, detected from the header row.
///
/// | Format | Header | Dates | Notes |
/// | --- | --- | --- | --- |
/// | ``Format/long`` | `symbol,date,price` | `Jan 1 2000` | one row per symbol and day |
/// | ``Format/wide`` | `date,SYM1,SYM2,…` | `2018-01-01` | one column per symbol |
/// | ``Format/ohlc`` | `Date,Open,High,Low,Close,Adj Close,Volume` | `2018-01-01` | one symbol per file, named by the file |
/// | ``Format/single`` | `date,price` | `2018-01-01` | one symbol per file, named by the file |
///
/// Header names are matched ignoring case, spaces and punctuation, and columns may come in
/// any order. Every date style is accepted in every format: ISO, US `01/02/2023` and month names
/// (see ``StockDates``).
///
/// **Error policy.** A malformed line is reported as a ``StockDataError`` naming the file
/// and line, and skipped; the file's good rows still load. In the wide format an empty
/// cell means "no price that day" and is skipped silently, and a bad cell is reported
/// while the row's other cells still load. A `null` price (Yahoo's "no trade that day") is
/// skipped and counted in ``StockLoadResult/nullRows``, not reported as an error. Only a file
/// whose header cannot be recognised, which is empty, or which holds binary data (NUL or other
/// control bytes) fails as a whole. Rows are returned sorted by date.
///
/// Prices may carry a leading `$` and `,` thousands separators (`"1,234.50"`); they must
/// be finite and not negative.
///
/// ```swift
/// let csv = """
///     symbol,date,price
///     MSFT,Jan 1 2000,39.81
///     MSFT,Feb 1 2000,36.35
///     """
/// let result = try StockCSV.parse(csv, fileName: "stocks.csv")
/// result.series[0].symbol    // "MSFT"
/// result.series[0].prices    // [39.81, 36.35]
/// result.errors              // []
/// ```
public enum StockCSV {
    /// A CSV layout StocksKit understands.
    public enum Format: String, Sendable, CaseIterable {
        /// `symbol,date,price`: one row per symbol and date.
        case long
        /// `date,SYM1,SYM2,…`: one row per date, one column per symbol.
        case wide
        /// `Date,Open,High,Low,Close,Adj Close,Volume`: one symbol per file; uses
        /// `Adj Close` when present, else `Close`.
        case ohlc
        /// `date,price` (or `date,value`): one symbol per file, named by the file.
        case single
    }

    /// Returns the format a header row announces, or nil if it matches none.
    ///
    /// ```swift
    /// StockCSV.detectFormat(header: ["symbol", "date", "price"])        // .long
    /// StockCSV.detectFormat(header: ["date", "GOOG", "AAPL"])           // .wide
    /// StockCSV.detectFormat(header: ["Date", "Open", "Close"])          // .ohlc
    /// StockCSV.detectFormat(header: ["date", "price"])                  // .single
    /// ```
    public static func detectFormat(header: [String]) -> Format? {
        Layout(header: header)?.format
    }

    /// Parses CSV text. `fileName` names the file in errors; its stem becomes the series'
    /// ``PriceSeries/source`` and, for the OHLC and single formats, the symbol (see ``symbol(fromFileName:)``).
    ///
    /// - Throws: `CancellationError` when `isCancelled` returns true (polled every few
    ///   hundred rows). Data problems never throw; they are in the result's `errors`.
    public static func parse(
        _ text: String, fileName: String, isCancelled: () -> Bool = { false }
    ) throws(CancellationError) -> StockLoadResult {
        try parse(bytes: Array(text.utf8), fileName: fileName, isCancelled: isCancelled)
    }

    /// Parses CSV bytes (UTF-8; invalid sequences become U+FFFD). See ``parse(_:fileName:isCancelled:)``.
    public static func parse(
        data: Data, fileName: String, isCancelled: () -> Bool = { false }
    ) throws(CancellationError) -> StockLoadResult {
        try parse(bytes: [UInt8](data), fileName: fileName, isCancelled: isCancelled)
    }

    /// The symbol an OHLC file's name implies: the file name's stem up to the first
    /// character that cannot be part of a ticker, uppercased.
    ///
    /// ```swift
    /// StockCSV.symbol(fromFileName: "AAPL.csv")          // "AAPL"
    /// StockCSV.symbol(fromFileName: "brk-b_daily.csv")   // "BRK-B"
    /// StockCSV.symbol(fromFileName: "^GSPC (1).csv")     // "^GSPC"
    /// ```
    public static func symbol(fromFileName fileName: String) -> String {
        let stem = fileStem(fileName)
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-^=")
        let prefix = stem.prefix { allowed.contains($0) }
        return (prefix.isEmpty ? Substring(stem) : prefix).uppercased()
    }

    static func fileStem(_ fileName: String) -> String {
        let name = fileName.split(separator: "/").last.map(String.init) ?? fileName
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    static func parse(
        bytes: [UInt8], fileName: String, isCancelled: () -> Bool
    ) throws(CancellationError) -> StockLoadResult {
        var reader = CSVReader(bytes: bytes)
        func failure(_ line: Int?, _ reason: String) -> StockLoadResult {
            StockLoadResult(errors: [StockDataError(file: fileName, line: line, reason: reason)])
        }
        if let reason = binaryReason(bytes) { return failure(nil, reason) }
        guard let first = reader.next() else { return failure(nil, "empty file") }
        let header: CSVRecord
        switch first {
        case .failure(let reason): return failure(reason.line, reason.message)
        case .success(let record): header = record
        }
        guard let layout = Layout(header: header.fields) else {
            var shown = header.fields.joined(separator: ",")
            if shown.count > 80 { shown = String(shown.prefix(79)) + "…" }
            return failure(header.line, "unrecognised header \"\(shown)\" (expected symbol,date,price; "
                + "date,SYM1,SYM2,…; or Date,Open,High,Low,Close,…)")
        }
        var accumulator = RowAccumulator(layout: layout, fileName: fileName, header: header)
        var rowIndex = 0
        while let next = reader.next() {
            try checkCancellation(rowIndex, isCancelled)
            rowIndex += 1
            switch next {
            case .failure(let reason):
                accumulator.report(reason.line, reason.message)
            case .success(let record):
                accumulator.add(record)
            }
        }
        return accumulator.finish()
    }

    /// Why `bytes` cannot be CSV text, or nil: a NUL or another control byte other than tab, line feed,
    /// carriage return and form feed in the first 64 KiB means a binary file (or a hostile one: an
    /// escape sequence in a header).
    static func binaryReason(_ bytes: [UInt8]) -> String? {
        var line = 1
        for byte in bytes.prefix(65_536) where byte < 0x20 || byte == 0x7F {
            switch byte {
            case 0x0A: line += 1
            case 0x09, 0x0C, 0x0D: continue
            case 0x00: return "binary file, not CSV text (NUL byte on line \(line))"
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                return "not CSV text: control byte 0x\(hex.count == 1 ? "0" + hex : hex) on line \(line)"
            }
        }
        return nil
    }
}
