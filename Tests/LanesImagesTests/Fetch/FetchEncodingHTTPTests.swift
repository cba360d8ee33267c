import Foundation
import Lanes
import LanesImages
import LanesTesting
import Testing

/// HTTP as servers send it, against the loopback server: `Content-Encoding` gzip and deflate with a `Content-Length`
/// of the encoded body (larger or smaller than the decoded one), chunked and encoded together, and the hostile
/// variants (cut short, corrupt, a bomb), each ending in one line.
@Suite("Fetch: Content-Encoding and chunked bodies", .timeLimit(.minutes(5)))
struct FetchEncodingHTTPTests {
    /// Bytes that do not compress: their gzip (stored blocks) is larger than they are, as a gzipped PNG is.
    static let incompressible = patternBytes(222_206)

    @Test("gzip with the encoded Content-Length (88 bytes more than the decoded body) decodes in one request")
    func gzipLargerThanDecoded() async throws {
        let encoded = Gzip.stored(Self.incompressible)
        #expect(encoded.count > Self.incompressible.count)
        let harness = try FetchHarness(policy: testPolicy(attempts: 3))
        defer { harness.stop() }
        harness.server.route("/a.png", LoopbackRoute(body: encoded, headers: ["Content-Encoding": "gzip"]))
        let probe = FetchProbe()
        _ = harness.fetch("/a.png", into: probe)
        #expect(try #require(await probe.result()).get() == Data(Self.incompressible))
        #expect(harness.server.requestCount("/a.png") == 1)
    }

    @Test("deflate with the encoded Content-Length decodes, as a zlib stream (RFC 9110) or raw (what some servers send)",
          arguments: [true, false])
    func deflateWithLength(zlibWrapped: Bool) async throws {
        let zlib = TinyPNG.zlibStored(Self.incompressible)
        let body = zlibWrapped ? zlib : Array(zlib[2..<(zlib.count - 4)])
        let harness = try FetchHarness(policy: testPolicy(attempts: 1))
        defer { harness.stop() }
        harness.server.route("/d", LoopbackRoute(body: body, headers: ["Content-Encoding": "deflate"]))
        let probe = FetchProbe()
        _ = harness.fetch("/d", into: probe)
        #expect(try #require(await probe.result()).get() == Data(Self.incompressible))
    }

    @Test("zstd (whatever else the system's libcurl decodes) passes decoded, or fails in one line: never a wrong body")
    func zstdIfTheTransportHasIt() async throws {
        let data = patternBytes(5000)
        // One zstd frame: single segment, a 2-byte content size (minus 256), one raw last block.
        let size = UInt32(data.count << 3 | 1)
        let frame: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x60] + [UInt8((data.count - 256) & 0xFF), UInt8((data.count - 256) >> 8)]
            + [UInt8(size & 0xFF), UInt8((size >> 8) & 0xFF), UInt8(size >> 16)] + data
        let harness = try FetchHarness(policy: testPolicy(attempts: 1))
        defer { harness.stop() }
        harness.server.route("/z", LoopbackRoute(body: frame, headers: ["Content-Encoding": "zstd"]))
        let probe = FetchProbe()
        _ = harness.fetch("/z", into: probe)
        switch try #require(await probe.result()) {
        case .success(let body): #expect(body == Data(data))
        case .failure(let error):
            #expect(error == .encodedBodyFailed(url: harness.server.url("/z").absoluteString, encoding: "zstd"))
        }
    }

    @Test("gzip that compresses (encoded 7 KB, decoded 1 MB) decodes: more decoded bytes than announced is fine")
    func gzipSmallerThanDecoded() async throws {
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        let encoded = Gzip.compressedZeros(count: zeros.count)
        #expect(encoded.count < 8 * 1024)
        let harness = try FetchHarness(policy: testPolicy(attempts: 1))
        defer { harness.stop() }
        harness.server.route("/z", LoopbackRoute(body: encoded, headers: ["Content-Encoding": "gzip"]))
        let probe = FetchProbe()
        _ = harness.fetch("/z", into: probe)
        #expect(try #require(await probe.result()).get() == Data(zeros))
    }

    @Test("chunked and gzip together (no Content-Length, 1000-byte chunks) decode")
    func chunkedGzip() async throws {
        let harness = try FetchHarness(policy: testPolicy(attempts: 1))
        defer { harness.stop() }
        harness.server.route("/c", LoopbackRoute(body: Gzip.stored(Self.incompressible),
                                                 headers: ["Content-Encoding": "gzip"], chunkSize: 1000))
        let probe = FetchProbe()
        _ = harness.fetch("/c", into: probe)
        #expect(try #require(await probe.result()).get() == Data(Self.incompressible))
    }

    @Test("a chunked gzip bomb (100 KB inflating to 16 MB) fails with tooLarge at a 1 MB limit, once")
    func chunkedGzipBomb() async throws {
        let bomb = Gzip.compressedZeros(count: 16 << 20, checked: false)
        #expect(bomb.count < 128 * 1024)
        let harness = try FetchHarness(policy: testPolicy(attempts: 3, maxBytes: 1 << 20))
        defer { harness.stop() }
        harness.server.route("/bomb", LoopbackRoute(body: bomb, headers: ["Content-Encoding": "gzip"], chunkSize: 4096))
        let probe = FetchProbe()
        _ = harness.fetch("/bomb", into: probe)
        let error = try #require(await probe.error())
        #expect(error == .tooLarge(url: harness.server.url("/bomb").absoluteString, limit: 1 << 20))
        #expect(!error.description.contains("\n"))
        #expect(harness.server.requestCount("/bomb") == 1)
    }

    @Test("gzip cut short of its Content-Length is an encoded body that failed, retried as configured")
    func gzipCutShort() async throws {
        let clock = VirtualClock()
        let encoded = Gzip.stored(Self.incompressible)
        let harness = try FetchHarness(policy: testPolicy(clock: clock, attempts: 2))
        defer { harness.stop() }
        harness.server.route("/cut", LoopbackRoute(body: encoded, headers: ["Content-Encoding": "gzip"],
                                                   ending: .reset(afterBytes: 100_000)))
        let probe = FetchProbe()
        _ = harness.fetch("/cut", into: probe)
        let delay = try #require(await harness.retryScheduled("/cut", attempt: 2))
        clock.advance(by: delay)
        let error = try #require(await probe.error())
        let url = harness.server.url("/cut").absoluteString
        #expect(error == .encodedBodyFailed(url: url, encoding: "gzip"))
        #expect(harness.server.requestCount("/cut") == 2)
    }

    @Test("a body that is not the gzip it claims to be (with a length, or chunked) fails in one line, not handed out",
          arguments: [nil, 1000])
    func corruptGzip(chunkSize: Int?) async throws {
        let harness = try FetchHarness(policy: testPolicy(attempts: 1))
        defer { harness.stop() }
        harness.server.route("/bad", LoopbackRoute(body: patternBytes(5000), headers: ["Content-Encoding": "gzip"],
                                                   chunkSize: chunkSize))
        let probe = FetchProbe()
        _ = harness.fetch("/bad", into: probe)
        let error = try #require(await probe.error())
        #expect(error == .encodedBodyFailed(url: harness.server.url("/bad").absoluteString, encoding: "gzip"))
        #expect(!error.description.contains("\n"))
    }
}

