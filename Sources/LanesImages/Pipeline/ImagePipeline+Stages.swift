import Foundation
import Lanes
import LanesLists

/// A stage's input and the room reserved for its work in the memory budget (given back when the work ends).
struct Room<Input: Sendable>: Sendable {
    let input: Input
    let reservation: BudgetReservation?
}

// How each kind of stage runs.
extension ImagePipeline {
    /// The stage whose result answers `request`: the one in flight, or one made now, the last of its chain unless
    /// `times` is given (an upstream stage adds its steps' work time to its consumer's).
    ///
    /// The stages are work items of the core's graph, keyed by prefix: fetch → decode → first processor → second …,
    /// each keyed by (URL, size, processors so far), so `[a]` and `[a, b]` in flight share the run of `a`. Each
    /// consumes its upstream stage (a typed edge: consumers lend their priority up the chain, and a stage nobody needs
    /// any more is cancelled, through the chain), unless the memory cache holds the upstream result (the decoded
    /// original, a shorter chain's result), which it then uses without fetching again. A stage that fails passes its
    /// error down the chain (`.fail`). Items are made at `.background`: their consumers alone set their priority.
    ///
    /// A stage's result goes to the memory cache as it ends, before the table lets go of it (the table's handler
    /// comes second: a request arriving in between finds the stage or the cache, never neither), when a request still
    /// waiting for it asked for that (``CacheWrites``). When the last stage succeeds, what its chain's decode and
    /// processor steps took on their threads goes into ``costs`` (steps joined in flight or read from the memory cache
    /// add nothing: they cost this request nothing more; the fetch waits rather than works).
    func stage(for request: ImageRequest, times chain: LockedValue<Double>? = nil) -> WorkItem<Bitmap> {
        bitmaps.item(for: request.finalKey) { key in
            let times = chain ?? LockedValue(0.0)
            let stage = makeWork(for: request, times: times)
            let cacheWrites = self.cacheWrites, memoryCache = self.memoryCache
            let costs = chain == nil ? self.costs : nil
            stage.onFinishInline { result in
                guard case .success(let bitmap) = result else { return }
                if cacheWrites.wanted(key) { memoryCache.insert(bitmap, forKey: request) }
                costs?.record(seconds: times.withLock { $0 })
            }
            return stage
        }.item
    }

    private func makeWork(for request: ImageRequest, times: LockedValue<Double>) -> WorkItem<Bitmap> {
        let counters = self.counters
        let label = request.finalKey.label
        guard let processor = request.processors.last else {
            let size = request.targetSize
            let decoder = configuration.decoder, maxPixels = configuration.maxPixels
            let fetchKey = request.fetchKey(thumbnails: thumbnails(for: request) != nil)
            let fetch = fetchStage(for: request)
            let cacheWrites = self.cacheWrites
            return run(
                after: fetch, label: label, times: times,
                // The fetched body is held until the decode ends, so it counts too (unless the header already dooms
                // the decode: it then fails before allocating, and the body goes with it).
                cost: { body in
                    if let arrived = body.arrived, arrived.serves(size, decoder: decoder) {
                        return arrived.cost(for: size)
                    }
                    if let source = body.thumbnail {
                        return Self.thumbnailDecodeCost(body, source, size: size, maxPixels: maxPixels)
                    }
                    let cost = Self.decodeCost(of: body.data, size: size, maxPixels: maxPixels)
                    return cost == 0 ? 0 : cost + body.data.count
                }, on: decodeQueue
            ) { body, _ in
                // Decoded as it arrived (previews): not decoded again.
                if let arrived = body.arrived, arrived.serves(size, decoder: decoder) {
                    return try arrived.image(for: size)
                }
                if let source = body.thumbnail {
                    return try self.decodeThumbnail(body, source: source, size: size, writes: cacheWrites.wanted(fetchKey))
                }
                counters.count(\.decodes)
                return try decoder.decode(body.data, targetSize: size, maxPixels: maxPixels)
            }
        }
        if let banded = bandedWork(for: request, times: times) { return banded }
        var upstream = request
        upstream.processors.removeLast()
        let input: WorkItem<Bitmap>
        if request.cachePolicy.contains(.readsMemory), let cached = memoryCache[upstream] {
            counters.count(\.intermediateHits)
            input = WorkItem(label: label, priority: .background) { _ in cached }
            Wiring.enqueue(input, on: callerThread)
        } else {
            input = stage(for: upstream, times: times)
        }
        return run(
            after: input, label: label, times: times, cost: { processor.workingSetBytes(for: $0) }, on: processQueue
        ) {
            bitmap, context in
            counters.count(\.processorRuns)
            return try processor.process(bitmap, isCancelled: { context.isCancelled })
        }
    }

