import Foundation
import Testing

/// `lanes-desk --script hostile` on the folder it builds (HostileFolder): every hostile file gives a cell that shows
/// an image or says what is wrong in words, names are shown sanitised, the 20,000 photos are listed off the main
/// thread in batches, memory stays within the pipeline's budget, and the folder is gone after the run.
@Suite(.timeLimit(.minutes(6)), .serialized)
struct HostileFolderTests {
    @Test func everyHostileFileSaysWhatIsWrong() throws {
        let figures = try DeskScriptTests.runApp(["--script", "hostile", "--grid"])
        func says(_ name: String) -> String { figures["hostile_\(name)_says"] as? String ?? "<no cell>" }
        func shown(_ name: String) throws -> Bool { try DeskScriptTests.number(figures, "hostile_\(name)_shown") == 1 }

        #expect(try DeskScriptTests.number(figures, "hostile_resolved") == DeskScriptTests.number(figures, "hostile_cases"))
        #expect(says("corrupt").contains("corrupt"), "\(says("corrupt"))")
        #expect(says("truncated").contains("truncated"), "\(says("truncated"))")
        #expect(says("empty").contains("empty"), "\(says("empty"))")
        #expect(says("loop").contains("symbolic links"), "\(says("loop"))")
        #expect(says("fifo").contains("not a regular file"), "\(says("fifo"))")
        #expect(says("html").contains("HTML"), "\(says("html"))")
        #expect(says("lying_header").contains("exceeds the limit"), "\(says("lying_header"))")
        #expect(says("invalid_utf8").contains("not valid UTF-8"), "\(says("invalid_utf8"))")
        // The 100-megapixel JPEG decodes at thumbnail size (libjpeg scales while decoding) within the budget.
        #expect(try shown("huge") || says("huge").contains("exceeds"), "\(says("huge"))")
        // chmod 000 stops everyone but root: as root the file reads (and shows); otherwise the cell says so.
        if try DeskScriptTests.number(figures, "running_as_root") == 1 {
            #expect(try shown("unreadable") || says("unreadable") == "permission denied")
        } else {
            #expect(says("unreadable") == "permission denied")
        }
        // Names: control characters escaped, invalid UTF-8 shown as U+FFFD; a valid file with such a name shows.
        let control = figures["hostile_control_caption"] as? String ?? ""
        #expect(try shown("control"))
        #expect(control.contains(#"\e[31m"#) && control.contains(#"\x07"#), "\(control.debugDescription)")
        for key in figures.keys where key.hasSuffix("_caption") || key.hasSuffix("_says") {
            let text = figures[key] as? String ?? ""
            #expect(!text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(key): \(text.debugDescription)")
        }
        #expect((figures["hostile_invalid_utf8_caption"] as? String ?? "").contains("\u{FFFD}"))

        // 20,011 entries, listed in batches; the main thread only takes each batch in (measured at load 28 in a
        // debug build: 33 ms at most; the listing itself runs off-main).
        #expect(try DeskScriptTests.number(figures, "listing_entries") == 20_011)
        #expect(try DeskScriptTests.number(figures, "listing_batches") >= 10)
        #expect(try DeskScriptTests.number(figures, "listing_main_batch_max_ms") < 150)
        #expect(try DeskScriptTests.number(figures, "hostile_bulk_last_row") == 20_010)
        #expect(try DeskScriptTests.number(figures, "hostile_bulk_shown") >= 1)

        #expect(try DeskScriptTests.number(figures, "cache_bytes") <= DeskScriptTests.number(figures, "cache_budget_bytes"))
        #expect(try DeskScriptTests.number(figures, "hostile_rss_mb") < 400)
        #expect(try DeskScriptTests.number(figures, "wrong_row_deliveries") == 0)
        // No leftover files.
        let folder = try #require(figures["hostile_folder"] as? String)
        #expect(!FileManager.default.fileExists(atPath: folder), "the hostile folder was left behind")
    }
}
