import Dispatch
import Lanes
import LanesTesting
import Synchronization
import Testing

/// One handle per chain: a consumer (`consuming:`) owns its producer, so cancelling the last consumer of a producer
/// that nothing else needs cancels the producer, through the whole chain.
@Suite("Ownership", .timeLimit(.minutes(5)))
struct OwnershipTests {
    /// Two queues that run nothing until the test says so.
    private struct Queues {
        let manual = ManualExecutor()
        let network: WorkQueue
        let filters: WorkQueue

        init() {
            network = WorkQueue("network", maxConcurrency: 1, executor: manual)
            filters = WorkQueue("filters", maxConcurrency: 1, executor: manual)
        }
    }

    @Test("cancelling the consumer cancels the pending producer it owns")
    func singleChain() {
        let q = Queues()
        let download = q.network.add(label: "download") { _ in [UInt8](repeating: 1, count: 4) }
        let tilt = q.filters.add(consuming: download, label: "tilt-shift") { data, _ in data.count }
        tilt.cancel()
        #expect(tilt.state == .cancelled)
        #expect(download.state == .cancelled)
        q.manual.runAll()
        #expect(q.network.counts.unfinished == 0 && q.filters.counts.unfinished == 0)
    }

    @Test("cancelling the consumer stops its running producer")
    func runningProducer() async throws {
        let network = WorkQueue("network-running")
        let started = Gate()
        let release = Gate()
        let download = network.add(label: "download") { ctx -> Int in
            started.open()
            await release.wait()
            return ctx.isCancelled ? -1 : 1
        }
        let tilt = WorkQueue("filters-running").add(consuming: download, label: "tilt-shift") { value, _ in value }
        await started.wait()
        tilt.cancel()
        #expect(download.isCancelled)   // flagged at once: its body sees it
        release.open()
        await network.idle()
        #expect(download.state == .cancelled)
        #expect(tilt.state == .cancelled)
    }

    @Test("diamond: a producer two consumers share runs until the last one leaves")
    func diamond() {
        let q = Queues()
        let download = q.network.add(label: "download") { _ in 7 }
        let small = q.filters.add(consuming: download, label: "small") { value, _ in value }
        let large = q.filters.add(consuming: download, label: "large") { value, _ in value * 2 }
        small.cancel()
        #expect(download.state == .pending)
        #expect(large.state == .pending)
        large.cancel()
        #expect(download.state == .cancelled)
    }

    @Test("diamond: the other consumer still gets the value")
    func diamondDelivers() async throws {
        let q = Queues()
        let download = q.network.add(label: "download") { _ in 7 }
        let small = q.filters.add(consuming: download, label: "small") { value, _ in value }
        let large = q.filters.add(consuming: download, label: "large") { value, _ in value * 2 }
        small.cancel()
        q.manual.runAll()
        #expect(download.state == .succeeded)
        #expect(try await large.value == 14)
    }

    @Test("a producer a task awaits runs on; it stops when the task leaves too")
    func awaitedProducer() async throws {
        let q = Queues()
        let download = q.network.add(label: "download") { _ in 3 }
        let tilt = q.filters.add(consuming: download, label: "tilt-shift") { value, _ in value }
        let waiter = Task { try await download.value }
        try await waitUntil("the task awaits the download") { download.awaitingTaskCount == 1 }
        tilt.cancel()
        #expect(download.state == .pending)   // the task still needs it
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(download.state == .cancelled)
    }

