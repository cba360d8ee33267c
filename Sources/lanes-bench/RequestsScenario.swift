import Foundation
import Lanes
import LanesImages
import LanesLists
import Synchronization

// The per-request overhead of the list loader and the image pipeline, with the work itself made free: requests a
// second answered from the memory cache, and coalesced misses (100 identical requests per key in flight together,
// one job each, released at once). The pipeline's fetcher and decoder are stand-ins, so only its bookkeeping counts.

/// The `requests` row.
func requestsScenario(repeats: Int, quick: Bool) async -> Row {
    let keys = quick ? 200 : 2_000, perKey = 100
    let n = keys * perKey
    var row = Row(scenario: "requests", n: n)
    let loaderHits = await median(repeats) { await loaderHitSeconds(keys: keys, n: n) }
    let loaderMisses = await median(repeats) { await loaderCoalescedSeconds(keys: keys, perKey: perKey) }
    let pipelineHits = await median(repeats) { await pipelineHitSeconds(keys: keys, n: n) }
    let pipelineMisses = await median(repeats) { await pipelineCoalescedSeconds(keys: keys, perKey: perKey) }
    row.time("loader_hit", loaderHits)
    row.time("loader_coalesced", loaderMisses)
    row.time("pipeline_hit", pipelineHits)
    row.time("pipeline_coalesced", pipelineMisses)
    row.count("loader_hit_per_s", (Double(n) / loaderHits).rounded())
    row.count("loader_coalesced_per_s", (Double(n) / loaderMisses).rounded())
    row.count("pipeline_hit_per_s", (Double(n) / pipelineHits).rounded())
    row.count("pipeline_coalesced_per_s", (Double(n) / pipelineMisses).rounded())
    row.notes.append("\(keys) keys; coalesced: \(perKey) identical requests per key in flight, then every job released")
    return row
}

/// A loader whose jobs wait until the bench releases them (each job's item holds its `finish` until then; once
/// released, jobs finish at once).
private func heldLoader(delivery: WorkQueue) -> (ContentLoader<Int, Int>, release: @Sendable () -> Void) {
    let held = LockedValue<[@Sendable () -> Void]?>([])
    let work = WorkQueue("bench jobs", maxConcurrency: 1 << 16)
    let loader = ContentLoader<Int, Int>(deliveryQueue: delivery, cache: CostLimitedCache(costLimit: 1 << 30)) { key in
        work.add(label: "job", priority: .background, callback: { _, finish in
            let holds = held.withLock { held -> Bool in
                guard held != nil else { return false }
                held?.append { finish(.success(key)) }
                return true
            }
            if !holds { finish(.success(key)) }
        })
    }
    let release: @Sendable () -> Void = {
        for finish in held.withLock({ held in defer { held = nil }; return held ?? [] }) { finish() }
    }
    return (loader, release)
}

/// Counts deliveries, and lets the bench await a number of them with a deadline (no polling in the timed part).
private final class Deliveries: Sendable {
    private struct State {
        var count = 0
        var target = Int.max
        var waiter: CheckedContinuation<Bool, Never>?
    }

    private let state = LockedValue(State())

    func add() {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.count += 1
            guard state.count >= state.target else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: true)
    }

    var count: Int { state.withLock { $0.count } }

    /// Waits until `target` deliveries arrived; false if `seconds` passed first.
    func wait(for target: Int, seconds: Double = 120) async -> Bool {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                guard state.count < target else { return true }
                state.target = target
                state.waiter = continuation
                return false
            }
            if done { return continuation.resume(returning: true) }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                let waiter = self.state.withLock { state in
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume(returning: false)
            }
        }
    }
}

private func loaderHitSeconds(keys: Int, n: Int) async -> Double {
    let delivery = WorkQueue("bench delivery", maxConcurrency: 1)
    let (loader, _) = heldLoader(delivery: delivery)
    for key in 0..<keys { loader.cache.insert(key, forKey: key) }
    let delivered = Atomic(0)
    let start = now()
    for index in 0..<n { loader.request(index % keys) { _ in delivered.add(1, ordering: .relaxed) } }
    let elapsed = seconds(since: start)
    precondition(delivered.load(ordering: .relaxed) == n, "a cached request was not answered synchronously")
    return elapsed
}

