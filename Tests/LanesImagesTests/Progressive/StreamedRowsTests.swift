import Foundation
import Lanes
import LanesImages
import LanesTesting
import Testing

/// A URL decoded in bands as its body arrives: the same rows as the file's row decoder, rows before the last byte,
/// and a body cut short failing as truncated.
@Suite("Streamed rows", .timeLimit(.minutes(5)))
struct StreamedRowsTests {
    @Test(arguments: ["chelsea.png", "rocket.jpg", "progressive/chelsea-progressive.jpg",
                      "progressive/chelsea-interlaced.png"])
    func sameRowsAsTheFile(_ name: String) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let body = try Fixture.bytes(name)
        server.route("/image", LoopbackRoute(body: body, chunkSize: 4096))
        let fetcher = DataFetcher(policy: testPolicy())
        let url = server.url("/image")
        let (streamed, whole) = try await onDedicatedThread {
            let rows = try StreamedRows(url: url, fetcher: fetcher)
            return (try Bitmap(readingAllRowsOf: rows), try Bitmap(readingAllRowsOf: ImageRowDecoder(data: Data(body))))
        }
        #expect(streamed.pixels == whole.pixels)
    }

    @Test("A baseline JPEG's rows come before its last byte")
    func rowsBeforeTheEnd() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let body = try Fixture.bytes("rocket.jpg")
        server.route("/image", LoopbackRoute(body: body, ending: .gated([(body.count / 2, "rest")])))
        let fetcher = DataFetcher(policy: testPolicy())
        let url = server.url("/image")
        let rowsBeforeTheEnd = try await onDedicatedThread { () -> Int in
            let rows = try StreamedRows(url: url, fetcher: fetcher)
            var row = [UInt8](repeating: 0, count: rows.bytesPerRow)
            try row.withUnsafeMutableBytes { try rows.readRows(1, into: $0.baseAddress!, bytesPerRow: rows.bytesPerRow) }
            return rows.rowsRead
        }
        #expect(rowsBeforeTheEnd == 1) // read while the server still held the second half
        server.open("rest")
    }

    @Test("A body cut short fails as truncated")
    func truncatedBody() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let body = try Fixture.bytes("rocket.jpg")
        server.route("/image", LoopbackRoute(body: Array(body.prefix(body.count / 2)), sendsContentLength: false))
        let fetcher = DataFetcher(policy: testPolicy(attempts: 1))
        let url = server.url("/image")
        let failure = await failureOnDedicatedThread {
            _ = try Bitmap(readingAllRowsOf: StreamedRows(url: url, fetcher: fetcher))
        }
        #expect(failure as? ImageError == .truncated)
    }

    /// Hands out `head` at once, then holds the rest of the body until cancelled (a stalled download).
    final class HeldFetcher: DataFetching {
        final class Handle: FetchHandle {
            let cancelled = Gate()
            func cancel() { cancelled.open() }
            func setPriority(_ priority: WorkPriority) {}
        }

        let head: Data
        let handle = Handle()
        let started = Gate()

        init(head: Data) { self.head = head }

        func fetch(_ url: URL, priority: WorkPriority,
                   completion: @escaping @Sendable (Result<Data, FetchError>) -> Void) -> any FetchHandle {
            handle
        }

        func fetch(_ url: URL, priority: WorkPriority, chunks: @escaping @Sendable (Data) -> Void,
                   completion: @escaping @Sendable (Result<Void, FetchError>) -> Void) -> any FetchHandle {
            chunks(head)
            started.open()
            return handle
        }
    }

    @Test("Cancelling the work item cancels the held fetch and wakes the read waiting for its bytes")
    func cancelWakesTheWait() async throws {
        let body = try Fixture.data("rocket.jpg")
        let fetcher = HeldFetcher(head: body.prefix(body.count / 2))
        let thrown = Recorder<String>()
        let reads = WorkQueue("reads", maxConcurrency: 1)
        let read = reads.add(label: "read") { context in
            do {
                _ = try Bitmap(readingAllRowsOf: StreamedRows(url: URL(string: "https://example.com/a.jpg")!,
                                                              fetcher: fetcher, context: context, stallLimit: nil))
            } catch {
                thrown.append("\(error)")
                throw error
            }
        }
        await fetcher.started.wait()
        read.cancel()
        await fetcher.handle.cancelled.wait()
        await #expect(throws: CancellationError.self) { try await read.value }
        #expect(thrown.elements == ["\(ImageError.cancelled)"])
    }

    @Test("A download that stops sending ends the read waiting for it after the stall limit")
    func stallEndsTheWait() async throws {
        let body = try Fixture.data("rocket.jpg")
        let fetcher = HeldFetcher(head: body.prefix(body.count / 2))
        let clock = VirtualClock()
        let url = URL(string: "https://example.com/a.jpg")!
        let reading = Task {
            await onDedicatedThread { () -> String in
                do {
                    _ = try Bitmap(readingAllRowsOf: StreamedRows(url: url, fetcher: fetcher, stallLimit: .seconds(5),
                                                                  clock: clock))
                    return "read"
                } catch {
                    return "\(error)"
                }
            }
        }
        try await waitUntil("the read waits for the rest") { clock.scheduledCount == 1 }
        clock.advance(by: .seconds(4))
        #expect(clock.scheduledCount == 1)   // not yet
        clock.advance(by: .seconds(1))
        #expect(await reading.value == "\(FetchError.timedOut(url: url.absoluteString))")
        await fetcher.handle.cancelled.wait()   // the rows were dropped: their fetch is cancelled
    }
}
