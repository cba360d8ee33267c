import Foundation
import Lanes
import LanesImages
import LanesTesting
import Testing

/// The in-memory network: per-URL bodies in chunks, failures, stalls that end only when cancelled, a completion
/// exactly once, and the priorities it was asked for.
@Suite("MemoryFetcher", .timeLimit(.minutes(5)))
struct MemoryFetcherTests {
    static let a = URL(string: "https://example.invalid/a.png")!
    static let b = URL(string: "https://example.invalid/b.png")!

    static func result(_ fetcher: MemoryFetcher, _ url: URL) async -> Result<Data, FetchError> {
        await withCheckedContinuation { done in _ = fetcher.fetch(url, priority: .normal) { done.resume(returning: $0) } }
    }

    @Test("each URL gets its own body, in chunks of the size asked; an unknown URL gets 404")
    func perURLBodies() async throws {
        let fetcher = MemoryFetcher([Self.a: .body(Data([1, 2, 3, 4, 5]), chunkSize: 2), Self.b: .body(Data([9]))])
        #expect(try await Self.result(fetcher, Self.a).get() == Data([1, 2, 3, 4, 5]))
        #expect(try await Self.result(fetcher, Self.b).get() == Data([9]))
        let other = URL(string: "https://example.invalid/none")!
        #expect(await Self.result(fetcher, other) == .failure(.httpStatus(code: 404, url: other.absoluteString)))

        let chunks = Recorder<Int>()
        let ended = Gate()
        _ = fetcher.fetch(Self.a, priority: .visible, chunks: { chunks.append($0.count) }) { _ in ended.open() }
        await ended.wait()
        #expect(chunks.elements == [2, 2, 1])
    }

    @Test("a failure after some bytes hands them out, then fails")
    func failureAfterBytes() async throws {
        let error = FetchError.shortBody(url: Self.a.absoluteString, received: 3, expected: 10)
        let fetcher = MemoryFetcher([Self.a: .failure(error, after: Data([1, 2, 3]))])
        let chunks = Recorder<Data>()
        let ended = Gate()
        let outcome = LockedValue<Result<Void, FetchError>?>(nil)
        _ = fetcher.fetch(Self.a, priority: .normal, chunks: { chunks.append($0) }) { result in
            outcome.withLock { $0 = result }
            ended.open()
        }
        await ended.wait()
        #expect(chunks.elements == [Data([1, 2, 3])])
        guard case .failure(let failure)? = outcome.withLock({ $0 }) else {
            Issue.record("it did not fail")
            return
        }
        #expect(failure == error)
    }

    @Test("a stalled fetch ends only when cancelled, with .cancelled, before cancel() returns, once")
    func stallThenCancel() async throws {
        let fetcher = MemoryFetcher([Self.a: .stall(after: Data([7]))])
        let first = Gate()
        let results = Recorder<Result<Void, FetchError>>()
        let handle = fetcher.fetch(Self.a, priority: .prefetch, chunks: { _ in first.open() }) { results.append($0) }
        await first.wait()
        #expect(results.elements.isEmpty)
        handle.cancel()
        #expect(results.elements.count == 1)
        if case .failure(.cancelled)? = results.elements.first {} else { Issue.record("\(results.elements)") }
        handle.cancel()
        #expect(results.elements.count == 1)
    }

    @Test("it records the priority each fetch started at, and follows changes")
    func priorities() async throws {
        let fetcher = MemoryFetcher([Self.a: .stall()])
        let handle = fetcher.fetch(Self.a, priority: .prefetch) { _ in }
        #expect(fetcher.starts.map(\.url) == [Self.a] && fetcher.starts.map(\.priority) == [.prefetch])
        #expect(fetcher.priority(of: Self.a) == .prefetch)
        handle.setPriority(.visible)
        #expect(fetcher.priority(of: Self.a) == .visible)
        #expect(fetcher.priority(of: Self.b) == nil)
        handle.cancel()
    }
}