private func loaderCoalescedSeconds(keys: Int, perKey: Int) async -> Double {
    let delivery = WorkQueue("bench delivery", maxConcurrency: 1)
    let (loader, release) = heldLoader(delivery: delivery)
    let delivered = Deliveries()
    let start = now()
    for key in 0..<keys {
        for _ in 0..<perKey { loader.request(key) { _ in delivered.add() } }
    }
    release()
    let answered = await delivered.wait(for: keys * perKey)
    let elapsed = seconds(since: start)
    precondition(answered, "a coalesced request was not answered: \(delivered.count) of \(keys * perKey)")
    return elapsed
}

/// Hands every URL the same bytes: at once, or (holding) once released; after the release, at once.
private final class HeldFetcher: DataFetching, Sendable {
    private struct Handle: FetchHandle {
        func cancel() {}
        func setPriority(_ priority: WorkPriority) {}
    }

    /// The transfers waiting, or nil once released.
    private let held: LockedValue<[@Sendable (Result<Data, FetchError>) -> Void]?>

    init(holds: Bool) { held = LockedValue(holds ? [] : nil) }

    func fetch(
        _ url: URL, priority: WorkPriority, completion: @escaping @Sendable (Result<Data, FetchError>) -> Void
    ) -> any FetchHandle {
        let holding = held.withLock { held -> Bool in
            guard held != nil else { return false }
            held?.append(completion)
            return true
        }
        if !holding { completion(.success(Data([1]))) }
        return Handle()
    }

    /// Answers the transfers waiting, and every later one at once. (A held transfer keeps its fetch slot, so only
    /// the first few keys' transfers have started; the others' stages wait in the fetch queue, coalescing too.)
    func release() {
        for completion in held.withLock({ held in defer { held = nil }; return held ?? [] }) {
            completion(.success(Data([1])))
        }
    }
}

/// Decodes nothing: every image is the same 1×1 bitmap.
private struct StandInDecoder: ImageDecoding {
    func decode(_ data: Data, targetSize: TargetSize?, maxPixels: Int) throws -> Bitmap {
        Bitmap(width: 1, height: 1, filledWith: RGBA(red: 1, green: 2, blue: 3))
    }
}

private func benchPipeline(holds: Bool) -> (ImagePipeline, HeldFetcher) {
    let fetcher = HeldFetcher(holds: holds)
    let configuration = ImagePipelineConfiguration(fetcher: fetcher, decoder: StandInDecoder(), decodedBytesLimit: 0)
    return (ImagePipeline(configuration: configuration), fetcher)
}

private func benchRequests(_ keys: Int) -> [ImageRequest] {
    (0..<keys).map { ImageRequest(url: URL(string: "https://bench.test/\($0).png")!) }
}

private func pipelineHitSeconds(keys: Int, n: Int) async -> Double {
    let (pipeline, _) = benchPipeline(holds: false)
    let requests = benchRequests(keys)
    let warmed = Deliveries()
    for request in requests { pipeline.load(request, on: nil) { _ in warmed.add() } }
    let warm = await warmed.wait(for: keys)
    precondition(warm, "the pipeline was not warmed")
    let delivered = Atomic(0)
    let start = now()
    for index in 0..<n { pipeline.load(requests[index % keys], on: nil) { _ in delivered.add(1, ordering: .relaxed) } }
    let elapsed = seconds(since: start)
    precondition(delivered.load(ordering: .relaxed) == n, "a cached image was not answered synchronously")
    return elapsed
}

private func pipelineCoalescedSeconds(keys: Int, perKey: Int) async -> Double {
    let (pipeline, fetcher) = benchPipeline(holds: true)
    let requests = benchRequests(keys)
    let delivered = Deliveries()
    let start = now()
    for request in requests {
        for _ in 0..<perKey { pipeline.load(request, on: nil) { _ in delivered.add() } }
    }
    fetcher.release()
    let answered = await delivered.wait(for: keys * perKey)
    let elapsed = seconds(since: start)
    precondition(answered, "a coalesced image request was not answered: \(delivered.count) of \(keys * perKey)")
    return elapsed
}
