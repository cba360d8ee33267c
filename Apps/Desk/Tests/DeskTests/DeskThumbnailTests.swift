import Foundation
import LanesImages
import Testing

/// lanes-desk and the freedesktop thumbnail cache it shares with gThumb, geeqie and Files: a folder opened once
/// opens the next time with no full decode, from the thumbnails the first run left where GLib applications look.
@Suite(.timeLimit(.minutes(8)), .serialized)
struct DeskThumbnailTests {
    /// A folder of `count` 1200 × 900 JPEGs (each its own colour) and a cache folder, under a fresh directory.
    static func makeFolder(count: Int) throws -> (root: URL, photos: URL) {
        let root = FileManager.default.temporaryDirectory.appending(path: "lanes-desk-thumbs-\(UUID().uuidString)")
        let photos = root.appending(path: "photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for index in 0..<count {
            let colour = RGBA(red: UInt8(index * 37 % 256), green: UInt8(index * 91 % 256), blue: 128)
            let bitmap = Bitmap(width: 1200, height: 900, filledWith: colour)
            try ImageEncoder().encode(bitmap, as: .jpeg(quality: 80))
                .write(to: photos.appending(path: String(format: "photo %03d.jpg", index)))
        }
        return (root, photos)
    }

    @Test func aFolderOpenedBeforeShowsItsFirstScreenWithNoFullDecode() throws {
        let (root, photos) = try Self.makeFolder(count: 40)
        defer { try? FileManager.default.removeItem(at: root) }
        let environment = ["XDG_CACHE_HOME": root.appending(path: "cache").path]
        let arguments = ["--folder", photos.path, "--grid", "--script", "first-screen"]

        let cold = try DeskScriptTests.runApp(arguments, environment: environment)
        #expect(try DeskScriptTests.number(cold, "first_screen_filled") == 1)
        let cells = try DeskScriptTests.number(cold, "first_screen_cells")
        #expect(cells >= 4)
        #expect(try DeskScriptTests.number(cold, "first_screen_decodes") >= cells)
        #expect(try DeskScriptTests.number(cold, "first_screen_thumbnails_cached") == cells)
        // Where GLib applications look for them: large/MD5(URI).png, private to the user.
        let large = root.appending(path: "cache/thumbnails/large")
        let names = try FileManager.default.contentsOfDirectory(atPath: large.path)
        #expect(Double(names.count) >= cells)
        let first = ThumbnailCache.Original(
            path: photos.appending(path: "photo 000.jpg").path, modified: 0, byteCount: 0)
        #expect(names.contains(first.thumbnailName))
        let mode = try FileManager.default.attributesOfItem(atPath: large.appending(path: first.thumbnailName).path)[
            .posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)

        // The status bar says the images' budgets: memory cache, decodes in flight, the thumbnail cache on disk.
        let bar = try #require(cold["status_bar"] as? String)
        #expect(bar.contains("/48 MB") && bar.contains("decoding ") && bar.contains("thumbnails ≤ 512 MB"), "\(bar)")

        // Launched again: every cell of the first screen from the cache — no fetch, no full decode.
        let warm = try DeskScriptTests.runApp(arguments, environment: environment)
        #expect(try DeskScriptTests.number(warm, "first_screen_filled") == 1)
        #expect(try DeskScriptTests.number(warm, "first_screen_decodes") == 0)
        #expect(try DeskScriptTests.number(warm, "first_screen_fetches") == 0)
        #expect(try DeskScriptTests.number(warm, "first_screen_thumbnail_hits")
            >= DeskScriptTests.number(warm, "first_screen_cells"))
    }

    @Test func atRestTheRestOfTheFolderIsThumbnailedAndAMoveWithdrawsIt() throws {
        let (root, photos) = try Self.makeFolder(count: 150)
        defer { try? FileManager.default.removeItem(at: root) }
        let environment = ["XDG_CACHE_HOME": root.appending(path: "cache").path]
        let figures = try DeskScriptTests.runApp(
            ["--folder", photos.path, "--grid", "--script", "idle-thumbnails"], environment: environment)
        #expect(try DeskScriptTests.number(figures, "idle_started_after_ms") >= 0)
        // The user moved: by the next frame the round was withdrawn (when the walk had not already covered the
        // folder: a fast machine may finish it before the move).
        // (A walk already over may have started again at the new place by then: nothing to check in that case.)
        if try DeskScriptTests.number(figures, "idle_in_flight_at_move") > 0 {
            #expect(try DeskScriptTests.number(figures, "idle_yields") >= 1)
            #expect(try DeskScriptTests.number(figures, "idle_in_flight_after_move") == 0)
        }
        // At rest again, the whole folder went into the shared cache (most of it never shown).
        #expect(try DeskScriptTests.number(figures, "idle_done_ms") >= 0)
        #expect(try DeskScriptTests.number(figures, "idle_cached") == 150)
        // So a scroll to the end of the folder, launched again, decodes nothing.
        let warm = try DeskScriptTests.runApp(
            ["--folder", photos.path, "--grid", "--script", "first-screen"], environment: environment)
        #expect(try DeskScriptTests.number(warm, "first_screen_decodes") == 0)
        // And the next idle walk over the cached folder loads nothing: a stat of each entry tells it is done.
        let again = try DeskScriptTests.runApp(
            ["--folder", photos.path, "--grid", "--script", "idle-thumbnails"], environment: environment)
        #expect(try DeskScriptTests.number(again, "idle_done_ms") >= 0)
        #expect(try DeskScriptTests.number(again, "idle_started") == 0)
        #expect(try DeskScriptTests.number(again, "idle_skipped") >= 150)
    }

    @Test func withoutTheCacheNothingIsWritten() throws {
        let (root, photos) = try Self.makeFolder(count: 6)
        defer { try? FileManager.default.removeItem(at: root) }
        let figures = try DeskScriptTests.runApp(
            ["--folder", photos.path, "--grid", "--script", "first-screen", "--no-thumbnail-cache"],
            environment: ["XDG_CACHE_HOME": root.appending(path: "cache").path])
        #expect(try DeskScriptTests.number(figures, "first_screen_filled") == 1)
        #expect(try DeskScriptTests.number(figures, "first_screen_decodes") >= 6)
        // (GTK and fontconfig keep their own caches there: only the thumbnails folder must not exist.)
        #expect(!FileManager.default.fileExists(atPath: root.appending(path: "cache/thumbnails").path))
    }
}
