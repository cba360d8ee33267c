import Foundation
@testable import lanes_image
import LanesImages
import Testing

@Suite("lanes-image atomic writes", .timeLimit(.minutes(5)))
struct AtomicWriteTests {
    @Test("The output appears whole, replacing an older file, and no temporary file is left beside it")
    func writesThroughATemporaryFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lanes-atomic-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("out.png")
        try Data([1, 2, 3]).write(to: url)
        let bitmap = Bitmap(width: 3, height: 2, pixels: [UInt8](repeating: 200, count: 24))
        _ = try BandedWrite(bitmap: bitmap, plan: ProcessingPlan()).write(to: url)
        #expect(try ImageDecoder().decode(Data(contentsOf: url)) == bitmap)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.png"])
    }

    @Test("A folder that does not exist is a WriteError naming the path")
    func missingFolder() {
        let url = URL(fileURLWithPath: "/nonexistent-\(UUID())/out.png")
        #expect {
            _ = try BandedWrite(bitmap: Bitmap(width: 1, height: 1), plan: ProcessingPlan()).write(to: url)
        } throws: { error in
            (error as? WriteError)?.path == url.path
        }
    }
}
