import Testing
@testable import StocksApp

@Suite(.timeLimit(.minutes(5))) struct NavigationTests {
    @Test func openCategoryScrollOpenStockAndBack() {
        var nav = NavigationState(categoryCount: 3, pageSize: 10)
        #expect(nav.handle(.down) == [.moved])
        #expect(nav.handle(.enter) == [.openCategory(1)])
        #expect(nav.screen == .stocks(category: 1))
        #expect(nav.handle(.enter) == [])  // still loading: nothing to open
        nav.setStockCount(35)
        #expect(nav.handle(.pageDown) == [.moved])
        #expect(nav.stockSelection == 10 && nav.stockScroll == 10)
        nav.handle(.pageDown)
        nav.handle(.pageDown)
        #expect(nav.stockSelection == 30 && nav.stockScroll == 25)  // clamped to the last page
        nav.handle(.end)
        #expect(nav.stockSelection == 34)
        #expect(nav.handle(.down) == [])
        nav.handle(.up)
        #expect(nav.handle(.enter) == [.openStock(category: 1, row: 33)])
        #expect(nav.screen == .detail(category: 1, row: 33))
        #expect(nav.handle(.down) == [])
        #expect(nav.handle(.escape) == [.closeStock(category: 1, row: 33)])
        #expect(nav.screen == .stocks(category: 1))
        #expect(nav.stockSelection == 33)  // the selection survives the detail screen
        #expect(nav.handle(.escape) == [.closeCategory(1)])
        #expect(nav.screen == .categories)
        #expect(nav.categorySelection == 1)
    }

    @Test func selectionStaysOnScreen() {
        var nav = NavigationState(categoryCount: 1, pageSize: 5)
        nav.handle(.enter)
        nav.setStockCount(100)
        for _ in 0..<7 { nav.handle(.down) }
        #expect(nav.stockSelection == 7 && nav.stockScroll == 3)
        nav.handle(.home)
        #expect(nav.stockSelection == 0 && nav.stockScroll == 0)
        nav.setPageSize(20)
        nav.handle(.pageDown)
        #expect(nav.stockScroll == 20)
    }

    @Test func quitFromAnyScreen() {
        var nav = NavigationState(categoryCount: 2)
        #expect(nav.handle(.character("q")) == [.quit])
        nav.handle(.enter)
        #expect(nav.handle(.interrupt) == [.quit])
        var empty = NavigationState(categoryCount: 0)
        #expect(empty.handle(.enter) == [])
        #expect(empty.handle(.up) == [])
    }
}
