/// Which column holds what, decided from a CSV header row.
struct Layout {
    enum Kind {
        case long(symbol: Int, date: Int, price: Int)
        case wide(date: Int, symbols: [(column: Int, symbol: String)])
        case ohlc(date: Int, price: Int)
        case single(date: Int, price: Int)
    }

    var kind: Kind
    var columnCount: Int
    /// Header problems that do not stop parsing (e.g. a duplicate wide column), with reasons.
    var warnings: [String] = []

    var format: StockCSV.Format {
        switch kind {
        case .long: .long
        case .wide: .wide
        case .ohlc: .ohlc
        case .single: .single
        }
    }

    init?(header: [String]) {
        let keys = header.map(Layout.key)
        func column(_ names: String...) -> Int? {
            for name in names { if let i = keys.firstIndex(of: name) { return i } }
            return nil
        }
        columnCount = header.count
        guard let date = column("date") else { return nil }
        if let symbol = column("symbol", "ticker", "name"),
           let price = column("price", "adjclose", "close", "value") {
            kind = .long(symbol: symbol, date: date, price: price)
        } else if let price = column("adjclose", "close") {
            kind = .ohlc(date: date, price: price)
        } else if keys.filter({ !$0.isEmpty }).count == 2, let price = column("price", "value") {
            kind = .single(date: date, price: price)
        } else {
            var symbols: [(Int, String)] = []
            var seen = Set<String>()
            for (i, name) in header.enumerated() where i != date {
                let symbol = name.trimmingWhitespace()
                if symbol.isEmpty {
                    warnings.append("column \(i + 1) has no symbol name; ignored")
                } else if !seen.insert(symbol.uppercased()).inserted {
                    warnings.append("duplicate column \"\(symbol)\"; ignored")
                } else {
                    symbols.append((i, symbol))
                }
            }
            guard !symbols.isEmpty else { return nil }
            kind = .wide(date: date, symbols: symbols)
        }
    }

    /// Lowercased letters and digits only: "Adj Close" → "adjclose".
    static func key(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") }
            .map(Character.init))
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let f = scalars.first, f.isWhitespace { scalars.removeFirst() }
        while let l = scalars.last, l.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
