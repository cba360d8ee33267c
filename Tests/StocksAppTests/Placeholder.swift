import Testing
@testable import StocksApp

@Test func appPlaceholder() { #expect(StocksMain.run(["stocks"]) == 0) }
