import Dispatch
import Lanes
import LanesLists
import LanesTesting
import Testing

/// The one shared-work primitive: a keyed table of jobs, each run at its live consumers' highest priority and
/// stopped, in whatever step it is in, when the last one leaves.
@Suite("SharedWork", .timeLimit(.minutes(5)))
struct SharedWorkTests {
    /// Two queues on manual executors, and a job that downloads on the first and filters on the second, recording
    /// each step's item so the test can look at it.
    final class TwoSteps: Sendable {
        let downloads = ManualExecutor()
        let downloadQueue: WorkQueue
        let filters = ManualExecutor()
        let filterQueue: WorkQueue
        let table: SharedWork<String, String>
        let items = Recorder<WorkItem<String>>()
        let events = Recorder<String>()

        init(deliveryQueue: WorkQueue? = nil) {
            downloadQueue = WorkQueue("downloads", maxConcurrency: 1, executor: downloads)
            filterQueue = WorkQueue("filters", maxConcurrency: 1, executor: filters)
            let events = self.events
            table = SharedWork(deliveryQueue: deliveryQueue) { event in
                switch event {
                case .finished(let key, _, let current, let delivered):
                    events.append("finished \(key) current=\(current) delivered=\(delivered)")
                case .cancelled(let key): events.append("cancelled \(key)")
                }
            }
        }

        func start(_ job: SharedJob<String, String>) {
            let items = self.items, filterQueue = self.filterQueue
            let priority = job.priority
            let download = downloadQueue.add(priority: priority) { _ in "bytes of \(job.key)" }
            items.append(download)
            job.follow(download, startedAt: priority) { data in
                let priority = job.priority
                let filter = filterQueue.add(priority: priority) { _ in try "filtered " + data.get() }
                items.append(filter)
                job.follow(filter, startedAt: priority) { job.finish($0) }
            }
        }

        func subscribe(_ key: String, _ priority: WorkPriority, into results: Recorder<String>) -> SharedSubscription {
            table.subscribe(key, priority: priority, deliver: { results.append((try? $0.get()) ?? "error") }) {
                start($0)
            }.subscription
        }
    }

    @Test("a two-step job across queues follows its consumers' highest priority into whichever step is current")
    func priorityFollowsThroughSteps() throws {
        let work = TwoSteps()
        let results = Recorder<String>()
        let prefetch = work.subscribe("a", .prefetch, into: results)
        let visible = work.subscribe("a", .visible, into: results)
        let download = try #require(work.items.elements.first)
        #expect(work.items.elements.count == 1)          // one job for both consumers
        #expect(download.priority == .visible)
        visible.cancel()
        #expect(download.priority == .prefetch)
        work.downloads.runAll()                          // the download is done; the filter is queued
        let filter = try #require(work.items.elements.last)
        #expect(filter.priority == .prefetch)
        prefetch.setPriority(.visible)
        #expect(filter.priority == .visible)
        #expect(work.table.priority(of: "a") == .visible)
        work.filters.runAll()
        #expect(results.elements == ["filtered bytes of a"])
        #expect(work.table.count == 0)
        #expect(!prefetch.isActive)
    }

    @Test("the last consumer leaving stops the job in the step it is in; a new consumer starts a new job")
    func lastLeaverStopsTheCurrentStep() throws {
        let work = TwoSteps()
        let results = Recorder<String>()
        let first = work.subscribe("a", .visible, into: results)
        let second = work.subscribe("a", .visible, into: results)
        work.downloads.runAll()
        let filter = try #require(work.items.elements.last)
        first.cancel()
        #expect(!filter.isCancelled)                     // the second consumer still wants it
        second.cancel()
        #expect(filter.isCancelled)
        #expect(work.table.count == 0)
        work.filters.runAll()
        #expect(results.elements.isEmpty)
        #expect(work.events.elements.contains("cancelled a"))
        _ = work.subscribe("a", .visible, into: results)
        #expect(work.items.elements.count == 3)          // a fresh download
    }

