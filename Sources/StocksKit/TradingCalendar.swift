import Foundation

/// Extends a date sequence into the future with the same cadence, for forecast labels.
enum TradingCalendar {
    /// `count` dates after the last of `dates`, spaced like the recent ones:
    /// - gaps of 28–31 days: calendar months, keeping the day of month (clamped);
    /// - gaps of one day with no weekend dates in the data: weekdays only;
    /// - otherwise: the median recent gap in days (at least one).
    static func dates(after dates: [Date], count: Int) -> [Date] {
        guard let last = dates.last, count > 0 else { return [] }
        let recent = dates.suffix(21).map(StockDates.dayNumber(of:))
        let gaps = zip(recent, recent.dropFirst()).map { $1 - $0 }.filter { $0 > 0 }.sorted()
        let step = gaps.isEmpty ? 1 : gaps[(gaps.count - 1) / 2]
        let lastDay = StockDates.dayNumber(of: last)
        if (28...31).contains(step) {
            let (year, month, day) = StockDates.civil(fromDayNumber: lastDay)
            return (1...count).map { k in
                let total = (month - 1) + k
                let y = year + total / 12, m = total % 12 + 1
                let d = min(day, StockDates.daysInMonth(year: y, month: m))
                return StockDates.date(dayNumber: StockDates.dayNumber(year: y, month: m, day: d))
            }
        }
        let hasWeekends = recent.contains { isWeekend($0) }
        var result: [Date] = []
        result.reserveCapacity(count)
        var day = lastDay
        while result.count < count {
            day += step
            if step == 1, !hasWeekends, isWeekend(day) { continue }
            result.append(StockDates.date(dayNumber: day))
        }
        return result
    }

    private static func isWeekend(_ dayNumber: Int) -> Bool {
        let weekday = StockDates.weekday(of: StockDates.date(dayNumber: dayNumber))
        return weekday == 0 || weekday == 6
    }
}
