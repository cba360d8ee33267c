import Lanes
import LanesTesting
import Testing

// The example of the "Testing with Lanes" article (Sources/Lanes/Lanes.docc/TestingWithLanes.md), compiled and run.
// Keep the two in step.

/// A search screen's view model: it searches once typing pauses, and never shows the results of a query the user
/// has already replaced.
@MainActor final class SearchViewModel {
    /// What the list shows.
    private(set) var results: [String] = []
    private var inFlight: WorkItem<[String]>?
    private var queries: Debouncer<String>?
    private let search: WorkQueue
    private let find: @Sendable (String) throws -> [String]

    init(
        search: WorkQueue, clock: any LaneClock = SystemLaneClock(),
        find: @escaping @Sendable (String) throws -> [String]
    ) {
        self.search = search
        self.find = find
        queries = Debouncer(interval: .milliseconds(300), clock: clock, onMain: { [weak self] query in
            self?.start(query)
        })
    }

    /// The text field changed.
    func textChanged(_ text: String) { queries?.send(text) }

    private func start(_ query: String) {
        let find = self.find
        let item = search.add(label: "search '\(query)'") { ctx in
            try ctx.checkCancellation()
            return try find(query)
        }
        inFlight?.cancel()  // the user typed on: the older search is waste
        inFlight = item
        item.onMainCompletion { [weak self] result in
            guard let self, inFlight == item else { return }  // a newer search replaced it
            if case .success(let hits) = result { results = hits }
        }
    }
}

@Test(.timeLimit(.minutes(5))) @MainActor func searchesOncePausedAndDropsStaleResults() {
    let clock = VirtualClock()
    let search = ManualExecutor()
    let searchQueue = WorkQueue("search", maxConcurrency: 2, executor: search)
    let searched = Recorder<String>()
    let catalog = ["swallow", "swift", "swim", "sword", "tern"]
    let model = SearchViewModel(search: searchQueue, clock: clock) { query in
        searched.append(query)
        return catalog.filter { $0.hasPrefix(query) }
    }

    // Typing, less than 300 ms between keys: nothing is searched.
    model.textChanged("s")
    clock.advance(by: .milliseconds(100))
    model.textChanged("sw")
    clock.advance(by: .milliseconds(299))
    MainQueuePump.runPending()
    search.runAll()
    #expect(searched.elements.isEmpty)

    // A pause: one search, for the latest text. It has not run when the user types on.
    clock.advance(by: .milliseconds(1))
    MainQueuePump.runPending()
    #expect(searchQueue.counts.unfinished == 1)
    model.textChanged("swi")
    clock.advance(by: .milliseconds(300))
    MainQueuePump.runPending()
    search.runAll()
    MainQueuePump.runPending()
    #expect(searched.elements == ["swi"])  // the stale "sw" search never ran
    #expect(model.results == ["swift", "swim"])

    // Results that arrive after a newer search started are stale: they are dropped.
    model.textChanged("sw")
    clock.advance(by: .milliseconds(300))
    MainQueuePump.runPending()  // the "sw" search is queued
    model.textChanged("swo")
    clock.advance(by: .milliseconds(300))
    search.runAll()             // "sw" finishes; its results queue up behind the "swo" delivery
    MainQueuePump.runPending()  // starts "swo", then drops the "sw" results
    #expect(model.results == ["swift", "swim"])
    search.runAll()
    MainQueuePump.runPending()
    #expect(searched.elements == ["swi", "sw", "swo"])
    #expect(model.results == ["sword"])
}
