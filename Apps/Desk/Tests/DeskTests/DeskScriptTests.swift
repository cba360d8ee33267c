import Foundation
import LanesImages
import Testing

/// lanes-desk driven by its scripts in a child process (GTK must own the process's main thread), under the display
/// the test runs with (scripts/desk-test provides Xvfb) or a fresh `xvfb-run`. Exact properties (no wrong row, nothing
/// delivered after leaving, the screenshot, the cache budget) are asserted strictly; frame and latency figures only
/// loosely, since the machine is shared — the targets are measured in release and recorded in the README.
@Suite(.timeLimit(.minutes(6)), .serialized)
struct DeskScriptTests {
    static func runApp(
        _ arguments: [String], environment extra: [String: String] = [:], deadline: Double = 240
    ) throws -> [String: Any] {
        let directory = FileManager.default.temporaryDirectory.appending(path: "lanes-desk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let report = directory.appending(path: "report.json").path
        var arguments = arguments + ["--report", report]
        // scripts/desk-test points this at the release build (frame figures mean little in a debug build).
        var product = ProcessInfo.processInfo.environment["LANES_DESK_BINARY"] ?? "lanes-desk"
        // A cache folder of the run's own, unless the test gives one: the user's thumbnail cache is never touched.
        var environment = ["GDK_BACKEND": "x11", "GTK_A11Y": "none"]
        environment["XDG_CACHE_HOME"] = directory.appending(path: "cache").path
        environment.merge(extra) { $1 }
        if ProcessInfo.processInfo.environment["GSK_RENDERER"] == nil { environment["GSK_RENDERER"] = "cairo" }
        if ProcessInfo.processInfo.environment["DISPLAY"] == nil {
            // No display: wrap the app in its own Xvfb.
            let binary = product.hasPrefix("/") ? product : ChildProcess.productsDirectory.appending(path: product).path
            arguments = ["-a", "-s", "-screen 0 1280x1024x24", binary] + arguments
            product = "/usr/bin/xvfb-run"
            environment["DISPLAY"] = nil
        }
        let output = try ChildProcess.run(product, arguments, environment: environment, deadline: deadline)
        #expect(!output.timedOut, "lanes-desk did not finish its script: \(output.stderr.suffix(2000))")
        #expect(output.status == 0, "lanes-desk failed: \(output.stderr.suffix(2000))")
        let data = try Data(contentsOf: URL(fileURLWithPath: report))
        var figures = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        figures["_directory"] = directory.path
        return figures
    }

    static func number(_ figures: [String: Any], _ key: String) throws -> Double {
        try #require(figures[key] as? Double ?? (figures[key] as? Int).map(Double.init), "no \(key) in the report")
    }

    @Test func flingIdleFloodDetailAndPagesInLanesMode() throws {
        let screenshotDirectory = FileManager.default.temporaryDirectory.appending(path: "lanes-desk-shot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: screenshotDirectory, withIntermediateDirectories: true)
        let screenshot = screenshotDirectory.appending(path: "fling.png").path
        // A smaller window keeps the detail view's full renders quick even in a debug build.
        let figures = try Self.runApp(["--script", "all", "--size", "800x600", "--screenshot", screenshot])

        // Every delivered thumbnail carried its own row's index in its pixels.
        #expect(try Self.number(figures, "wrong_row_deliveries") == 0)
        #expect(try Self.number(figures, "photo_deliveries") > 0)
        // Drawn by Cairo, the app mapped no GL driver (CairoWithoutGL: under Xvfb, llvmpipe held ~55 MB).
        if ProcessInfo.processInfo.environment["GSK_RENDERER", default: "cairo"] == "cairo" {
            #expect(try Self.number(figures, "gl_driver_mapped") == 0, "renderer \(figures["renderer"] ?? "?")")
        }
        // Frames kept coming during the fling. The target (≥ 175 of 180) is measured and recorded in the README; on
        // a shared machine a run has dropped to 62, so this only catches a main thread that stops producing frames.
        let frames = try Self.number(figures, "frames")
        #expect(frames >= 45, "\(frames) frames of 180 (load \(figures["load_average"] ?? "?"))")
        #expect(try Self.number(figures, "scrolled_px") >= 7000)
        // The fling lifted off through GTK's kinetic entry point and glided on (v / 4 = 600 px); its blank area was
        // counted (LanesLists' BlankArea) and the status bar says it; mid-fling, no cell on screen was empty.
        #expect(try Self.number(figures, "lift_offs") == 1)
        #expect(try Self.number(figures, "kinetic_px") >= 590)
        let blank = try Self.number(figures, "blank_area_pct")
        #expect(blank >= 0 && blank <= 100)
        _ = try Self.number(figures, "any_blank_ms")
        #expect((figures["status_bar"] as? String)?.contains("blank ") == true)
        try Self.checkNoEmptyCells(screenshotDirectory.appending(path: "fling-midfling.png").path)
        // The prefetch follows the scroll: few thumbnails loaded ahead went unseen. This checks the wiring (the
        // tracker's window keeps prefetch in bounds), not the policy's tuning, which AdaptivePreloadTests and
        // PreloadTrackerTests check on a virtual clock: a real fling's waste depends on how the frames fell (1.4% at
        // rest, BENCHMARKS.md; 10.5% beside two busy loops; up to 15.2% at load 20), while 1.5 fixed screens each way,
        // the old preload, wasted 22% of them in this script.
        let waste = try Self.number(figures, "waste_pct")
        #expect(waste <= 20, "waste \(waste)% at \(frames) frames (load \(figures["load_average"] ?? "?"))")
        _ = try Self.number(figures, "rows_left_unshown")   // reported; its figure is measured in release (README)
        // Leaving the photo page withdrew its work at once and nothing arrived afterwards.
        #expect(try Self.number(figures, "leave_photos_ms_to_zero") >= 0)
        #expect(try Self.number(figures, "leave_photos_ms_to_zero") <= 50)
        #expect(try Self.number(figures, "leave_photos_delivered_after") == 0)
        // The same for the stocks page.
        #expect(try Self.number(figures, "leave_stocks_ms_to_zero") >= 0)
        #expect(try Self.number(figures, "leave_stocks_ms_to_zero") <= 50)
        #expect(try Self.number(figures, "leave_stocks_delivered_after") == 0)
        // And for backing out of a stock category while its charts are in flight.
        try Self.checkBackOutOfCategory(figures)
        // Idle is idle (target < 1%; loose here; anIdleAppSleeps… checks the wake-ups), and a flooded main queue
        // still yields frames (target ≥ 55).
        #expect(try Self.number(figures, "idle_cpu_pct") < 5)
        #expect(try Self.number(figures, "idle_asleep_after_ms") >= 0, "the app never fell asleep after the fling")
        // A bridge above redraw priority gives 0 frames while the flood's jobs run at full rate. When the jobs did not
        // run at full rate either, the whole process was off the CPU (seen once at load 9: 8 frames, 183 jobs), which
        // says nothing about the bridge.
        let floodFrames = try Self.number(figures, "flood_frames"), floodJobs = try Self.number(figures, "flood_jobs")
        #expect(floodJobs > 100)
        if floodJobs >= 1000 { #expect(floodFrames >= 10, "\(floodFrames) frames while \(floodJobs) flood jobs ran") }
        // Toggling tilt-shift rebinds every cell in place (still no wrong row, checked above); the plain thumbnails
        // had to be made, so something was delivered.
        #expect(try Self.number(figures, "toggle_deliveries") > 0)
        // Dragging the tilt-shift band cancelled renders in flight and showed previews and a final render.
        #expect(try Self.number(figures, "detail_renders_cancelled") > 0)
        #expect(try Self.number(figures, "detail_previews_shown") > 0)
        #expect(try Self.number(figures, "detail_full_shown") > 0)
        // Resizing redrew the detail chart off-main, coalesced (at most one per size).
        let resized = try Self.number(figures, "resize_detail_renders")
        #expect(resized >= 1 && resized <= 6)
        try Self.checkScreenshot(screenshot)
    }

    /// The categories script (the seed's bug to avoid: "if I clicked on the wrong category, I can't even back out
    /// until all that data loads"): a category of ~170 synthetic stocks is opened and left as soon as its charts are in
    /// flight; Back returns to the categories at once, withdraws that work and nothing of it arrives afterwards.
    @Test func backingOutOfACategoryWithdrawsItsCharts() throws {
        let figures = try Self.runApp(["--script", "categories", "--synthetic", "2000"])
        try Self.checkBackOutOfCategory(figures)
    }

    static func checkBackOutOfCategory(_ figures: [String: Any]) throws {
        #expect(try number(figures, "back_category_in_flight_before") >= 1, "no chart was in flight when backing out")
        #expect(try number(figures, "back_category_showing_categories") == 1)
        let zero = try number(figures, "back_category_ms_to_zero")
        #expect(zero >= 0 && zero <= 50, "the category's work took \(zero) ms to withdraw (-1: over 1 s)")
        #expect(try number(figures, "back_category_delivered_after") == 0)
    }

    /// Every cell wholly on screen in the mid-fling screenshot shows a picture (its image or a quick rendering), not
    /// the empty placeholder: at most 80% of its pixels are one colour (an empty cell is the window's background
    /// around an 8 × 6 grey box).
    static func checkNoEmptyCells(_ path: String) throws {
        let png = try ImageDecoder().decode(Data(contentsOf: URL(fileURLWithPath: path)))
        let json = try Data(contentsOf: URL(fileURLWithPath: path + ".cells.json"))
        let cells = try #require(try JSONSerialization.jsonObject(with: json) as? [String: [[String: Int]]])["cells"] ?? []
        #expect(!cells.isEmpty, "no cell wholly on screen mid-fling")
        png.withUnsafePixels { pixels in
            for cell in cells {
                guard let x = cell["x"], let y = cell["y"], let width = cell["width"], let height = cell["height"],
                    x >= 0, y >= 0, x + width <= png.width, y + height <= png.height, width > 0, height > 0
                else { continue }
                var counts: [UInt32: Int] = [:]
                for row in y..<(y + height) {
                    for column in x..<(x + width) {
                        let offset = (row * png.width + column) * 4
                        let colour = UInt32(pixels[offset]) << 16 | UInt32(pixels[offset + 1]) << 8 | UInt32(pixels[offset + 2])
                        counts[colour, default: 0] += 1
                    }
                }
                let share = Double(counts.values.max() ?? 0) / Double(width * height)
                #expect(share <= 0.8, "row \(cell["row"] ?? -1) was empty mid-fling (\(Int(share * 100))% one colour)")
            }
        }
    }

    /// Every cell wholly on screen after the fling shows its own row's image: the barcode read back from the PNG at
    /// the cell's place is the cell's row.
    static func checkScreenshot(_ path: String) throws {
        let png = try ImageDecoder().decode(Data(contentsOf: URL(fileURLWithPath: path)))
        let cellsData = try Data(contentsOf: URL(fileURLWithPath: path + ".cells.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: cellsData) as? [String: Any])
        let cells = try #require(object["cells"] as? [[String: Int]])
        #expect(cells.count >= 3, "the screenshot shows too few cells: \(cells)")
        for cell in cells {
            let row = try #require(cell["row"]), x = try #require(cell["x"]), y = try #require(cell["y"])
            let height = try #require(cell["height"])
            // Search a few pixels around the expected place (window decorations may offset the paintable).
            var found: Int?
            search: for dy in -3...3 {
                for dx in -3...3 {
                    let sampleY = y + height - 3 - 3 + dy
                    guard sampleY >= 0, sampleY < png.height else { continue }
                    if let value = BarcodeReader.read(png, row: sampleY, left: x + 4 + dx) {
                        found = value
                        break search
                    }
                }
            }
            #expect(found == row, "cell for row \(row) at (\(x), \(y)) shows \(found.map(String.init) ?? "no barcode")")
        }
    }

    /// With nothing to do the app falls asleep a quiet second after settling (no monitor pings, no status timer)
    /// and its main thread stays in `poll`: in the 2 s measured it wakes once, for the script's own end-of-window
    /// timer (0.5/s measured; ~23/s before the idle watch, from the monitor's 48 ms pings and the 500 ms status
    /// timer). A stalling main-queue job that arrives while asleep still shows as a hitch: the drain wakes the monitor
    /// before the job runs. Counts of wake-ups do not depend on the machine's load, so the bound is tight.
    @Test func anIdleAppSleepsAndStillCatchesAStall() throws {
        let figures = try Self.runApp(["--script", "idle"])
        let asleepAfter = try Self.number(figures, "idle_asleep_after_ms")
        #expect(asleepAfter >= 0, "the idle watch never fell asleep within 5 s")
        #expect(try Self.number(figures, "idle_asleep_at_end") == 1, "something woke the idle app")
        let wakeups = try Self.number(figures, "idle_main_wakeups_per_s")
        #expect(wakeups <= 2, "the idle app's main thread woke \(wakeups) times a second")
        #expect(try Self.number(figures, "idle_cpu_pct") < 1)
        #expect(try Self.number(figures, "idle_stall_hitches") >= 1, "a 150 ms stall while asleep went unseen")
        // 150 ms when the monitor saw the job start (measured at load 2–12); timed from the first ping's send it
        // is 48 ms shorter, and more under load, when the ping is sent late.
        #expect(try Self.number(figures, "idle_stall_hitch_ms") >= 40)
    }

    @Test func threeFullScrollsKeepTheCacheWithinBudgetAndMemorySteady() throws {
        let figures = try Self.runApp(["--script", "memory"])
        #expect(try Self.number(figures, "cache_bytes_after_scrolls") <= Self.number(figures, "cache_budget_bytes"))
        #expect(try Self.number(figures, "rss_growth_pct") < 10)
        #expect(try Self.number(figures, "wrong_row_deliveries") == 0)
    }

    /// The status bar sampled every 150 ms during a grid fling that wakes the app from sleep never says "idle" (it
    /// did for the first half second: the bar kept its asleep text until the status timer's first tick) and the
    /// monitor runs throughout; at rest, and at the end, the bar's counters are the report's (one source); the window
    /// keeps the width it was given.
    @Test func theStatusBarTellsTheTruthDuringAndAfterAFling() throws {
        let figures = try Self.runApp(["--script", "fling", "--grid"])
        #expect(try Self.number(figures, "status_samples_during_fling") >= 5)
        #expect(try Self.number(figures, "status_idle_samples_during_fling") == 0,
                "\(figures["status_texts_during_fling"] ?? "")")
        #expect(try Self.number(figures, "status_asleep_samples_during_fling") == 0)
        #expect(try Self.number(figures, "status_monitor_stopped_samples_during_fling") == 0)
        #expect(try Self.number(figures, "status_at_rest_asleep") == 1, "the app never came to rest after the fling")
        #expect(try Self.number(figures, "status_at_rest_matches_counters") == 1, "\(figures["status_at_rest_text"] ?? "")")
        #expect(try Self.number(figures, "status_at_rest_cached") == Self.number(figures, "counters_at_rest_cached"))
        #expect(try Self.number(figures, "status_at_rest_in_flight") == 0)
        // The bar never widens the window (its one long line did, by a character's width whenever "2 fps" became
        // "24 fps", and the grid's columns moved with it — the long "settle" tails of scripts/desk-vs-peers
        // --busy 2, issue 37), and its two lines fit: no figure (the blank area last) is hidden behind an ellipsis.
        #expect(try Self.number(figures, "window_width_max") == Self.number(figures, "window_width_asked"),
                "\(figures["status_bar"] ?? "")")
        #expect(try Self.number(figures, "status_bar_cut") == 0, "\(figures["status_bar"] ?? "")")
        // At exit the bar shows what the report writes.
        let bar = try #require(figures["status_bar"] as? String)
        for (name, key) in [("cached", "cached"), ("in flight", "in_flight"), ("cancelled", "renders_cancelled")] {
            let shown = bar.range(of: name + " ").map { Double(bar[$0.upperBound...].prefix { $0.isNumber }) ?? -1 }
            #expect(try shown == Self.number(figures, key), "\(bar) vs \(key)")
        }
    }

    @Test func naiveModeRendersInsideBindOnTheMainThread() throws {
        let figures = try Self.runApp(["--naive", "--script", "fling"])
        #expect(figures["mode"] as? String == "naive")
        #expect(figures["waste_pct"] == nil, "the naive mode has no prefetch to measure")
        #expect(try Self.number(figures, "photo_renders_started") > 0)
        #expect(try Self.number(figures, "pipeline_decodes") == 0, "naive mode must not use the pipeline")
        #expect(try Self.number(figures, "wrong_row_deliveries") == 0)
    }
}

/// Reads the barcode lanes-desk stamps into generated photos (the same layout as the app's IndexBarcode: red start
/// block, 16 black/white bits, blue end block, 4 px per block), from one row of pixels.
enum BarcodeReader {
    static func read(_ bitmap: Bitmap, row y: Int, left: Int) -> Int? {
        func centre(_ block: Int) -> RGBA? {
            let x = left + block * 4 + 2
            guard x >= 0, x < bitmap.width else { return nil }
            return bitmap[x, y]
        }
        guard let start = centre(0), let end = centre(17), start.red > 180, start.green < 80, start.blue < 80,
            end.blue > 180, end.red < 80, end.green < 80
        else { return nil }
        var value = 0
        for block in 1...16 {
            guard let pixel = centre(block) else { return nil }
            let level = (Int(pixel.red) + Int(pixel.green) + Int(pixel.blue)) / 3
            guard level > 200 || level < 55 else { return nil }
            value = value << 1 | (level > 127 ? 1 : 0)
        }
        return value
    }
}
