import Dispatch
import Lanes
import LanesTesting
import Synchronization
import Testing

// The example of the "Testing with Lanes" article (Sources/Lanes/Lanes.docc/TestingWithLanes.md), compiled and run.
// Keep the two in step.

/// A search screen's view model: it searches once typing pauses, and never shows the results of a query the user
/// has already replaced.
final class SearchViewModel: Sendable {
    private let queries: Debouncer<String>
    private let screen: SearchScreen

    init(
        ui: WorkQueue = .main, search: WorkQueue, clock: any LaneClock = SystemLaneClock(),
        find: @escaping @Sendable (String) throws -> [String]
    ) {
        let screen = SearchScreen()
        self.screen = screen
        queries = Debouncer(interval: .milliseconds(300), on: ui, clock: clock) { query in
            screen.search(query, on: search, deliverOn: ui, find: find)
        }
    }

    /// The text field changed.
    func textChanged(_ text: String) { queries.send(text) }

    /// What the list shows.
    var results: [String] { screen.results }
}

/// What the screen shows, and the search in flight.
final class SearchScreen: Sendable {
    private struct State {
        var results: [String] = []
        var inFlight: WorkItem<[String]>?
    }

    private let state = Mutex(State())

    var results: [String] { state.withLock { $0.results } }

    func search(
        _ query: String, on search: WorkQueue, deliverOn ui: WorkQueue,
        find: @escaping @Sendable (String) throws -> [String]
    ) {
        let item = search.add(label: "search '\(query)'") { ctx in
            try ctx.checkCancellation()
            return try find(query)
        }
        let stale = state.withLock { state in
            defer { state.inFlight = item }
            return state.inFlight
        }
        stale?.cancel()  // the user typed on: the older search is waste
        item.onCompletion(on: ui) { [self] result in
            guard case .success(let hits) = result else { return }
            state.withLock { state in
                if state.inFlight == item { state.results = hits }  // else a newer search replaced it
            }
        }
    }
}

@Test(.timeLimit(.minutes(5))) func searchesOncePausedAndDropsStaleResults() {
    let clock = VirtualClock()
    let ui = ManualExecutor()
    let search = ManualExecutor()
    let uiQueue = WorkQueue("ui", maxConcurrency: 1, executor: ui)
    let searchQueue = WorkQueue("search", maxConcurrency: 2, executor: search)
    let searched = Recorder<String>()
    let catalog = ["swallow", "swift", "swim", "sword", "tern"]
    let model = SearchViewModel(ui: uiQueue, search: searchQueue, clock: clock) { query in
        searched.append(query)
        return catalog.filter { $0.hasPrefix(query) }
    }

    // Typing, less than 300 ms between keys: nothing is searched.
    model.textChanged("s")
    clock.advance(by: .milliseconds(100))
    model.textChanged("sw")
    clock.advance(by: .milliseconds(299))
    ui.runAll()
    search.runAll()
    #expect(searched.elements.isEmpty)

    // A pause: one search, for the latest text. It has not run when the user types on.
    clock.advance(by: .milliseconds(1))
    ui.runAll()
    #expect(searchQueue.counts.unfinished == 1)
    model.textChanged("swi")
    clock.advance(by: .milliseconds(300))
    ui.runAll()
    search.runAll()
    ui.runAll()
    #expect(searched.elements == ["swi"])  // the stale "sw" search never ran
    #expect(model.results == ["swift", "swim"])

    // Results that arrive after a newer search started are stale: they are dropped.
    model.textChanged("sw")
    clock.advance(by: .milliseconds(300))
    ui.runAll()         // the "sw" search is queued
    model.textChanged("swo")
    clock.advance(by: .milliseconds(300))
    search.runAll()     // "sw" finishes; its results queue up behind the "swo" delivery
    ui.runAll()         // starts "swo", then drops the "sw" results
    #expect(model.results == ["swift", "swim"])
    search.runAll()
    ui.runAll()
    #expect(searched.elements == ["swi", "sw", "swo"])
    #expect(model.results == ["sword"])
}

// The "Heavy tests on a busy machine" section of the same article.

@Suite(.timeLimit(.minutes(5)), .heavy)
struct ChecksumTests {
    @Test func everyValueIsCounted() {
        let count = TestScale.pick(1_000_000, sanitized: 100_000)
        let values = (0..<count).map { $0 % 7 }   // 0, 1, ..., 6, 0, 1, ...
        let expected = count / 7 * 21 + (0..<count % 7).reduce(0, +)
        #expect(values.reduce(0, +) == expected)
    }
}

@Test func aBlockingWaitOnAThreadOfItsOwn() async {
    let answer = await onDedicatedThread { () -> Int in
        let done = DispatchSemaphore(value: 0)
        DispatchQueue(label: "worker").async { done.signal() }
        done.wait()  // blocks LanesTesting's thread, not one of Swift's
        return 42
    }
    #expect(answer == 42)
}

@Test func heavyWorkAsAnItem() async throws {
    let queue = WorkQueue("crunch", maxConcurrency: 2)
    let item = queue.add { _ in (0..<1_000_000).reduce(0, &+) }
    #expect(try await item.value == 499_999_500_000)
}
