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
        let failure = await onDedicatedThread { () -> (any Error)? in
            do {
                _ = try Bitmap(readingAllRowsOf: StreamedRows(url: url, fetcher: fetcher))
                return nil
            } catch {
                return error
            }
        }
        #expect(failure as? ImageError == .truncated)
    }
}