    /// The fetch stage of `request`'s bytes (a local file's thumbnail fetch when a thumbnail cache serves it): the one
    /// in flight, or one made now.
    func fetchStage(for request: ImageRequest) -> WorkItem<FetchedBody> {
        let url = request.url, size = request.targetSize
        let readsDisk = request.cachePolicy.contains(.readsDisk)
        let thumbnails = self.thumbnails(for: request)
        return fetches.item(for: request.fetchKey(thumbnails: thumbnails != nil)) {
            makeFetch($0, url: url, readsDisk: readsDisk, thumbnails: thumbnails.map { ($0.cache, $0.size, size) })
        }.item
    }

    /// Runs `work` on `queue` with `input`'s output, once `cost(output)` bytes fit in the budget. The wait for room
    /// is an item of its own (``ImagePipeline/callerThread``), so it holds no slot of `queue`: it follows the stage's
    /// priority (`onPriorityChange`) and is withdrawn when the stage is cancelled. The time `work` takes is added to
    /// `times`.
    func run<Input: Sendable>(
        after input: WorkItem<Input>, label: String, times: LockedValue<Double>,
        cost: @escaping @Sendable (Input) -> Int, on queue: WorkQueue,
        work untimed: @escaping @Sendable (Input, WorkContext) throws -> Bitmap
    ) -> WorkItem<Bitmap> {
        let work: @Sendable (Input, WorkContext) throws -> Bitmap = { input, context in
            try context.checkCancellation()
            let start = ContinuousClock.now
            defer {
                let seconds = Double((ContinuousClock.now - start).laneNanoseconds) / 1e9
                times.withLock { $0 += seconds }
            }
            return try untimed(input, context)
        }
        guard let budget else {
            return queue.add(consuming: input, policy: .fail, label: label, priority: .background, work)
        }
        let room = callerThread.add(
            consuming: input, policy: .fail, label: "room " + label, priority: .background,
            callback: { (value: Input, context: WorkContext, finish) in
                let bytes = cost(value)
                guard bytes > 0 else { return finish(.success(Room(input: value, reservation: nil))) }
                let startedAt = context.priority
                let request = budget.reserve(bytes, priority: startedAt) { reservation in
                    finish(.success(Room(input: value, reservation: reservation)))
                }
                context.onPriorityChange(since: startedAt) { request.setPriority($0) }
                context.onCancel { if request.cancel() { finish(.failure(CancellationError())) } }
            })
        let item = queue.add(consuming: room, policy: .fail, label: label, priority: .background) { room, context in
            try work(room.input, context)
        }
        // The room is given back when the work ends, however it ends.
        item.onFinishInline { _ in room.onFinishInline { if case .success(let room) = $0 { room.reservation?.release() } } }
        return item
    }

    // MARK: Fetch

    /// Disk cache first (network URLs only, when the stage's requests read it) — for a thumbnail fetch the thumbnail
    /// cache, whose current thumbnail is the body —, then the fetcher (feeding previews to whoever listens), whose
    /// transfer follows the stage's priority; fetched network bytes are written to the disk cache in the background
    /// when a request still waiting for them asked for that (``CacheWrites``).
    private func makeFetch(
        _ stage: StageKey, url: URL, readsDisk: Bool,
        thumbnails: (cache: ThumbnailCache, size: ThumbnailSize, target: TargetSize?)?
    ) -> WorkItem<FetchedBody> {
        let disk = url.isFileURL ? nil : configuration.diskCache
        let key = url.absoluteString
        let counters = self.counters, cacheWrites = self.cacheWrites
        let diskWrites = self.diskWrites
        // Enqueued once its consumers are wired (``Wiring``): the transfer starts at the priority they lend it.
        let fetch = WorkItem<FetchedBody>(label: stage.label, priority: .background) { context, finish in
            if readsDisk, let disk, let data = disk.data(forKey: key) {
                counters.count(\.diskHits)
                return finish(.success(FetchedBody(data: data)))
            }
            let looked = thumbnails.map {
                Self.lookUpThumbnail(($0.cache, $0.size), target: $0.target, url: url, counters: counters)
            }
            if let cached = looked?.cached { return finish(.success(cached)) }
            guard !context.isCancelled else { return finish(.failure(CancellationError())) }
            counters.count(\.fetches)
            let startedAt = context.priority
            let handle = self.fetchFeedingPreviews(url, priority: startedAt) { result in
                if case .success(let body) = result, let disk, cacheWrites.wanted(stage) {
                    diskWrites.add(label: "store " + key, priority: .utility) { _ in
                        try disk.store(body.data, forKey: key)
                    }
                }
                // A transfer cancelled from outside (not by the stage) ends the stage as a cancellation.
                finish(result.map { body in
                    var body = body
                    body.thumbnail = looked?.source
                    return body
                }.mapError { error -> any Error in error == .cancelled ? CancellationError() : error })
            }
            context.onPriorityChange(since: startedAt) { handle.setPriority($0) }
            context.onCancel { handle.cancel() }
        }
        Wiring.enqueue(fetch, on: fetchQueue)
        return fetch
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
}
