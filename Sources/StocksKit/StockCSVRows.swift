import Foundation

/// Collects rows into per-symbol series and line-level errors while a file is parsed.
struct RowAccumulator {
    private struct Builder {
        var symbol: String
        var dates: [Date] = []
        var prices: [Double] = []
    }

    private let layout: Layout
    private let fileName: String
    private let source: String
    private var builders: [Builder] = []
    private var builderIndex: [String: Int] = [:]
    private var errors: [StockDataError] = []
    private var rowCount = 0
    private var nullRows = 0

    init(layout: Layout, fileName: String, header: CSVRecord) {
        self.layout = layout
        self.fileName = fileName
        source = StockCSV.fileStem(fileName)
        for warning in layout.warnings { report(header.line, warning) }
        switch layout.kind {
        case .wide(_, let symbols):
            for (_, symbol) in symbols { _ = builder(for: symbol) }
        case .ohlc, .single:
            _ = builder(for: StockCSV.symbol(fromFileName: fileName))
        case .long:
            break
        }
    }

    mutating func report(_ line: Int?, _ reason: String) {
        errors.append(StockDataError(file: fileName, line: line, reason: reason))
    }

    mutating func add(_ record: CSVRecord) {
        rowCount += 1
        let fields = record.fields
        if fields.count < layout.columnCount
            || fields[layout.columnCount...].contains(where: { !$0.isEmpty }) {
            report(record.line, "expected \(layout.columnCount) fields, found \(fields.count)")
            return
        }
        switch layout.kind {
        case let .long(symbolColumn, dateColumn, priceColumn):
            let symbol = fields[symbolColumn]
            guard !symbol.isEmpty else { return report(record.line, "missing symbol") }
            if RowAccumulator.isNull(fields[priceColumn]) { return nullRows += 1 }
            guard let date = parseDate(fields[dateColumn], line: record.line),
                  let price = parsePrice(fields[priceColumn], line: record.line)
            else { return }
            append(date, price, to: builder(for: symbol))
        case let .ohlc(dateColumn, priceColumn), let .single(dateColumn, priceColumn):
            if RowAccumulator.isNull(fields[priceColumn]) { return nullRows += 1 }
            guard let date = parseDate(fields[dateColumn], line: record.line),
                  let price = parsePrice(fields[priceColumn], line: record.line)
            else { return }
            append(date, price, to: 0)
        case let .wide(dateColumn, symbols):
            guard let date = parseDate(fields[dateColumn], line: record.line) else { return }
            for (index, (column, symbol)) in symbols.enumerated() where !fields[column].isEmpty {
                if RowAccumulator.isNull(fields[column]) {
                    nullRows += 1
                    continue
                }
                if let price = parsePrice(fields[column], line: record.line, symbol: symbol) {
                    append(date, price, to: index)
                }
            }
        }
    }

    /// Builds the sorted series; symbols without any price are reported, not returned.
    func finish() -> StockLoadResult {
        var result = StockLoadResult(errors: errors, nullRows: nullRows)
        if rowCount == 0 {
            result.errors.append(StockDataError(file: fileName, line: nil, reason: "no data rows"))
            return result
        }
        for builder in builders {
            if builder.prices.isEmpty {
                result.errors.append(StockDataError(file: fileName, line: nil,
                                                    reason: "no valid prices for \(builder.symbol)"))
                continue
            }
            var dates = builder.dates, prices = builder.prices
            if zip(dates, dates.dropFirst()).contains(where: { $0 > $1 }) {
                // Stable sort by date, keeping file order among equal dates.
                let order = dates.indices.sorted { (dates[$0], $0) < (dates[$1], $1) }
                dates = order.map { builder.dates[$0] }
                prices = order.map { builder.prices[$0] }
            }
            result.series.append(PriceSeries(symbol: builder.symbol, dates: dates, prices: prices, source: source))
        }
        return result
    }

    private mutating func builder(for symbol: String) -> Int {
        if let index = builderIndex[symbol] { return index }
        builders.append(Builder(symbol: symbol))
        builderIndex[symbol] = builders.count - 1
        return builders.count - 1
    }

    private mutating func append(_ date: Date, _ price: Double, to index: Int) {
        builders[index].dates.append(date)
        builders[index].prices.append(price)
    }

    private mutating func parseDate(_ text: String, line: Int) -> Date? {
        if let date = StockDates.parse(text) { return date }
        report(line, text.isEmpty ? "missing date" : "invalid date \"\(text)\"")
        return nil
    }

    private mutating func parsePrice(_ text: String, line: Int, symbol: String? = nil) -> Double? {
        let suffix = symbol.map { " for \($0)" } ?? ""
        guard let price = RowAccumulator.price(from: text) else {
            report(line, (text.isEmpty ? "missing price" : "invalid price \"\(text)\"") + suffix)
            return nil
        }
        guard price >= 0 else {
            report(line, "negative price \"\(text)\"" + suffix)
            return nil
        }
        return price
    }

    /// Yahoo's (and others') word for "no price that day".
    static func isNull(_ text: String) -> Bool {
        text.count == 4 && text.lowercased() == "null"
    }

    /// A finite number, allowing a leading `$` and `,` thousands separators.
    static func price(from text: String) -> Double? {
        var cleaned = Substring(text)
        if cleaned.first == "$" { cleaned = cleaned.dropFirst() }
        let digits = cleaned.contains(",") ? String(cleaned.filter { $0 != "," }) : String(cleaned)
        guard let value = Double(digits), value.isFinite else { return nil }
        return value
    }
}
