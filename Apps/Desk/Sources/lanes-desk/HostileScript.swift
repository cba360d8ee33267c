import CGtk4
import Dispatch
import Foundation
import Lanes
import LanesAppSupport

extension Scripts {
    /// `--script hostile` (on the folder `HostileFolder` builds, unless `--folder` names another): lists the folder
    /// again from the start while an 8 ms monitor times the main thread (the listing runs off-main; the main thread
    /// only appends each batch), then brings each hostile file's cell on screen and records what it says, then
    /// scrolls to the end of the 20,000 photos. Figures: `listing_*`, `hostile_<case>_says` (the cell's words, "" when
    /// it shows an image), `hostile_<case>_shown`, `hostile_<case>_caption`, `hostile_bulk_*`, `running_as_root`.
    static func hostile(_ app: DeskApp) async {
        let page = app.photos
        if let folder = page.library.folder { app.report.append(("hostile_folder", .text(folder))) }
        let monitor = ResponsivenessMonitor(interval: .milliseconds(8), threshold: .milliseconds(16))
        monitor.start()
        page.reloadFolder()
        _ = await timeUntil(deadlineMilliseconds: 120_000) { page.listing?.isDone ?? true }
        monitor.stop()
        let latency = monitor.snapshot()
        if let listing = page.listing {
            record(app, "listing_entries", Double(listing.listed))
            record(app, "listing_batches", Double(listing.batches))
            record(app, "listing_first_batch_ms", Double(listing.firstBatchAt - listing.startedAt) / 1e6)
            record(app, "listing_ms", Double(listing.finishedAt - listing.startedAt) / 1e6)
            record(app, "listing_unreadable_folders", Double(listing.unreadableFolders.count))
            record(app, "listing_main_batch_max_ms", page.stats.listingMainMaxMs)
            record(app, "listing_main_latency_max_ms", milliseconds(latency.max))
            record(app, "listing_main_latency_p99_ms", milliseconds(latency.p99))
            record(app, "listing_hitches", Double(latency.hitches))
        }
        record(app, "running_as_root", getuid() == 0 ? 1 : 0)

        // Each hostile file's cell, brought on screen: it shows an image or says what is wrong.
        // The built folder's cases, or (`--urls`, another `--folder`) the first rows, as `row0`, `row1`...
        let cases = app.options.builtHostileFolder
            ? HostileFolder.cases.map(\.name) : (0..<min(page.library.count, 16)).map { "row\($0)" }
        var resolved = 0
        for (row, name) in cases.enumerated() where row < page.library.count {
            page.scroll(toRow: row)
            let cell = { page.cells.values.first { $0.row == row } }
            // A URL that stalls ends at the fetch's deadline (3 × --fetch-timeout).
            _ = await timeUntil(deadlineMilliseconds: 4_000 * app.options.fetchTimeout) {
                guard let cell = cell() else { return false }
                return cell.failure != nil || cell.hasImage
            }
            guard let found = cell() else { continue }
            if found.failure != nil || found.hasImage { resolved += 1 }
            app.report.append(("hostile_\(name)_says", .text(found.failure ?? "")))
            app.report.append(("hostile_\(name)_caption", .text(labelText(found.caption))))
            record(app, "hostile_\(name)_shown", found.hasImage ? 1 : 0)
        }
        record(app, "hostile_cases", Double(cases.count))
        record(app, "hostile_resolved", Double(resolved))
        page.scroll(toRow: 0)
        await settle(app)
        if let path = app.options.screenshot {
            do {
                try Screenshot.save(app.window, to: path, cells: page.whollyVisibleCells())
            } catch {
                FileHandle.standardError.write(Data("lanes-desk: \(error)\n".utf8))
            }
        }

        // The end of the folder: the last photos show.
        let adjustment = page.adjustment
        gtk_adjustment_set_value(adjustment, gtk_adjustment_get_upper(adjustment))
        _ = await timeUntil(deadlineMilliseconds: 15_000) {
            let visible = page.visibleCells()
            return !visible.isEmpty && visible.allSatisfy { $0.hasImage || $0.failure != nil }
        }
        let visible = page.visibleCells()
        record(app, "hostile_bulk_visible", Double(visible.count))
        record(app, "hostile_bulk_shown", Double(visible.filter(\.hasImage).count))
        record(app, "hostile_bulk_last_row", Double(visible.compactMap(\.row).max() ?? -1))
        record(app, "hostile_rss_mb", Report.residentMegabytes())
    }

    private static func labelText(_ label: Widget) -> String {
        gtk_label_get_text(gcast(label)).map { String(cString: $0) } ?? ""
    }
}