/// gzip streams written byte by byte (independent of zlib): stored blocks, or a fixed-Huffman run of zeros.
enum Gzip {
    static let header: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]

    /// `data` in stored deflate blocks: 18 bytes of gzip framing and 5 a block larger than `data`.
    static func stored(_ data: [UInt8]) -> [UInt8] {
        let zlib = TinyPNG.zlibStored(data)
        return header + zlib[2..<(zlib.count - 4)] + trailer(crc: TinyPNG.crc32(data), count: data.count)
    }

    /// `count` zeros as one fixed-Huffman block: a literal zero, then matches of length 258 at distance 1 (13 bits
    /// each: 16 MB fits in 100 KB). `checked` false leaves the trailer's CRC zero (for a bomb no reader reaches).
    static func compressedZeros(count: Int, checked: Bool = true) -> [UInt8] {
        precondition(count > 1)
        var bits = BitWriter()
        bits.write(1, count: 1)  // BFINAL
        bits.write(1, count: 2)  // BTYPE 01: fixed Huffman
        bits.writeHuffman(0b0011_0000, length: 8)  // literal 0 (codes 0-143: 0x30 + value, 8 bits)
        var left = count - 1
        while left > 0 {
            let run = min(258, left)
            if run >= 3 {
                writeMatch(length: run, into: &bits)
                left -= run
            } else {
                bits.writeHuffman(0b0011_0000, length: 8)
                left -= 1
            }
        }
        bits.writeHuffman(0, length: 7)  // end of block: code 256, 7 bits of zeros
        let crc = checked ? TinyPNG.crc32([UInt8](repeating: 0, count: count)) : 0
        return header + bits.bytes + trailer(crc: crc, count: count)
    }

    /// A match of `length` (3...258) at distance 1, in the fixed code.
    private static func writeMatch(length: Int, into bits: inout BitWriter) {
        if length == 258 {
            bits.writeHuffman(0b1100_0101, length: 8)  // code 285: 280-287 are 0xC0 + (code - 280), 8 bits
        } else {
            // Codes 257...284 with their extra bits (RFC 1951 3.2.5).
            let bases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115,
                         131, 163, 195, 227]
            let index = bases.lastIndex { $0 <= length }!
            let extra = index < 8 ? 0 : (index - 4) / 4
            let code = 257 + index
            if code <= 279 {
                bits.writeHuffman(UInt32(code - 256), length: 7)
            } else {
                bits.writeHuffman(UInt32(0xC0 + code - 280), length: 8)
            }
            bits.write(UInt32(length - bases[index]), count: extra)
        }
        bits.writeHuffman(0, length: 5)  // distance code 0: distance 1
    }

    private static func trailer(crc: UInt32, count: Int) -> [UInt8] {
        let size = UInt32(truncatingIfNeeded: count)
        return [0, 8, 16, 24].map { UInt8((crc >> $0) & 0xFF) } + [0, 8, 16, 24].map { UInt8((size >> $0) & 0xFF) }
    }
}

/// Deflate's bit order: values least-significant bit first, Huffman codes most-significant bit first.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var used = 0

    mutating func write(_ value: UInt32, count: Int) {
        for bit in 0..<count { append((value >> bit) & 1) }
    }

    mutating func writeHuffman(_ code: UInt32, length: Int) {
        for bit in stride(from: length - 1, through: 0, by: -1) { append((code >> bit) & 1) }
    }

    private mutating func append(_ bit: UInt32) {
        if used == 0 { bytes.append(0) }
        bytes[bytes.count - 1] |= UInt8(bit) << used
        used = (used + 1) % 8
    }
}
