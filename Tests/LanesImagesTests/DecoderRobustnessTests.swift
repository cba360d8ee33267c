import LanesImages
import LanesTesting
import Testing

/// Damaged input of every length and shape fails with an ``ImageError`` — never a crash,
/// a hang or a half-filled bitmap.
@Suite(.timeLimit(.minutes(5)), .heavy) struct DecoderRobustnessTests {
    let decoder = ImageDecoder()

    @Test(arguments: ["chelsea.png", "camera.png", "rocket.jpg", "chelsea-progressive.jpg", "cmyk-red-grey.jpg"])
    func everyTruncationIsReportedAsTruncated(name: String) throws {
        let bytes = try Fixture.bytes(name)
        let step = max(1, bytes.count / 61)
        // Cuts inside the trailing 12 bytes (a PNG's IEND, a JPEG's last bytes and EOI) may
        // leave every pixel intact; all earlier cuts lose image data.
        let cuts = (Array(stride(from: 0, to: bytes.count, by: step)) + [1, 2, 7, 8, 30, 33])
            .filter { $0 < bytes.count - 12 }
        for cut in cuts {
            let prefix = Array(bytes.prefix(cut))
            do {
                _ = try decoder.decode(prefix)
                Issue.record("\(name) cut to \(cut) bytes decoded")
            } catch let error as ImageError {
                let sniffed = SniffedContent(sniffing: prefix)
                switch sniffed {
                case .image(.png), .image(.jpeg):
                    #expect(error == .truncated, "\(name) cut to \(cut) bytes: \(error)")
                default:
                    #expect(error == .unsupportedFormat(sniffed), "\(name) cut to \(cut) bytes: \(error)")
                }
            }
        }
    }

    @Test(arguments: ["chelsea.png", "rocket.jpg", "chelsea-progressive.jpg"])
    func randomDamageNeverCrashes(name: String) throws {
        let original = try Fixture.bytes(name)
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(truncatingIfNeeded: state >> 1)
        }
        var failures = 0
        for _ in 0..<40 {
            var bytes = original
            for _ in 0..<(1 + next() % 8) {
                bytes[next() % bytes.count] = UInt8(truncatingIfNeeded: next())
            }
            do {
                let bitmap = try decoder.decode(bytes)
                #expect(bitmap.pixels.count == bitmap.width * bitmap.height * 4)
            } catch is ImageError {
                failures += 1
            }
        }
        #expect(failures > 0) // the damage is real enough to be noticed at least sometimes
    }
}
