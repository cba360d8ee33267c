/// Which screen the app shows.
enum Screen: Sendable, Equatable {
    /// The list of categories (sectors).
    case categories
    /// The stocks of one category.
    case stocks(category: Int)
    /// One stock's chart.
    case detail(category: Int, row: Int)
}

/// What the controller must do after a key moved the navigation state.
enum NavigationEffect: Sendable, Equatable {
    /// Start loading a category's rows (and cancel any other category's load).
    case openCategory(Int)
    /// Leave a category: cancel its work.
    case closeCategory(Int)
    /// Open a stock's detail: start its analysis.
    case openStock(category: Int, row: Int)
    /// Leave a stock's detail: cancel its analysis.
    case closeStock(category: Int, row: Int)
    /// The selection or the scroll offset moved: redraw.
    case moved
    /// Quit the app.
    case quit
}

/// The app's navigation state machine — screens, selections, scroll offsets — with no I/O, so it is tested
/// directly. Keys go in, effects come out.
///
/// ```swift
/// var nav = NavigationState(categoryCount: 3)
/// nav.handle(.enter)                 // [.openCategory(0)]
/// nav.setStockCount(120)             // the category loaded
/// nav.handle(.pageDown)              // [.moved]
/// ```
struct NavigationState: Sendable, Equatable {
    private(set) var screen: Screen = .categories
    private(set) var categorySelection = 0
    private(set) var categoryCount: Int
    /// Rows of the open category, or nil while it loads.
    private(set) var stockCount: Int?
    private(set) var stockSelection = 0
    /// The first stock row on screen.
    private(set) var stockScroll = 0
    /// How many list rows fit on screen.
    private(set) var pageSize: Int

    /// The state at the categories screen.
    init(categoryCount: Int, pageSize: Int = 20) {
        self.categoryCount = categoryCount
        self.pageSize = max(1, pageSize)
    }

    /// The category of the open list or detail screen.
    var openCategory: Int? {
        switch screen {
        case .categories: nil
        case .stocks(let category), .detail(let category, _): category
        }
    }

    /// The open category finished loading with `count` rows.
    mutating func setStockCount(_ count: Int) {
        stockCount = count
        clampStocks()
    }

    /// The screen's list area changed height.
    mutating func setPageSize(_ size: Int) {
        pageSize = max(1, size)
        clampStocks()
    }

    /// Applies a key; returns what the controller must do, in order.
    @discardableResult
    mutating func handle(_ key: Key) -> [NavigationEffect] {
        if key == .interrupt || key == .character("q") { return [.quit] }
        switch screen {
        case .categories: return handleCategories(key)
        case .stocks(let category): return handleStocks(key, category: category)
        case .detail(let category, let row):
            switch key {
            case .escape, .left, .backspace, .character("h"):
                screen = .stocks(category: category)
                return [.closeStock(category: category, row: row)]
            default: return []
            }
        }
    }

    private mutating func handleCategories(_ key: Key) -> [NavigationEffect] {
        let before = categorySelection
        switch key {
        case .up, .character("k"): categorySelection -= 1
        case .down, .character("j"), .tab: categorySelection += 1
        case .pageUp: categorySelection -= pageSize
        case .pageDown: categorySelection += pageSize
        case .home, .character("g"): categorySelection = 0
        case .end, .character("G"): categorySelection = categoryCount - 1
        case .enter, .right, .character("l"):
            guard categoryCount > 0 else { return [] }
            screen = .stocks(category: categorySelection)
            stockCount = nil
            stockSelection = 0
            stockScroll = 0
            return [.openCategory(categorySelection)]
        default: return []
        }
        categorySelection = min(max(0, categorySelection), max(0, categoryCount - 1))
        return categorySelection == before ? [] : [.moved]
    }

    private mutating func handleStocks(_ key: Key, category: Int) -> [NavigationEffect] {
        let before = (stockSelection, stockScroll)
        switch key {
        case .escape, .left, .backspace, .character("h"):
            screen = .categories
            stockCount = nil
            return [.closeCategory(category)]
        case .up, .character("k"): stockSelection -= 1
        case .down, .character("j"): stockSelection += 1
        case .pageUp:
            stockSelection -= pageSize
            stockScroll -= pageSize
        case .pageDown:
            stockSelection += pageSize
            stockScroll += pageSize
        case .home, .character("g"): stockSelection = 0
        case .end, .character("G"): stockSelection = (stockCount ?? 1) - 1
        case .enter, .right, .character("l"):
            guard let count = stockCount, count > 0 else { return [] }
            screen = .detail(category: category, row: stockSelection)
            return [.openStock(category: category, row: stockSelection)]
        default: return []
        }
        clampStocks()
        return (stockSelection, stockScroll) == before ? [] : [.moved]
    }

    /// Keeps the selection in the list and on screen.
    private mutating func clampStocks() {
        let count = stockCount ?? 0
        stockSelection = min(max(0, stockSelection), max(0, count - 1))
        stockScroll = min(max(0, stockScroll), max(0, count - pageSize))
        if stockSelection < stockScroll { stockScroll = stockSelection }
        if stockSelection >= stockScroll + pageSize { stockScroll = stockSelection - pageSize + 1 }
    }
}
