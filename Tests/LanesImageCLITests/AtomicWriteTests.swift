import Foundation
@testable import lanes_image
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
        try writeAtomically(Data([9, 8, 7, 6]), to: url)
        #expect(try Data(contentsOf: url) == Data([9, 8, 7, 6]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.png"])
    }

    @Test("A folder that does not exist is a WriteError naming the path")
    func missingFolder() {
        let url = URL(fileURLWithPath: "/nonexistent-\(UUID())/out.png")
        #expect {
            try writeAtomically(Data([1]), to: url)
        } throws: { error in
            (error as? WriteError)?.path == url.path
        }
    }
}
