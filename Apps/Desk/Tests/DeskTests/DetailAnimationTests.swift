import Foundation
import LanesImages
import Testing

/// The detail view plays an animated GIF and WebP from a folder: at least two different frames are drawn, the window
/// shows the animation (the screenshot), and the frame timer stops with the view. The fixtures are the library's
/// (Tests/LanesImagesTests/Fixtures/formats: three frames of 80, 120 and 200 ms, looping twice, so a timer left
/// running after the close would draw up to four more frames in the 600 ms the script waits).
@Suite(.timeLimit(.minutes(4)), .serialized)
struct DetailAnimationTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Tests/LanesImagesTests/Fixtures/formats")

    @Test(arguments: ["anim.gif", "anim.webp"])
    func theDetailViewAnimatesAndStopsWhenClosed(_ name: String) throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "lanes-desk-anim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: Self.fixtures.appending(path: name), to: folder.appending(path: name))
        let screenshot = folder.appending(path: "shot.png").path
        let figures = try DeskScriptTests.runApp(["--folder", folder.path, "--script", "animation", "--size", "800x600",
                                                  "--screenshot", screenshot])
        #expect(try DeskScriptTests.number(figures, "animation_distinct_frames") >= 2)
        #expect(try DeskScriptTests.number(figures, "animation_frames_after_close") == 0)
        #expect(try DeskScriptTests.number(figures, "animation_running_after_close") == 0)

        // The window showed the animation: the frames' blue square (0, 0, 255) or red one (255, 0, 0), drawn over
        // the photo, is on screen.
        let shot = try ImageDecoder().decode(Data(contentsOf: URL(fileURLWithPath: folder.path + "/shot-animation.png")))
        var squares = 0
        for y in 0..<shot.height {
            for x in 0..<shot.width {
                let pixel = shot[x, y]
                let pure = pixel.green < 40 && (pixel.blue > 215 && pixel.red < 40 || pixel.red > 215 && pixel.blue < 40)
                if pure { squares += 1 }
            }
        }
        #expect(squares > 100, "no frame of the animation is on screen (\(squares) square pixels)")
    }
}
