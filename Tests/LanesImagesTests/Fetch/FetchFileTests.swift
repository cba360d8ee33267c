import Foundation
import Lanes
import LanesImages
import LanesTesting
import Testing

/// A fresh temporary directory, removed by `cleanUp()`.
private struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("lanes-fetch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String, _ bytes: [UInt8]) throws -> URL {
        let file = url.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return file
    }

    func cleanUp() { try? FileManager.default.removeItem(at: url) }
}

@Suite("Fetch from file URLs", .timeLimit(.minutes(5)))
struct FetchFileTests {
    @Test("a file's bytes arrive, read on the file queue rather than inside fetch")
    func readsFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let bytes = patternBytes(2 * 1024 * 1024 + 17)  // more than one read chunk
        let file = try directory.file("photo.png", bytes)
        let files = ManualExecutor()
        let fetcher = DataFetcher(fileQueue: WorkQueue("files", maxConcurrency: 1, executor: files))
        let probe = FetchProbe()
        _ = fetcher.fetch(file, priority: .normal, completion: probe.completion)
        #expect(probe.count == 0)
        files.runAll()
        let result = try #require(await probe.result())
        #expect(try result.get() == Data(bytes))
    }

    @Test("a missing file fails with fileNotFound naming the path")
    func missingFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let missing = directory.url.appendingPathComponent("nope.png")
        let probe = FetchProbe()
        _ = DataFetcher().fetch(missing, priority: .normal, completion: probe.completion)
        let error = await probe.error()
        #expect(error == .fileNotFound(path: missing.path))
        #expect(error?.description == "no file at \(missing.path)")
    }

    @Test("a directory fails with a file error saying so")
    func directory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let probe = FetchProbe()
        _ = DataFetcher().fetch(directory.url, priority: .normal, completion: probe.completion)
        #expect(await probe.error() == .file(path: directory.url.path, reason: "it is a directory"))
    }

    @Test("an empty file fails with emptyBody; one above maxBytes with tooLarge")
    func emptyAndTooLarge() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let empty = try directory.file("empty.png", [])
        let big = try directory.file("big.png", patternBytes(2001))
        let fetcher = DataFetcher(policy: FetchPolicy(maxBytes: 2000))
        let emptyProbe = FetchProbe(), bigProbe = FetchProbe()
        _ = fetcher.fetch(empty, priority: .normal, completion: emptyProbe.completion)
        _ = fetcher.fetch(big, priority: .normal, completion: bigProbe.completion)
        #expect(await emptyProbe.error() == .emptyBody(url: empty.absoluteString))
        #expect(await bigProbe.error() == .tooLarge(url: big.absoluteString, limit: 2000))
    }

    @Test("cancelling a queued read completes it with .cancelled at once; the read never runs")
    func cancelQueuedRead() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = try directory.file("a.png", [1, 2, 3])
        let files = ManualExecutor()
        let fetcher = DataFetcher(fileQueue: WorkQueue("files", maxConcurrency: 1, executor: files))
        let probe = FetchProbe()
        let handle = fetcher.fetch(file, priority: .normal, completion: probe.completion)
        handle.cancel()
        #expect(await probe.error(timeout: 0) == .cancelled)
        files.runAll()
        handle.cancel()
        #expect(probe.count == 1)
    }
}
