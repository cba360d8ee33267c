import Foundation
import Lanes
import LanesLists
import Synchronization

// How each kind of stage runs. A stage advances through steps — upstream stage, memory budget, work item — and
// installs each in its control (ordinals 0, 1, 2), so a cancel or a priority change reaches whichever is current.
extension ImagePipeline {
    /// Starts the final stage of `request`: a decode, or a processor chain on top of one.
    func start(_ stage: Stage<Bitmap>, for request: ImageRequest) {
        if request.processors.isEmpty {
            startDecode(stage, url: request.url, size: request.targetSize)
        } else {
            startProcess(stage, request: request)
        }
    }

    // MARK: Fetch

    /// Disk cache first (network URLs only), then the fetcher; fetched network bytes are written to the disk cache
    /// in the background.
    func startFetch(_ stage: Stage<Data>, url: URL) {
        let control = stage.control
        let priority = control.priority
        let fetcher = configuration.fetcher
        let disk = url.isFileURL ? nil : configuration.diskCache
        let key = url.absoluteString
        let counters = self.counters
        let diskWrites = self.diskWrites
        let transfer = LockedValue(TransferSlot(priority: priority))
        let item = fetchQueue.add(label: stage.key.label, priority: priority, callback: { context, finish in
            if let disk, let data = disk.data(forKey: key) {
                counters.diskHits.add(1, ordering: .relaxed)
                return finish(.success(data))
            }
            guard !context.isCancelled else { return finish(.failure(CancellationError())) }
            counters.fetches.add(1, ordering: .relaxed)
            let startedAt = context.priority
            let handle = fetcher.fetch(url, priority: startedAt) { result in
                if case .success(let data) = result, let disk {
                    diskWrites.add(label: "store " + key, priority: .utility) { _ in try disk.store(data, forKey: key) }
                }
                finish(result.mapError { $0 })
            }
            transfer.withLock { $0.handle = handle }
            // A change of priority while the fetch was being started reached no handle: apply it now.
            applyLatestPriority(
                alreadyApplied: startedAt, wanted: { transfer.withLock { $0.priority } }, apply: handle.setPriority)
            context.onCancel { handle.cancel() }
        })
        item.onFinishInline { result in stage.finish(result) }
        let step = StageStep(cancel: { item.cancel() }, setPriority: { newPriority in
            item.priority = newPriority
            let handle = transfer.withLock { slot in
                slot.priority = newPriority
                return slot.handle
            }
            if let handle {
                applyLatestPriority(wanted: { transfer.withLock { $0.priority } }, apply: handle.setPriority)
            }
        })
        control.install(step, ordinal: 0, startedAt: priority)
    }

    // MARK: Decode

    /// Waits for the URL's bytes, then for room in the budget, then decodes at `size`.
    func startDecode(_ stage: Stage<Bitmap>, url: URL, size: TargetSize?) {
        let control = stage.control
        let priority = control.priority
        let (upstream, _) = fetches.subscribe(
            .fetch(url: url.absoluteString), priority: priority, isRequest: false,
            start: { self.startFetch($0, url: url) },
            deliver: { result in
                switch result {
                case .failure(let error): self.finish(stage, with: .failure(error))
                case .success(let data): self.decode(data, stage: stage, size: size)
                }
            })
        control.install(upstream, ordinal: 0, startedAt: priority)
    }

    private func decode(_ data: Data, stage: Stage<Bitmap>, size: TargetSize?) {
        let decoder = configuration.decoder
        let maxPixels = configuration.maxPixels
        let counters = self.counters
        // The fetched body is held until the decode ends, so it counts too (unless the header already dooms the
        // decode: it then fails before allocating, and the body goes with it).
        let cost = Self.decodeCost(of: data, size: size, maxPixels: maxPixels)
        let bytes = cost == 0 ? 0 : cost + data.count
        withRoom(bytes, for: stage) { reservation in
            let control = stage.control
            let priority = control.priority
            let item = self.decodeQueue.add(label: stage.key.label, priority: priority) { context in
                try context.checkCancellation()
                counters.decodes.add(1, ordering: .relaxed)
                return try decoder.decode(data, targetSize: size, maxPixels: maxPixels)
            }
            item.onFinishInline { result in
                reservation?.release()
                self.finish(stage, with: result)
            }
            control.install(StageStep(item), ordinal: 2, startedAt: priority)
        }
    }

