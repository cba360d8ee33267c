import Foundation
import StocksKit
import Testing

@Suite("Date parsing", .timeLimit(.minutes(5)))
struct StockDatesTests {
    @Test(arguments: [
        ("Jan 1 2000", 2000, 1, 1),
        ("Mar 31 2010", 2010, 3, 31),
        ("jan 01, 2000", 2000, 1, 1),
        ("September 9 2001", 2001, 9, 9),
        ("Sept 9 2001", 2001, 9, 9),
        ("1 Feb 2004", 2004, 2, 1),
        ("01-Feb-2004", 2004, 2, 1),
        ("Feb 29 2004", 2004, 2, 29),
        ("2018-01-01", 2018, 1, 1),
        ("2019-12-30", 2019, 12, 30),
        ("2018/1/8", 2018, 1, 8),
        ("2018-01-08 00:00:00", 2018, 1, 8),
        ("2018-01-08T09:30:00Z", 2018, 1, 8),
    ])
    func parsesBothStyles(text: String, year: Int, month: Int, day: Int) throws {
        let date = try #require(StockDates.parse(text))
        #expect(StockDates.components(of: date) == (year, month, day))
        #expect(date == StockDates.date(year: year, month: month, day: day))
    }

    @Test(arguments: ["", "Jan 2000", "Foo 1 2000", "Feb 30 2000", "Feb 29 2100", "2018-13-01",
                      "2018-00-10", "18-01-01", "2018-01-01x", "Jan 1 2000 extra", "13/2/2018", "2018-01"])
    func rejectsInvalidDates(text: String) {
        #expect(StockDates.parse(text) == nil)
    }

    @Test func dayNumbersAreUTCMidnightSinceTheEpoch() {
        let epoch = StockDates.date(year: 1970, month: 1, day: 1)!
        #expect(epoch.timeIntervalSince1970 == 0)
        let y2k = StockDates.date(year: 2000, month: 1, day: 1)!
        #expect(y2k.timeIntervalSince1970 == 946_684_800)
        #expect(StockDates.dayNumber(of: y2k) == 10_957)
        #expect(StockDates.date(dayNumber: 10_957) == y2k)
    }

    @Test func weekdayAndFormatting() {
        let monday = StockDates.date(year: 2018, month: 1, day: 1)!
        #expect(StockDates.weekday(of: monday) == 1)
        #expect(StockDates.weekday(of: StockDates.date(year: 1969, month: 12, day: 28)!) == 0)  // Sunday
        #expect(StockDates.format(monday) == "2018-01-01")
        #expect(StockDates.formatMonth(monday) == "Jan 2018")
        #expect(StockDates.format(StockDates.date(year: 987, month: 6, day: 5)!) == "0987-06-05")
    }

    @Test func roundTripsEveryDayOfALeapCycle() {
        var dayNumber = StockDates.dayNumber(of: StockDates.date(year: 1999, month: 12, day: 31)!)
        for year in 2000...2003 {
            for month in 1...12 {
                var day = 1
                while let date = StockDates.date(year: year, month: month, day: day) {
                    dayNumber += 1
                    #expect(StockDates.dayNumber(of: date) == dayNumber)
                    day += 1
                }
            }
        }
        #expect(dayNumber - StockDates.dayNumber(of: StockDates.date(year: 1999, month: 12, day: 31)!) == 1461)
    }
}
