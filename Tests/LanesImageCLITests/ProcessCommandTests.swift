import ArgumentParser
import Foundation
@testable import lanes_image
import LanesImages
import Testing

@Suite("lanes-image process options", .timeLimit(.minutes(5)))
struct ProcessCommandTests {
    @Test func defaultsEncodePNGLikeLibvips() throws {
        let command = try ProcessCommand.parse(["a.png"])
        let plan = try command.makePlan()
        #expect(plan.format == .png && plan.compression == 6 && plan.pngFilter == ImageEncoder.PNGFilter.none)
        #expect(plan.encoderFormat == .png(compressionLevel: 6, filter: .none))
        #expect(!plan.overwrite && plan.processors.isEmpty && plan.targetSize == nil)
        #expect(plan.description == "decode → png(level 6, filter none)")
    }

    @Test func optionsBecomeThePlan() throws {
        let command = try ProcessCommand.parse(["a.png", "--blur", "8", "--tilt-shift", "--greyscale",
                                                "--resize", "800x", "--format", "JPG", "--quality", "90",
                                                "--png-filter", "Paeth", "--compression", "9", "--overwrite",
                                                "--background", "#0a0B0c"])
        let plan = try command.makePlan()
        #expect(plan.processors.map(\.identifier) == [GaussianBlur(sigma: 8).identifier, TiltShift().identifier,
                                                      Greyscale().identifier])
        #expect(plan.resize == ResizeSpec(parsing: "800x") && plan.targetSize?.maxWidth == 800)
        #expect(plan.format == .jpg && plan.encoderFormat == .jpeg(quality: 90, background: RGBA(red: 10, green: 11, blue: 12),
                                                                   optimizedCoding: false))
        #expect(plan.pngFilter == .paeth && plan.compression == 9 && plan.overwrite)
        #expect(plan.description.hasPrefix("decode to fit 800x → gaussianBlur"))
        #expect(plan.description.hasSuffix("jpg(quality 90, on #0A0B0C)"))
    }

    @Test(arguments: [
        (["a.png", "--blur", "0"], "--blur"),
        (["a.png", "--blur", "nan"], "--blur"),
        (["a.png", "--format", "gif"], "--format"),
        (["a.png", "--quality", "0"], "--quality"),
        (["a.png", "--compression", "10"], "--compression"),
        (["a.png", "--png-filter", "best"], "--png-filter"),
        (["a.png", "--resize", "0x5"], "--resize"),
        (["a.png", "--concurrency", "0"], "--concurrency"),
        (["a.png", "--threads", "0"], "--threads"),
        (["a.png", "--max-pixels", "0"], "--max-pixels"),
    ])
    func badOptionsAreRefusedByName(arguments: [String], option: String) {
        do {
            _ = try ProcessCommand.parse(arguments)
            Issue.record("\(arguments) was accepted")
        } catch {
            let message = ProcessCommand.message(for: error)
            #expect(message.contains(option), "\(message)")
        }
    }

    @Test func noInputIsAnError() {
        #expect(throws: (any Error).self) { try ProcessCommand.parse([]) }
    }
}
