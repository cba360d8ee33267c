import Foundation
import Lanes
import LanesLists
import Synchronization

/// The steps a stage advances through, in order. Each is installed in the stage's job as it begins, so a cancel or a
/// priority change reaches whichever is current; a step reported late (a callback that fired synchronously, before
/// the call that made it returned) is ignored rather than allowed to replace a later one.
enum StagePhase: Int {
    /// Waiting for an upstream stage: the fetch under a decode, the decode (or the shorter chain) under a processor.
    case upstream
    /// Waiting for room in the memory budget.
    case budget
    /// Queued or running as a work item.
    case work
    /// A fetch's transfer, once the fetcher has started it.
    case transfer
}

/// The job of one stage: a fetch (`Data`), or a decode or one processor step (`Bitmap`).
typealias StageJob<Value: Sendable> = SharedJob<StageKey, Value>

extension SharedJob {
    /// Makes `step`, made at `startedAt`, the stage's current one.
    func install(_ step: WorkStep, at phase: StagePhase, startedAt: WorkPriority) {
        install(step, order: phase.rawValue, startedAt: startedAt)
    }
}

// How each kind of stage runs.
extension ImagePipeline {
    /// Joins the stage whose result answers `request`, starting it when none is in flight. Returns the
    /// subscription and whether it started the stage.
    func subscribe(
        _ request: ImageRequest, priority: WorkPriority, deliver: @escaping SharedWork<StageKey, Bitmap>.Deliver
    ) -> (subscription: SharedSubscription, started: Bool) {
        bitmaps.subscribe(request.finalKey, priority: priority, deliver: deliver) { self.start($0, for: request) }
    }

    /// Starts the stage that answers `request`. The stages form a graph keyed by prefix: fetch → decode → first
    /// processor → second …, each keyed by (URL, size, processors so far), so `[a]` and `[a, b]` in flight share the
    /// run of `a`. A stage waits for its upstream stage — unless the memory cache holds the upstream result (the
    /// decoded original, a shorter chain's result), which it then uses without fetching again — then for room in
    /// the budget, then runs as a work item.
    func start(_ job: StageJob<Bitmap>, for request: ImageRequest) {
        let counters = self.counters
        guard let processor = request.processors.last else {
            let url = request.url, size = request.targetSize
            let decoder = configuration.decoder, maxPixels = configuration.maxPixels
            return advance(
                job, after: fetches, key: .fetch(url: url.absoluteString), start: { self.startFetch($0, url: url) },
                // The fetched body is held until the decode ends, so it counts too (unless the header already dooms
                // the decode: it then fails before allocating, and the body goes with it).
                cost: { data in
                    let cost = Self.decodeCost(of: data, size: size, maxPixels: maxPixels)
                    return cost == 0 ? 0 : cost + data.count
                }, on: decodeQueue
            ) { data, _ in
                counters.decodes.add(1, ordering: .relaxed)
                return try decoder.decode(data, targetSize: size, maxPixels: maxPixels)
            }
        }
        var upstream = request
        upstream.processors.removeLast()
        let cost: @Sendable (Bitmap) -> Int = { processor.workingSetBytes(for: $0) }
        let work: @Sendable (Bitmap, WorkContext) throws -> Bitmap = { bitmap, context in
            counters.processorRuns.add(1, ordering: .relaxed)
            return try processor.process(bitmap, isCancelled: { context.isCancelled })
        }
        if let cached = memoryCache[upstream] {
            counters.intermediateHits.add(1, ordering: .relaxed)
            return run(job, on: cached, cost: cost, queue: processQueue, work: work)
        }
        advance(
            job, after: bitmaps, key: upstream.finalKey, start: { self.start($0, for: upstream) }, cost: cost,
            on: processQueue, work: work)
    }

    /// Waits for the stage `key` of `upstream`, then runs `work` on its result (see ``run(_:on:cost:queue:work:)``).
    private func advance<Input: Sendable>(
        _ job: StageJob<Bitmap>, after upstream: SharedWork<StageKey, Input>, key: StageKey,
        start: (StageJob<Input>) -> Void, cost: @escaping @Sendable (Input) -> Int, on queue: WorkQueue,
        work: @escaping @Sendable (Input, WorkContext) throws -> Bitmap
    ) {
        let priority = job.priority
        let (subscription, _) = upstream.subscribe(key, priority: priority, deliver: { result in
            switch result {
            case .failure(let error): job.finish(.failure(error))
            case .success(let input): self.run(job, on: input, cost: cost, queue: queue, work: work)
            }
        }, start: start)
        job.install(WorkStep(subscription), at: .upstream, startedAt: priority)
    }

