import Foundation
@testable import lanes_image
import Testing

@Suite("lanes-image inputs and output names", .timeLimit(.minutes(5)))
struct InputListTests {
    @Test func sourcesExpandFoldersKeepURLsAndDropRepeats() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.file("photos/b.JPG")
        try folder.file("photos/a.png")
        try folder.file("photos/c.jpeg")
        try folder.file("photos/notes.txt")
        try folder.file("photos/.hidden.png")
        try folder.file("photos/nested/d.png")
        let photos = folder.url.appendingPathComponent("photos").path
        let sources = InputList.sources(for: [photos, "https://example.com/x.jpg", photos + "/a.png",
                                              "missing.png", "https://example.com/x.jpg"])
        #expect(sources.map(\.1) == [photos + "/a.png", photos + "/b.JPG", photos + "/c.jpeg",
                                     "https://example.com/x.jpg", "missing.png"])
        #expect(sources[3].0.scheme == "https")
        #expect(sources[4].0.isFileURL && sources[4].0.lastPathComponent == "missing.png")
    }

    @Test("a folder picks up WebP, GIF, AVIF, HEIC and JPEG XL files too (any case)")
    func foldersPickUpNewFormats() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for name in ["a.webp", "b.GIF", "c.avif", "d.heic", "e.bmp", "f.JXL"] { try folder.file("in/\(name)") }
        let input = folder.url.appendingPathComponent("in").path
        #expect(InputList.sources(for: [input]).map(\.1)
                == [input + "/a.webp", input + "/b.GIF", input + "/c.avif", input + "/d.heic", input + "/f.JXL"])
    }

    @Test func stemsAreSafeFileNames() {
        #expect(InputList.stem(of: URL(fileURLWithPath: "/a/rocket.final.png")) == "rocket.final")
        #expect(InputList.stem(of: URL(string: "https://example.com/pics/cat.jpg?size=2")!) == "cat")
        #expect(InputList.stem(of: URL(string: "https://images.example.com/")!) == "images_example_com")
        #expect(InputList.stem(of: URL(string: "https://example.com/%20%20.png")!) == "example_com")
    }

    @Test func collidingNamesAreNumbered() {
        let out = URL(fileURLWithPath: "/nonexistent-lanes-out", isDirectory: true)
        let sources = [(URL(fileURLWithPath: "/a/rocket.png"), "a"), (URL(fileURLWithPath: "/b/rocket.jpg"), "b"),
                       (URL(string: "https://example.com/rocket")!, "c")]
        let jobs = InputList.jobs(for: sources, outputDirectory: out, fileExtension: "png")
        #expect(jobs.map(\.output.lastPathComponent) == ["rocket.png", "rocket-1.png", "rocket-2.png"])
        #expect(jobs.allSatisfy { $0.keptExisting == nil })
    }

    @Test func anInputIsNeverOverwrittenEvenWithOverwrite() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try folder.file("rocket.png")
        for overwrite in [false, true] {
            let jobs = InputList.jobs(for: [(input, "rocket.png")], outputDirectory: folder.url,
                                      fileExtension: "png", overwrite: overwrite)
            #expect(jobs.map(\.output.lastPathComponent) == ["rocket-1.png"], "overwrite \(overwrite)")
        }
        // Reached through a symbolic link (the output folder is a link to the input's folder), it is still the
        // same file: `out/rocket.png` is the input and is skipped even with --overwrite.
        let linkedFolder = folder.url.appendingPathComponent("out")
        try FileManager.default.createSymbolicLink(at: linkedFolder, withDestinationURL: folder.url)
        let jobs = InputList.jobs(for: [(input, "rocket.png")], outputDirectory: linkedFolder, fileExtension: "png",
                                  overwrite: true)
        #expect(jobs.map(\.output.lastPathComponent) == ["rocket-1.png"])
    }

    @Test func existingFilesAreKeptUnlessOverwrite() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let out = folder.url.appendingPathComponent("out", isDirectory: true)
        try folder.file("out/rocket.png")
        try folder.file("out/rocket-1.png")
        let sources = [(URL(fileURLWithPath: "/elsewhere/rocket.jpg"), "rocket.jpg")]
        let kept = InputList.jobs(for: sources, outputDirectory: out, fileExtension: "png")
        #expect(kept.map(\.output.lastPathComponent) == ["rocket-2.png"])
        #expect(kept[0].keptExisting == "rocket.png")
        let replaced = InputList.jobs(for: sources, outputDirectory: out, fileExtension: "png", overwrite: true)
        #expect(replaced.map(\.output.lastPathComponent) == ["rocket.png"])
        #expect(replaced[0].keptExisting == nil)
    }
}
