import Foundation
import LanesImages
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The one decoder context (`clanes_decoder.h`, ``DecoderContext``): every source (memory, a descriptor, pushed bytes)
/// gives the same pixels, the pixel limit is checked from every format's header, and a failed context keeps its one
/// error.
@Suite("Formats: one decoder context over every source", .timeLimit(.minutes(5)))
struct DecoderContextTests {
    static let stills = ["photo.heic", "photo.jxl", "photo-lossy.webp", "photo.avif", "still.gif", "photo.png"]

    /// The whole image from a context over `source`, pushed `chunk` bytes at a time when pushed.
    private func decode(_ data: Data, source: String, chunk: Int = 1000) throws -> Bitmap {
        switch source {
        case "memory":
            return try data.withUnsafeBytes { try DecoderContext(.memory($0)).decodeWhole() }
        case "file":
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("context-\(UUID().uuidString)")
            try data.write(to: url)
            defer { try? FileManager.default.removeItem(at: url) }
            let descriptor = open(url.path, O_RDONLY)
            #expect(descriptor >= 0)
            defer { close(descriptor) }
            return try DecoderContext(.file(descriptor: descriptor, size: data.count)).decodeWhole()
        default:
            var options = DecoderContext.Options()
            options.keepsInput = true
            let context = try DecoderContext(.pushed, options: options)
            var offset = 0
            while offset < data.count {
                let end = min(data.count, offset + chunk)
                try data[offset..<end].withUnsafeBytes { try context.push($0, isLast: end == data.count) }
                offset = end
            }
            return try context.decodeWhole()
        }
    }

    @Test("a still decodes to the same pixels from memory, a descriptor and pushed bytes", arguments: stills)
    func everySource(_ name: String) throws {
        let data = try FormatFixture.data(name)
        let fromMemory = try decode(data, source: "memory")
        #expect(firstDifference(try decode(data, source: "file"), fromMemory) == nil, "\(name) from a descriptor")
        #expect(firstDifference(try decode(data, source: "pushed"), fromMemory) == nil, "\(name) pushed")
    }

    @Test("a pushed source answers truncated until its header has arrived, then reads it", arguments: stills)
    func pushedHeader(_ name: String) throws {
        let data = try FormatFixture.data(name)
        let context = try DecoderContext(.pushed)
        try data.prefix(6).withUnsafeBytes { try context.push($0, isLast: false) }
        #expect(throws: ImageError.truncated) { try context.header() }
        try data.dropFirst(6).withUnsafeBytes { try context.push($0, isLast: true) }
        let expected = try ImageDecoder().probe(data)
        #expect(try context.header() == expected)
    }

    @Test("the pixel limit is checked from the header for every format, before any decoding",
          arguments: stills + ["rocket.jpg"])
    func pixelLimitFromHeader(_ name: String) throws {
        let data = try name == "rocket.jpg" ? Fixture.data("rocket.jpg") : FormatFixture.data(name)
        let info = try ImageDecoder().probe(data)
        let limit = info.width * info.height - 1
        data.withUnsafeBytes { bytes in
            let context = try? DecoderContext(.memory(bytes), options: .init(maxPixels: limit))
            #expect(throws: ImageError.tooLarge(width: info.width, height: info.height, limit: limit)) {
                try context?.header()
            }
            // The context is done: the next call says the same, and the message says why.
            #expect(throws: ImageError.tooLarge(width: info.width, height: info.height, limit: limit)) {
                try context?.decodeWhole()
            }
            #expect(context?.message.contains("exceeds the limit of \(limit) pixels") == true, "\(name)")
        }
    }

    @Test("a JPEG pushed with its bytes kept gives rows as they arrive, then the whole image from the same bytes")
    func keptInputDecodesWhole() throws {
        let data = try Fixture.data("rocket.jpg")
        var options = DecoderContext.Options()
        options.keepsInput = true
        let context = try DecoderContext(.pushed, options: options)
        try data.prefix(data.count / 2).withUnsafeBytes { try context.push($0, isLast: false) }
        let width = try context.scaledSize().width
        var row = [UInt8](repeating: 0, count: width * 4)
        let got = try row.withUnsafeMutableBytes { try context.readRows(1, into: $0.baseAddress!, bytesPerRow: width * 4) }
        #expect(got == 1)
        #expect(throws: ImageError.self) { try context.decodeWhole() } // the input has not ended yet
        let fresh = try DecoderContext(.pushed, options: options)
        try data.withUnsafeBytes { try fresh.push($0, isLast: true) }
        let whole = try fresh.decodeWhole()
        #expect(firstDifference(whole, try ImageDecoder().decode(data)) == nil)
    }
}