    /// Waits for `cost(input)` bytes of room, then runs `work` on `queue` and finishes the stage with its result.
    private func run<Input: Sendable>(
        _ job: StageJob<Bitmap>, on input: Input, cost: @escaping @Sendable (Input) -> Int, queue: WorkQueue,
        work: @escaping @Sendable (Input, WorkContext) throws -> Bitmap
    ) {
        withRoom(cost(input), for: job) { reservation in
            let priority = job.priority
            let item = queue.add(label: job.key.label, priority: priority) { context in
                try context.checkCancellation()
                return try work(input, context)
            }
            item.onFinishInline { result in
                reservation?.release()
                job.finish(result)
            }
            job.install(WorkStep(item), at: .work, startedAt: priority)
        }
    }

    // MARK: Fetch

    /// Disk cache first (network URLs only), then the fetcher; fetched network bytes are written to the disk cache
    /// in the background.
    func startFetch(_ job: StageJob<Data>, url: URL) {
        let priority = job.priority
        let disk = url.isFileURL ? nil : configuration.diskCache
        let key = url.absoluteString
        let counters = self.counters
        let diskWrites = self.diskWrites
        let item = fetchQueue.add(label: job.key.label, priority: priority, callback: { context, finish in
            if let disk, let data = disk.data(forKey: key) {
                counters.diskHits.add(1, ordering: .relaxed)
                return finish(.success(data))
            }
            guard !context.isCancelled else { return finish(.failure(CancellationError())) }
            counters.fetches.add(1, ordering: .relaxed)
            let startedAt = context.priority
            let handle = self.fetchFeedingPreviews(url, priority: startedAt) { result in
                if case .success(let data) = result, let disk {
                    diskWrites.add(label: "store " + key, priority: .utility) { _ in try disk.store(data, forKey: key) }
                }
                // A transfer cancelled from outside (not by the stage) ends the stage as a cancellation.
                finish(result.mapError { error -> any Error in error == .cancelled ? CancellationError() : error })
            }
            // The transfer is now the step to steer (a change of priority made meanwhile reaches it here).
            job.install(
                WorkStep(cancel: { handle.cancel() }, setPriority: { handle.setPriority($0) }), at: .transfer,
                startedAt: startedAt)
            context.onCancel { handle.cancel() }
        })
        item.onFinishInline { result in job.finish(result) }
        job.install(WorkStep(item), at: .work, startedAt: priority)
    }

    // MARK: Shared steps

    /// The bytes a decode holds (``ImageDecoder/workingSetBytes(for:targetSize:)``: the result, and for a resized
    /// decode the decoder's rows and the resize's ring, never the whole decoded image).
    /// Zero when the header cannot be read or is over the limit: the decoder then fails before allocating.
    static func decodeCost(of data: Data, size: TargetSize?, maxPixels: Int) -> Int {
        guard let info = try? ImageDecoder().probe(data), let pixels = info.pixelCount, pixels <= maxPixels else {
            return 0
        }
        return ImageDecoder.workingSetBytes(for: info, targetSize: size)
    }

    /// Calls `body` once `bytes` fit in the budget (at once without a budget or for zero bytes); waiting is a step
    /// of the stage, so cancelling it withdraws the reservation and raising it moves the stage up the queue.
    private func withRoom(
        _ bytes: Int, for job: StageJob<Bitmap>, _ body: @escaping @Sendable (BudgetReservation?) -> Void
    ) {
        guard !job.isCancelled else { return }
        guard let budget, bytes > 0 else { return body(nil) }
        let priority = job.priority
        let request = budget.reserve(bytes, priority: priority) { reservation in body(reservation) }
        job.install(
            WorkStep(cancel: { _ = request.cancel() }, setPriority: { request.setPriority($0) }), at: .budget,
            startedAt: priority)
    }
}