    /// The bytes a decode holds (``ImageDecoder/workingSetBytes(for:targetSize:)``: the result, and for a resized
    /// decode the decoder's rows and the resize's ring, never the whole decoded image).
    /// Zero when the header cannot be read or is over the limit: the decoder then fails before allocating.
    static func decodeCost(of data: Data, size: TargetSize?, maxPixels: Int) -> Int {
        guard let info = try? ImageDecoder().probe(data), let pixels = info.pixelCount, pixels <= maxPixels else {
            return 0
        }
        return ImageDecoder.workingSetBytes(for: info, targetSize: size)
    }

    // MARK: Process

    /// Waits for the decoded image, then for room, then runs the processor chain.
    func startProcess(_ stage: Stage<Bitmap>, request: ImageRequest) {
        let control = stage.control
        let priority = control.priority
        let chain = ProcessorChain(request.processors)
        let (upstream, _) = bitmaps.subscribe(
            request.decodeKey, priority: priority, isRequest: false,
            start: { self.startDecode($0, url: request.url, size: request.targetSize) },
            deliver: { result in
                switch result {
                case .failure(let error): self.finish(stage, with: .failure(error))
                case .success(let bitmap): self.process(bitmap, chain: chain, stage: stage)
                }
            })
        control.install(upstream, ordinal: 0, startedAt: priority)
    }

    private func process(_ bitmap: Bitmap, chain: ProcessorChain, stage: Stage<Bitmap>) {
        let counters = self.counters
        withRoom(chain.workingSetBytes(for: bitmap), for: stage) { reservation in
            let control = stage.control
            let priority = control.priority
            let item = self.processQueue.add(label: stage.key.label, priority: priority) { context in
                try context.checkCancellation()
                counters.processorRuns.add(1, ordering: .relaxed)
                return try chain.process(bitmap, isCancelled: { context.isCancelled })
            }
            item.onFinishInline { result in
                reservation?.release()
                self.finish(stage, with: result)
            }
            control.install(StageStep(item), ordinal: 2, startedAt: priority)
        }
    }

    // MARK: Shared steps

    /// Calls `body` once `bytes` fit in the budget (at once without a budget or for zero bytes); waiting is a step
    /// of `stage`, so cancelling the stage withdraws the reservation and raising it moves the stage up the queue.
    private func withRoom(
        _ bytes: Int, for stage: Stage<Bitmap>, _ body: @escaping @Sendable (BudgetReservation?) -> Void
    ) {
        let control = stage.control
        guard !control.isCancelled else { return }
        guard let budget, bytes > 0 else { return body(nil) }
        let priority = control.priority
        let request = budget.reserve(bytes, priority: priority) { reservation in body(reservation) }
        control.install(
            StageStep(cancel: { _ = request.cancel() }, setPriority: { request.setPriority($0) }),
            ordinal: 1, startedAt: priority)
    }

    /// Caches a final bitmap that a request asked for, then delivers to the stage's consumers.
    func finish(_ stage: Stage<Bitmap>, with result: Result<Bitmap, any Error>) {
        if case .success(let bitmap) = result, stage.servesRequests {
            memoryCache.insert(bitmap, forKey: stage.key)
        }
        stage.finish(result)
    }
}

/// The transfer of a running fetch (once the fetcher has returned its handle) and the priority it should have.
struct TransferSlot: Sendable {
    var handle: (any FetchHandle)?
    var priority: WorkPriority
}
