import Foundation
import LanesImages
import LanesTesting
import Testing

/// The decoder fuzz target's checks as tests: every input kept by `scripts/fuzz` in
/// `Fixtures/fuzz/` and a set of generated hostile inputs decode to a bitmap or fail with an
/// ``ImageError`` — never a crash, a foreign error or a bitmap that disagrees with its header.
@Suite(.timeLimit(.minutes(5)), .heavy) struct FuzzRegressionTests {
    /// The fuzz target's limits (`Sources/lanes-fuzz`): 4 MP, and a 64x48 thumbnail variant.
    static let maxPixels = 4_000_000
    static let thumbnail = TargetSize(maxWidth: 64, maxHeight: 48)
    static let fixtures = ["camera.png", "chelsea.png", "chelsea-progressive.jpg", "cmyk-red-grey.jpg",
                           "grey-100.jpg", "hubble_deep_field.jpg", "rocket.jpg"]

    @Test func keptFuzzInputsDecodeOrFailCleanly() throws {
        let files = try FuzzCorpus.keptFiles()
        #expect(!files.isEmpty, "Fixtures/fuzz holds the inputs scripts/fuzz kept")
        var checked = 0
        for file in files {
            let name = file.lastPathComponent
            let outcome = FuzzCorpus.survive(Array(try Data(contentsOf: file)), label: name, thumbnail: true)
            // Inputs named in the folder's README end a known way; a crash-* input only has to survive.
            if let expected = Self.keptOutcomes[name] {
                #expect(outcome == expected, "\(name)")
                checked += 1
            }
        }
        #expect(checked == Self.keptOutcomes.count, "every input listed in Fixtures/fuzz/README.md is there")
    }

    /// What each kept input (Fixtures/fuzz/README.md) ends in.
    static let keptOutcomes = [
        "bmp-header.bin": "unsupportedFormat", "tiff-header.bin": "unsupportedFormat",
        "jpeg-adobe-corrupt.jpg": "corrupt", "jpeg-adobe-truncated.jpg": "truncated",
        "jpeg-corrupt-16-bytes.jpg": "corrupt", "jpeg-corrupt-a.jpg": "corrupt", "jpeg-soi-eoi-only.jpg": "corrupt",
        "jpeg-mutated-still-decodes.jpg": "decoded", "jpeg-exif-mutated-decodes.jpg": "decoded",
        "jpeg-unsupported-variant-a.jpg": "unsupportedVariant", "jpeg-unsupported-variant-b.jpg": "unsupportedVariant",
        "png-claims-100000x100000.png": "tooLarge", "png-corrupt-ihdr.png": "corrupt",
        "png-truncated-after-ihdr.png": "truncated", "png-grey16-adam7.png": "decoded",
        "png-grey-alpha16-adam7.png": "decoded", "png-palette2-trns.png": "decoded",
        "heif-damaged-hevc-decodes.heic": "decoded",
    ]

    @Test(arguments: fixtures)
    func truncationsAtManyOffsets(name: String) throws {
        let bytes = try Fixture.bytes(name)
        let step = max(1, bytes.count / 97)
        let cuts = Set(Array(0..<min(bytes.count, 48)) + Array(stride(from: 0, to: bytes.count, by: step))
                       + [bytes.count - 2, bytes.count - 1])
        var decodedCuts: [Int] = []
        for cut in cuts.sorted() {
            if FuzzCorpus.survive(Array(bytes.prefix(cut)), label: "\(name) cut at \(cut)", thumbnail: false) == "decoded" {
                decodedCuts.append(cut)
            }
        }
        // Only a cut in the trailing bytes (a PNG's IEND, a JPEG's EOI) may leave every pixel intact.
        #expect(decodedCuts.allSatisfy { $0 >= bytes.count - 12 }, "\(name) decoded when cut at \(decodedCuts)")
    }

    @Test(arguments: fixtures)
    func bitFlips(name: String) throws {
        let original = try Fixture.bytes(name)
        var random = FuzzBits(seed: UInt64(name.utf8.count) &* 0x9E37_79B9_7F4A_7C15 | 1)
        var outcomes: Set<String> = []
        for round in 0..<48 {
            var bytes = original
            // Half of the rounds hit the headers (the first 700 bytes), where damage changes sizes and tables.
            let span = round % 2 == 0 ? min(700, bytes.count) : bytes.count
            for _ in 0...(random.next() % 4) {
                let bit = random.next() % (span * 8)
                bytes[bit / 8] ^= UInt8(1 << (bit % 8))
            }
            outcomes.insert(FuzzCorpus.survive(bytes, label: "\(name) flip round \(round)", thumbnail: round % 4 == 0))
        }
        #expect(outcomes.contains { $0 != "decoded" }, "\(name): 48 rounds of damage and none was noticed")
    }

    @Test func pngHeaderClaiming100000Squared() {
        let header = TinyPNG.headerOnly(width: 100_000, height: 100_000)
        // Followed by a real (tiny) IDAT and IEND, so nothing but the size is wrong.
        let file = header + TinyPNG.chunk("IDAT", TinyPNG.zlibStored([0, 0, 0, 0, 0])) + TinyPNG.chunk("IEND", [])
        // .tooLarge rather than .truncated (the IDAT is far too short) shows each refusal came before allocating.
        for limit in [Self.maxPixels, ImageDecoder.defaultMaxPixels] {
            #expect(throws: ImageError.tooLarge(width: 100_000, height: 100_000, limit: limit)) {
                try ImageDecoder().decode(file, maxPixels: limit)
            }
            #expect(throws: ImageError.tooLarge(width: 100_000, height: 100_000, limit: limit)) {
                try ImageDecoder().decode(file, targetSize: Self.thumbnail, maxPixels: limit)
            }
        }
    }

    @Test func jpegFrameClaiming65000Squared() throws {
        var bytes = try Fixture.bytes("rocket.jpg")
        let sof = try #require(bytes.indices.dropLast(8).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes.replaceSubrange((sof + 5)...(sof + 8), with: [0xFD, 0xE8, 0xFD, 0xE8]) // height, width = 65000
        #expect(throws: ImageError.tooLarge(width: 65_000, height: 65_000, limit: Self.maxPixels)) {
            try ImageDecoder().decode(bytes, maxPixels: Self.maxPixels)
        }
    }

    @Test func thingsThatAreNotImages() {
        let cases: [([UInt8], SniffedContent)] = [
            ([], .empty),
            (Array("<!DOCTYPE html><html><body><h1>404 Not Found</h1></body></html>".utf8), .markup),
            (Array("  <?xml version=\"1.0\"?><svg/>".utf8), .markup),
            (Array("{\"error\": \"rate limited\"}".utf8), .text),
            (Array("BM".utf8) + [UInt8](repeating: 0, count: 20), .image(.bmp)),
            ([0x00, 0xFF, 0x13, 0x37], .unknown),
        ]
        for (bytes, content) in cases {
            #expect(throws: ImageError.unsupportedFormat(content)) { try ImageDecoder().decode(bytes) }
            #expect(FuzzCorpus.survive(bytes, label: "\(content)", thumbnail: true) == "unsupportedFormat")
        }
    }
}

