/// A market sector (GICS-style), used to group stocks into categories in the browser.
///
/// Well-known symbols map to their sector through ``Sector/known(symbol:)``; anything
/// unknown falls back to ``Sector/other``.
///
/// ```swift
/// Sector.known(symbol: "AAPL")       // .technology
/// Sector.known(symbol: "ZZZZ")       // .other
/// Sector.technology.displayName      // "Technology"
/// ```
public enum Sector: String, CaseIterable, Sendable, Hashable, Codable, Comparable {
    /// Information technology: software, hardware, semiconductors.
    case technology
    /// Communication services: telecoms, media, entertainment, interactive platforms.
    case communication
    /// Consumer discretionary: retail, cars, leisure, what people buy when they can.
    case consumerDiscretionary
    /// Consumer staples: food, drink, household goods, what people buy anyway.
    case consumerStaples
    /// Health care: pharmaceuticals, biotechnology, equipment, providers.
    case healthCare
    /// Financials: banks, insurers, asset managers, payments.
    case financials
    /// Industrials: aerospace, machinery, transport, construction.
    case industrials
    /// Energy: oil, gas and their equipment and services.
    case energy
    /// Materials: chemicals, metals and mining, packaging.
    case materials
    /// Utilities: electricity, gas and water supply.
    case utilities
    /// Real estate: property trusts, developers and managers.
    case realEstate
    /// A symbol whose sector is not known.
    case other

    /// A human-readable name, e.g. "Consumer Discretionary".
    public var displayName: String {
        switch self {
        case .technology: "Technology"
        case .communication: "Communication Services"
        case .consumerDiscretionary: "Consumer Discretionary"
        case .consumerStaples: "Consumer Staples"
        case .healthCare: "Health Care"
        case .financials: "Financials"
        case .industrials: "Industrials"
        case .energy: "Energy"
        case .materials: "Materials"
        case .utilities: "Utilities"
        case .realEstate: "Real Estate"
        case .other: "Other"
        }
    }

    /// Orders sectors as declared (``other`` last), which is the order categories are listed in.
    public static func < (lhs: Sector, rhs: Sector) -> Bool {
        lhs.sortIndex < rhs.sortIndex
    }

    private var sortIndex: Int { Sector.allCases.firstIndex(of: self) ?? 0 }

    /// The sector of a well-known US-listed symbol, or ``other`` when the symbol is not in
    /// the built-in table. Matching ignores case.
    public static func known(symbol: String) -> Sector {
        knownSymbols[symbol.uppercased()] ?? .other
    }

    /// Whether `symbol` is in the built-in table of well-known symbols.
    public static func isWellKnown(_ symbol: String) -> Bool {
        knownSymbols[symbol.uppercased()] != nil
    }

    private static let knownSymbols: [String: Sector] = {
        let table: [(Sector, [String])] = [
            (.technology, ["AAPL", "MSFT", "IBM", "NVDA", "INTC", "AMD", "ORCL", "CSCO", "ADBE", "CRM",
                           "QCOM", "TXN", "AVGO", "HPQ", "DELL", "SAP", "NOW", "INTU", "MU", "AMAT"]),
            (.communication, ["GOOG", "GOOGL", "FB", "META", "NFLX", "DIS", "T", "VZ", "TMUS", "CMCSA",
                              "TWTR", "SNAP", "EA", "ATVI"]),
            (.consumerDiscretionary, ["AMZN", "TSLA", "HD", "MCD", "NKE", "SBUX", "LOW", "TGT", "BKNG",
                                      "F", "GM", "EBAY"]),
            (.consumerStaples, ["WMT", "KO", "PEP", "PG", "COST", "MO", "PM", "CL", "KHC", "MDLZ"]),
            (.healthCare, ["JNJ", "PFE", "MRK", "UNH", "ABBV", "LLY", "AMGN", "GILD", "BMY", "ABT", "TMO"]),
            (.financials, ["JPM", "BAC", "WFC", "C", "GS", "MS", "AXP", "V", "MA", "BRK-B", "BRK.B",
                           "BLK", "PYPL", "SCHW"]),
            (.industrials, ["BA", "CAT", "GE", "MMM", "HON", "UPS", "FDX", "LMT", "RTX", "DE", "UNP"]),
            (.energy, ["XOM", "CVX", "COP", "SLB", "OXY", "EOG", "BP", "SHEL"]),
            (.materials, ["LIN", "DOW", "DD", "NEM", "FCX", "APD"]),
            (.utilities, ["NEE", "DUK", "SO", "D", "EXC", "AEP"]),
            (.realEstate, ["AMT", "PLD", "SPG", "EQIX", "O", "CCI"]),
        ]
        var map: [String: Sector] = [:]
        for (sector, symbols) in table {
            for symbol in symbols { map[symbol] = sector }
        }
        return map
    }()
}