    @Test("the last awaiting task leaving does not cancel an item a consumer still waits for")
    func awaitedAndConsumed() async throws {
        let q = Queues()
        let download = q.network.add(label: "download") { _ in 3 }
        let tilt = q.filters.add(consuming: download, label: "tilt-shift") { value, _ in value + 1 }
        let waiter = Task { try await download.value }
        try await waitUntil("the task awaits the download") { download.awaitingTaskCount == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(download.state == .pending)
        q.manual.runAll()
        #expect(try await tilt.value == 4)
    }

    @Test("a kept producer finishes though its consumer was cancelled (Foundation's behaviour)")
    func keptProducer() {
        let q = Queues()
        let saved = Atomic<Bool>(false)
        let download = q.network.add(label: "download") { _ in saved.store(true, ordering: .relaxed); return 5 }.keep()
        #expect(download.isKept)
        let tilt = q.filters.add(consuming: download, label: "tilt-shift") { value, _ in value }
        tilt.cancel()
        #expect(download.state == .pending)
        q.manual.runAll()
        #expect(download.state == .succeeded)
        let didSave = saved.load(ordering: .relaxed)
        #expect(didSave)
        download.cancel()   // explicit cancel of a finished item: nothing
        #expect(download.state == .succeeded)
    }

    @Test("a completion handler observes, it does not keep: the producer stops with its last consumer")
    func completionHandlerDoesNotKeep() async throws {
        let q = Queues()
        let download = q.network.add(label: "download") { _ in 5 }
        let reported = Recorder<Bool>()
        download.onCompletion(on: q.filters) { result in reported.append((try? result.get()) == nil) }
        let tilt = q.filters.add(consuming: download, label: "tilt-shift") { value, _ in value }
        tilt.cancel()
        #expect(download.state == .cancelled)
        q.manual.runAll()
        #expect(reported.elements == [true])   // told it was cancelled
    }

    @Test("a kept item is not cancelled when its last awaiting task leaves")
    func keptAwaitedItem() async throws {
        let q = Queues()
        let save = q.network.add(label: "save") { _ in 1 }.keep()
        let waiter = Task { try await save.value }
        try await waitUntil("the task awaits the save") { save.awaitingTaskCount == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(save.state == .pending)
        q.manual.runAll()
        #expect(save.state == .succeeded)
    }

    @Test("plain edges do not own: the dependency runs on")
    func plainEdgeDoesNotOwn() {
        let q = Queues()
        let download = q.network.add(label: "download") { _ in 5 }
        let after = q.filters.add(label: "after", after: [download]) { _ in 1 }
        after.cancel()
        #expect(download.state == .pending)
        q.manual.runAll()
        #expect(download.state == .succeeded)
    }

    @Test("three steps: cancelling the last cancels the whole chain")
    func threeSteps() {
        let q = Queues()
        let decoders = WorkQueue("decode", maxConcurrency: 1, executor: q.manual)
        let download = q.network.add(label: "download") { _ in [UInt8](repeating: 2, count: 3) }
        let decode = decoders.add(consuming: download, label: "decode") { data, _ in data.map(Int.init) }
        let tilt = q.filters.add(consuming: decode, label: "tilt-shift") { pixels, _ in pixels.reduce(0, +) }
        // The download finishes; the decode is ready and cancelled before it runs.
        #expect(q.manual.runNext())
        #expect(download.state == .succeeded)
        tilt.cancel()
        #expect(decode.state == .cancelled)
        #expect(download.state == .succeeded)
        q.manual.runAll()
        #expect(decoders.counts.unfinished == 0)
    }

    @Test("three steps, none started: one cancel reaches the first")
    func threeStepsUnstarted() {
        let q = Queues()
        let download = q.network.add(label: "download") { _ in 1 }
        let decode = q.filters.add(consuming: download, label: "decode") { value, _ in value }
        let tilt = q.filters.add(consuming: decode, label: "tilt-shift") { value, _ in value }
        tilt.cancel()
        #expect([download.state, decode.state, tilt.state] == [.cancelled, .cancelled, .cancelled])
    }

    @Test("a chain stops where a step is still shared")
    func chainStopsAtSharedStep() {
        let q = Queues()
        let download = q.network.add(label: "download") { _ in 1 }
        let decode = q.filters.add(consuming: download, label: "decode") { value, _ in value }
        let tilt = q.filters.add(consuming: decode, label: "tilt-shift") { value, _ in value }
        let thumbnail = q.filters.add(consuming: decode, label: "thumbnail") { value, _ in value }
        tilt.cancel()
        #expect(decode.state == .pending)
        #expect(download.state == .pending)
        thumbnail.cancel()
        #expect(decode.state == .cancelled)
        #expect(download.state == .cancelled)
    }

    @Test("items not yet enqueued: the producer is cancelled, enqueueing it does nothing")
    func idleChain() throws {
        let q = Queues()
        let download = WorkItem(label: "download") { _ in 1 }
        let tilt = WorkItem(consuming: download, label: "tilt-shift") { value, _ in value }
        tilt.cancel()
        #expect(download.state == .cancelled)
        try q.network.enqueue(download)
        #expect(q.manual.runAll() == 0)
    }

    @Test("a plain dependent removed after the owner left: nothing needs the producer, so it stops")
    func removedDependent() throws {
        let q = Queues()
        let download = q.network.add(label: "download") { _ in 1 }
        let tilt = q.filters.add(consuming: download, label: "tilt-shift") { value, _ in value }
        let log = WorkItem(label: "log") { _ in }
        try log.addDependency(download)
        tilt.cancel()
        #expect(download.state == .pending)   // `log` still waits for it
        try log.removeDependency(download)
        #expect(download.state == .cancelled)
    }

    @Test("a consumer cancelled by another dependency releases what it consumed")
    func consumerCancelledByDependencyReleases() throws {
        let q = Queues()
        let download = q.network.add(label: "download") { _ in 1 }
        let permission = WorkItem(label: "permission") { _ in true }
        let tilt = WorkItem(consuming: download, label: "tilt-shift") { value, _ in value }
        try tilt.addDependency(permission, policy: .cancel)
        permission.cancel()
        #expect(tilt.state == .cancelled)
        #expect(download.state == .cancelled)
    }

    @Test("a consumer cancelled while its producer completes: both finish once, the books close", arguments: 0..<4)
    func cancelRacesCompletion(round: Int) async throws {
        let network = WorkQueue("race-network-\(round)", maxConcurrency: 4)
        let filters = WorkQueue("race-filters-\(round)", maxConcurrency: 4)
        let consumerRan = Atomic<Int>(0)
        filters.suspend()   // the consumer cannot run before it is cancelled: the race is the producer's finish
        for index in 0..<500 {
            let release = Gate()
            let download = network.add(label: "download-\(index)") { _ in release.wait(); return index }
            let tilt = filters.add(consuming: download, label: "tilt-\(index)") { value, _ in
                consumerRan.add(1, ordering: .relaxed)
                return value
            }
            // The body returns on one thread while the consumer is cancelled on another.
            DispatchQueue.global().async { release.open() }
            tilt.cancel()
            let outcome = await download.result
            switch outcome {
            case .success(let value): #expect(value == index)
            case .failure(let error): #expect(error is CancellationError)
            }
            #expect(tilt.state == .cancelled)
            tilt.workNode._checkInvariants()
            download.workNode._checkInvariants()
        }
        filters.resume()
        await network.idle()
        await filters.idle()
        #expect(consumerRan.load(ordering: .relaxed) == 0)
        #expect(network.counts.unfinished == 0 && filters.counts.unfinished == 0)
    }

    @Test("a consumer cancelled after its producer finished leaves the producer's value alone")
    func cancelAfterProducerFinished() async throws {
        let q = Queues()
        let download = q.network.add(label: "download") { _ in 9 }
        let tilt = q.filters.add(consuming: download, label: "tilt-shift") { value, _ in value }
        #expect(q.manual.runNext())   // the download only: the tilt becomes ready afterwards
        #expect(download.state == .succeeded)
        tilt.cancel()
        #expect(try await download.value == 9)
    }

    @Test("a consumer cancelled while its running producer returns: the producer finishes cancelled, unneeded")
    func cancelWhileProducerReturns() async throws {
        let network = WorkQueue("returning")
        let started = Gate()
        let release = Gate()
        let download = network.add(label: "download") { _ -> Int in
            started.open()
            await release.wait()
            return 1   // returns without checking: its value is dropped, since nobody needs it
        }
        let tilt = WorkQueue("returning-filters").add(consuming: download, label: "tilt-shift") { value, _ in value }
        await started.wait()
        tilt.cancel()
        release.open()
        await network.idle()
        #expect(download.state == .cancelled)
    }
}