    @Test("cancelAll is atomic from the delivery queue: a result already on its way reaches nobody")
    func cancelAllIsAtomic() {
        let deliveries = ManualExecutor()
        let work = TwoSteps(deliveryQueue: WorkQueue("delivery", maxConcurrency: 1, executor: deliveries))
        let results = Recorder<String>()
        let subscription = work.subscribe("a", .visible, into: results)
        work.downloads.runAll()
        work.filters.runAll()                            // done; the delivery waits on its queue
        #expect(subscription.isActive)
        work.table.cancelAll()
        #expect(!subscription.isActive)
        deliveries.runAll()
        #expect(results.elements.isEmpty)
        #expect(work.events.elements == ["cancelled a", "finished a current=false delivered=false"])
    }

    @Test("a step reported late is ignored: the later step keeps the priority and the cancel")
    func lateStepIsIgnored() {
        let steering = WorkSteering(priority: .prefetch)
        let log = Recorder<String>()
        func step(_ name: String) -> WorkStep {
            WorkStep(cancel: { log.append("cancel \(name)") }, setPriority: { log.append("\(name) \($0)") })
        }
        steering.install(step("work"), order: 2, startedAt: .prefetch)
        steering.install(step("upstream"), order: 0, startedAt: .prefetch)   // its call returned after the work began
        steering.setPriority(.visible)
        steering.cancel()
        steering.install(step("late"), order: 3, startedAt: .visible)         // made after the cancel: cancelled at once
        #expect(log.elements == ["work visible", "cancel work", "cancel late"])
    }

    @Test("consumers changing priorities from many threads leave the step at the priority the table wants")
    func racingPrioritiesConverge() throws {
        let work = TwoSteps()
        let results = Recorder<String>()
        let subscriptions = (0..<8).map { _ in work.subscribe("a", .background, into: results) }
        let download = try #require(work.items.elements.first)
        let levels = WorkPriority.allCases
        for round in 0..<50 {
            DispatchQueue.concurrentPerform(iterations: subscriptions.count) { index in
                subscriptions[index].setPriority(levels[(index * 7 + round) % levels.count])
            }
            #expect(download.priority == work.table.priority(of: "a"))
        }
    }

    @Test("a loader's work can be a chain of steps across queues, async ones included")
    func loaderChain() async throws {
        let network = WorkQueue("network", maxConcurrency: 2)
        let filters = WorkQueue("filters", maxConcurrency: 1)
        let delivery = ManualExecutor()
        let loader = ContentLoader<String, String>(
            deliveryQueue: WorkQueue("delivery", executor: delivery), cache: CostLimitedCache(costLimit: 10)
        ) { job in
            job.run(on: network, { _ async throws in "bytes of " + job.key }) { data in
                job.run(on: filters) { _ in try "filtered " + data.get() }
            }
        }
        let results = Recorder<String>()
        loader.request("a") { results.append((try? $0.get()) ?? "error") }
        loader.request("a", priority: .prefetch) { results.append((try? $0.get()) ?? "error") }
        try await waitUntil("the result to wait on the delivery queue") { delivery.pendingRunners > 0 }
        delivery.runAll()
        #expect(loader.cache.contains("a"))
        #expect(results.elements == ["filtered bytes of a", "filtered bytes of a"])
        #expect(loader.stats.scheduled == 1 && loader.stats.joined == 1 && loader.stats.completed == 1)
    }

    @Test("a job whose step was cancelled behind its back ends with a cancellation for every consumer still present")
    func cancelledBehindItsBack() async throws {
        let work = TwoSteps()
        let results = Recorder<String>()
        let first = work.subscribe("a", .prefetch, into: results)
        _ = work.subscribe("a", .visible, into: results)
        work.downloadQueue.cancelAll()                   // someone cancelled the queue, not the job
        try await waitUntil("both consumers to hear it") { results.elements.count == 2 }
        #expect(results.elements == ["error", "error"])
        #expect(!first.isActive && work.table.count == 0)
        #expect(work.events.elements == ["finished a current=true delivered=true"])
        _ = work.subscribe("a", .visible, into: results)  // a new consumer starts a new job
        work.downloads.runAll()
        work.filters.runAll()
        #expect(results.elements.last == "filtered bytes of a")
    }
}