/// The inputs `scripts/fuzz` kept, and the fuzz target's oracle.
enum FuzzCorpus {
    static func keptFiles() throws -> [URL] {
        let folder = try #require(Bundle.module.url(forResource: "fuzz", withExtension: nil, subdirectory: "Fixtures"))
        return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") && $0.pathExtension != "md" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// Decodes `bytes` in full (and as a thumbnail when asked) with the fuzz target's limits and
    /// checks the same invariants it does. Returns the full decode's outcome: `decoded` or the
    /// ImageError case name.
    @discardableResult
    static func survive(_ bytes: [UInt8], label: String, thumbnail: Bool) -> String {
        let decoder = ImageDecoder()
        let probed = try? decoder.probe(bytes)
        let outcome: String
        do {
            let bitmap = try decoder.decode(bytes, maxPixels: FuzzRegressionTests.maxPixels)
            if let probed {
                #expect(bitmap.width == probed.displayWidth && bitmap.height == probed.displayHeight, "\(label)")
            } else {
                Issue.record("\(label): decoded \(bitmap.width)x\(bitmap.height) but probe failed")
            }
            #expect(bitmap.pixels.count == bitmap.width * bitmap.height * 4, "\(label)")
            outcome = "decoded"
        } catch let error as ImageError {
            outcome = name(of: error)
            if case .invalidArgument = error {
                Issue.record("\(label): probe and codec disagree: \(error)")
            }
        } catch {
            Issue.record("\(label): not an ImageError: \(error)")
            outcome = "foreign"
        }
        if thumbnail {
            do {
                let small = try decoder.decode(bytes, targetSize: FuzzRegressionTests.thumbnail,
                                               maxPixels: FuzzRegressionTests.maxPixels)
                #expect(small.width <= 64 && small.height <= 48, "\(label): \(small.width)x\(small.height)")
            } catch let error as ImageError {
                #expect(outcome != "decoded", "\(label): full decode worked, thumbnail failed: \(error)")
            } catch {
                Issue.record("\(label): thumbnail: not an ImageError: \(error)")
            }
        }
        return outcome
    }

    static func name(of error: ImageError) -> String {
        switch error {
        case .unsupportedFormat: "unsupportedFormat"
        case .unsupportedVariant: "unsupportedVariant"
        case .truncated: "truncated"
        case .corrupt: "corrupt"
        case .tooLarge: "tooLarge"
        case .limitExceeded: "limitExceeded"
        case .outOfMemory: "outOfMemory"
        case .cancelled: "cancelled"
        case .encodeFailed: "encodeFailed"
        case .invalidArgument: "invalidArgument"
        }
    }
}

/// A small deterministic generator (xorshift64), so every run damages the same bytes.
struct FuzzBits {
    var state: UInt64

    init(seed: UInt64) { state = seed == 0 ? 0x2545_F491_4F6C_DD1D : seed }

    mutating func next() -> Int {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Int(truncatingIfNeeded: state >> 1)
    }
}
