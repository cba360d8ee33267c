import Foundation

/// Calendar-date helpers for stock data, independent of time zones and locales.
///
/// Every date StocksKit produces is midnight UTC of a calendar day. Conversions use
/// proleptic-Gregorian day arithmetic (days since 1970-01-01), not `Calendar` or
/// `DateFormatter`, so parsing is fast and identical everywhere.
///
/// Accepted text forms:
/// - ISO style: `2018-01-01`, `2018/1/1`, optionally followed by a time
///   (`2018-01-01 00:00:00`, `2018-01-01T09:30:00Z`), which is ignored;
/// - month-name style: `Jan 1 2000`, `January 1, 2000`, `1 Jan 2000`, `01-Jan-2000`, and
///   Yahoo Finance's `Jan 02, 2023`;
/// - US style, month first: `01/02/2023` (2 January 2023), `1/2/2023`, `01-02-2023`. Day-first
///   dates are not guessed: `13/01/2023` is not a date.
///
/// ```swift
/// let a = StockDates.parse("Jan 1 2000")       // 2000-01-01 00:00 UTC
/// let b = StockDates.parse("2018-01-08")       // 2018-01-08 00:00 UTC
/// let c = StockDates.parse("01/02/2023")       // 2023-01-02 00:00 UTC
/// StockDates.format(b!)                        // "2018-01-08"
/// ```
public enum StockDates {
    /// Seconds in one calendar day.
    public static let secondsPerDay: Double = 86_400

    /// Parses a date in one of the accepted forms, or returns nil.
    public static func parse(_ text: some StringProtocol) -> Date? {
        let bytes = Array(text.utf8)
        return parse(utf8: bytes[...])
    }

    /// Returns midnight UTC of the given calendar day, or nil for an invalid day.
    ///
    /// ```swift
    /// StockDates.date(year: 2024, month: 2, day: 29)   // valid (leap year)
    /// StockDates.date(year: 2023, month: 2, day: 29)   // nil
    /// ```
    public static func date(year: Int, month: Int, day: Int) -> Date? {
        guard (1...9999).contains(year), (1...12).contains(month),
              day >= 1, day <= daysInMonth(year: year, month: month)
        else { return nil }
        return date(dayNumber: dayNumber(year: year, month: month, day: day))
    }

    /// Returns midnight UTC of the day `dayNumber` days after 1970-01-01.
    public static func date(dayNumber: Int) -> Date {
        Date(timeIntervalSince1970: Double(dayNumber) * secondsPerDay)
    }

    /// Returns the number of whole days from 1970-01-01 to the UTC day containing `date`.
    public static func dayNumber(of date: Date) -> Int {
        Int((date.timeIntervalSince1970 / secondsPerDay).rounded(.down))
    }

    /// Returns the (year, month, day) of the UTC day containing `date`.
    public static func components(of date: Date) -> (year: Int, month: Int, day: Int) {
        civil(fromDayNumber: dayNumber(of: date))
    }

    /// Returns the weekday of `date` in UTC: 0 = Sunday … 6 = Saturday.
    public static func weekday(of date: Date) -> Int {
        let d = dayNumber(of: date)
        return ((d % 7) + 7 + 4) % 7  // 1970-01-01 was a Thursday.
    }

    /// Formats `date` as `yyyy-MM-dd` (UTC).
    public static func format(_ date: Date) -> String {
        let (y, m, d) = components(of: date)
        return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2)
    }

    /// Formats `date` as a short month label such as `Jan 2000` (UTC, English names).
    public static func formatMonth(_ date: Date) -> String {
        let (y, m, _) = components(of: date)
        return monthNames[m - 1] + " " + String(y)
    }

    // MARK: - Day arithmetic (after Howard Hinnant's `days_from_civil`)

    static func dayNumber(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = (month + 9) % 12  // March = 0
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(fromDayNumber number: Int) -> (year: Int, month: Int, day: Int) {
        let z = number + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // MARK: - Parsing

    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun",
                             "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let fullMonthNames = ["january", "february", "march", "april", "may", "june", "july",
                                         "august", "september", "october", "november", "december"]

    /// Parses from UTF-8 bytes (the CSV reader's representation).
    static func parse(utf8 bytes: ArraySlice<UInt8>) -> Date? {
        var tokens: [Token] = []
        var i = bytes.startIndex
        let end = bytes.endIndex
        // ISO: digits{4} sep digits sep digits [T| ...]
        if let iso = parseISO(bytes) { return iso }
        while i < end && tokens.count < 4 {
            let c = bytes[i]
            if isDigit(c) {
                var value = 0, length = 0
                while i < end, isDigit(bytes[i]), length < 9 {
                    value = value * 10 + Int(bytes[i] - 48)
                    length += 1
                    i += 1
                }
                tokens.append(.number(value, digits: length))
            } else if isLetter(c) {
                var word: [UInt8] = []
                while i < end, isLetter(bytes[i]) {
                    word.append(bytes[i] | 0x20)  // ASCII lowercase
                    i += 1
                }
                guard let month = monthNumber(word) else { return nil }
                tokens.append(.month(month))
            } else if c == 32 || c == 44 || c == 45 || c == 46 || c == 47 || c == 9 {  // space , - . / tab
                i += 1
            } else {
                return nil
            }
        }
        guard i == end, tokens.count == 3 else { return nil }
        switch (tokens[0], tokens[1], tokens[2]) {
        case let (.month(m), .number(d, _), .number(y, 4)),
             let (.number(d, _), .month(m), .number(y, 4)):
            return date(year: y, month: m, day: d)
        case let (.number(m, monthDigits), .number(d, dayDigits), .number(y, 4)) where monthDigits <= 2 && dayDigits <= 2:
            return date(year: y, month: m, day: d)  // US: month/day/year
        default:
            return nil
        }
    }

    private enum Token {
        case number(Int, digits: Int)
        case month(Int)
    }

    private static func parseISO(_ bytes: ArraySlice<UInt8>) -> Date? {
        var i = bytes.startIndex
        let end = bytes.endIndex
        func number(maxDigits: Int) -> (Int, Int)? {
            var value = 0, length = 0
            while i < end, isDigit(bytes[i]), length < maxDigits {
                value = value * 10 + Int(bytes[i] - 48)
                length += 1
                i += 1
            }
            return length == 0 ? nil : (value, length)
        }
        guard let (year, yearDigits) = number(maxDigits: 4), yearDigits == 4,
              i < end, bytes[i] == 45 || bytes[i] == 47  // - or /
        else { return nil }
        let separator = bytes[i]
        i += 1
        guard let (month, _) = number(maxDigits: 2), i < end, bytes[i] == separator else { return nil }
        i += 1
        guard let (day, _) = number(maxDigits: 2) else { return nil }
        if i < end, bytes[i] != 84, bytes[i] != 32 { return nil }  // 'T' or ' ' starts a time
        return date(year: year, month: month, day: day)
    }

    private static func monthNumber(_ word: [UInt8]) -> Int? {
        guard word.count >= 3 else { return nil }
        let name = String(decoding: word, as: UTF8.self)
        if word.count == 3 {
            return monthNames.firstIndex { $0.lowercased() == name }.map { $0 + 1 }
        }
        if name == "sept" { return 9 }
        return fullMonthNames.firstIndex(of: name).map { $0 + 1 }
    }

    @inline(__always) private static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
    @inline(__always) private static func isLetter(_ c: UInt8) -> Bool {
        (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
