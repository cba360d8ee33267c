import Foundation

/// Deterministic synthetic daily stock data for demos and benchmarks.
///
/// Each ticker gets a plausible, unique symbol (1–5 letters, never one of the well-known
/// real symbols in ``Sector``), a sector, a start price between $5 and $500, and a
/// per-ticker annual drift (−20 % … +35 %) and volatility (sector-dependent, roughly
/// 10 % … 70 %). Prices follow a geometric random walk over weekdays starting Monday
/// 2023-01-02: `p[t+1] = p[t] · (1 + μ + σ·z)`, rounded to cents for display.
///
/// Everything derives from `seed` through ``Xoshiro256StarStar`` and uses only exact
/// IEEE arithmetic (no `log`/`exp`/`sin`), so a seed produces bit-identical data on every
/// run and platform. Tickers use independent generators, so ticker `i` is the same no
/// matter how many tickers are requested.
///
/// ```swift
/// let series = try SyntheticStocks.generate(count: 5_000, days: 500, seed: 2012)
/// let universe = StockUniverse(series)
/// ```
public enum SyntheticStocks {
    /// The ``PriceSeries/source`` of generated series.
    public static let source = "synthetic"

    /// The first trading day of generated data: Monday 2023-01-02.
    public static let startDate = StockDates.date(year: 2023, month: 1, day: 2)!

    /// Generates `count` tickers of `days` weekday prices each.
    ///
    /// - Parameters:
    ///   - count: The number of tickers, `0...1_000_000` (clamped).
    ///   - days: The number of trading days per ticker (negative counts as 0).
    ///   - seed: Any value; equal seeds give equal data.
    ///   - isCancelled: Polled now and then; return true to stop.
    /// - Throws: `CancellationError` when `isCancelled` returns true (polled every ticker
    ///   and every few hundred symbol draws).
    public static func generate(
        count: Int, days: Int, seed: UInt64, isCancelled: () -> Bool = { false }
    ) throws(CancellationError) -> [PriceSeries] {
        let count = min(max(count, 0), 1_000_000)
        let days = max(days, 0)
        let symbols = try makeSymbols(count: count, seed: seed, isCancelled: isCancelled)
        let dates = tradingDays(count: days)  // one shared buffer for every series
        var result: [PriceSeries] = []
        result.reserveCapacity(count)
        for index in 0..<count {
            if isCancelled() { throw CancellationError() }
            result.append(makeSeries(index: index, symbol: symbols[index], dates: dates, seed: seed))
        }
        return result
    }

    /// `count` weekdays from ``startDate`` on.
    static func tradingDays(count: Int) -> [Date] {
        var dates: [Date] = []
        dates.reserveCapacity(count)
        var day = StockDates.dayNumber(of: startDate)
        while dates.count < count {
            let date = StockDates.date(dayNumber: day)
            let weekday = StockDates.weekday(of: date)
            if weekday != 0 && weekday != 6 { dates.append(date) }
            day += 1
        }
        return dates
    }

    private static func makeSeries(index: Int, symbol: String, dates: [Date], seed: UInt64) -> PriceSeries {
        // Hash (seed, index) into an unrelated seed per ticker, so streams do not overlap.
        var base = SplitMix64(seed: seed ^ 0x5EED_0F7E_C4A1_0000)
        var perTicker = SplitMix64(seed: base.next() ^ UInt64(index))
        var rng = Xoshiro256StarStar(seed: perTicker.next())
        let sector = pickSector(&rng)
        let (lowVolatility, highVolatility) = volatilityRange(sector)
        let annualVolatility = lowVolatility + (highVolatility - lowVolatility) * rng.nextUnitDouble()
        let annualDrift = -0.20 + 0.55 * rng.nextUnitDouble()
        let dailyDrift = annualDrift / 252
        let dailyVolatility = annualVolatility / 15.874507866387544  // √252
        let u = rng.nextUnitDouble()
        var price = 5 + 495 * u * u  // more cheap stocks than expensive ones
        var prices = [Double](repeating: 0, count: dates.count)
        for day in prices.indices {
            prices[day] = max(0.01, (price * 100).rounded() / 100)
            price *= 1 + dailyDrift + dailyVolatility * rng.nextApproximateNormal()
        }
        return PriceSeries(symbol: symbol, dates: dates, prices: prices, sector: sector, source: source)
    }

    private static let sectorWeights: [(Sector, Int)] = [
        (.technology, 18), (.healthCare, 13), (.financials, 13), (.consumerDiscretionary, 11),
        (.industrials, 10), (.communication, 8), (.consumerStaples, 7), (.energy, 5),
        (.materials, 5), (.utilities, 4), (.realEstate, 4), (.other, 2),
    ]

    private static func pickSector(_ rng: inout Xoshiro256StarStar) -> Sector {
        var ticket = rng.nextIndex(below: 100)
        for (sector, weight) in sectorWeights {
            if ticket < weight { return sector }
            ticket -= weight
        }
        return .other
    }

    private static func volatilityRange(_ sector: Sector) -> (Double, Double) {
        switch sector {
        case .utilities, .consumerStaples: (0.10, 0.25)
        case .realEstate, .financials, .industrials: (0.15, 0.40)
        case .technology, .communication, .consumerDiscretionary: (0.20, 0.60)
        case .healthCare, .energy, .materials, .other: (0.20, 0.70)
        }
    }

    // MARK: - Symbols

    private static let vowels = Array("AEIOUY".utf8)
    private static let consonants = Array("BBCCDDFGHKLLMMNNPPRRSSTTVWXZQJ".utf8)

    /// Unique, pronounceable-ish symbols; mostly 3–4 letters.
    static func makeSymbols(
        count: Int, seed: UInt64, isCancelled: () -> Bool
    ) throws(CancellationError) -> [String] {
        var rng = Xoshiro256StarStar(seed: seed ^ 0x0057_AB01_5000_0000)
        var seen = Set<String>()
        var symbols: [String] = []
        symbols.reserveCapacity(count)
        var attempts = 0
        while symbols.count < count {
            try checkCancellation(attempts, isCancelled)
            attempts += 1
            // Once short names grow scarce, longer ones take over.
            let scarcity = attempts > 4 * (symbols.count + 64) ? 1 : 0
            let roll = rng.nextIndex(below: 100)
            let length = min(5, (roll < 2 ? 1 : roll < 8 ? 2 : roll < 50 ? 3 : roll < 95 ? 4 : 5) + scarcity)
            var letters: [UInt8] = []
            var vowelNext = rng.nextIndex(below: 3) == 0
            for _ in 0..<length {
                let pool = vowelNext ? vowels : consonants
                letters.append(pool[rng.nextIndex(below: pool.count)])
                vowelNext = vowelNext ? rng.nextIndex(below: 4) == 0 : rng.nextIndex(below: 2) == 0
            }
            let symbol = String(decoding: letters, as: UTF8.self)
            if !Sector.isWellKnown(symbol), seen.insert(symbol).inserted {
                symbols.append(symbol)
            }
        }
        return symbols
    }
}
