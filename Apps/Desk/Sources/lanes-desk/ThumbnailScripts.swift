import CGtk4
import Dispatch
import LanesImages

extension Scripts {
    /// `--script first-screen`: from launch until every cell wholly on screen shows its image (a folder: once the
    /// listing is done), then what it took — milliseconds since launch, full decodes, fetches and thumbnail-cache
    /// hits — and until those rows' thumbnails are in the shared cache (what the next launch, or gThumb, reads).
    static func firstScreen(_ app: DeskApp) async {
        let photos = app.photos
        func filled() -> Bool {
            guard photos.listing?.isDone ?? true else { return false }
            let cells = photos.whollyVisibleCells()
            return !cells.isEmpty && cells.allSatisfy { $0.hasImage || $0.failure != nil }
        }
        let shown = await timeUntil(deadlineMilliseconds: 60_000) { filled() } != nil
        let statistics = photos.pipeline.statistics
        record(app, "first_screen_filled", shown ? 1 : 0)
        record(app, "first_screen_ms", Double(DispatchTime.now().uptimeNanoseconds - launchedAt) / 1e6)
        record(app, "first_screen_cells", Double(photos.whollyVisibleCells().count))
        record(app, "first_screen_decodes", Double(statistics.decodes))
        record(app, "first_screen_fetches", Double(statistics.fetches))
        record(app, "first_screen_thumbnail_hits", Double(statistics.thumbnailHits))
        guard let cache = photos.pipeline.configuration.thumbnailCache else { return }
        let originals = photos.whollyVisibleCells().compactMap { cell in
            cell.row.flatMap { photos.library.fileURL($0) }.flatMap { try? ThumbnailCache.Original(file: $0) }
        }
        let written = await timeUntil(deadlineMilliseconds: 20_000) {
            originals.allSatisfy { PhotosPage.isThumbnailed($0, in: cache) }
        }
        record(app, "first_screen_thumbnails_cached", written == nil ? 0 : Double(originals.count))
    }
}

extension Scripts {
    /// `--script idle-thumbnails` (after the first screen): waits for the idle thumbnailing to start, moves the grid
    /// by one line and checks on the next frame that it withdrew everything (if the walk was still going), then waits
    /// until the walk has resumed and ended, and counts the photos of the folder with a current thumbnail in the shared
    /// cache (at most 120 s). Every wait is on a state, not on a time: a fast machine may finish the walk in a frame.
    static func idleThumbnails(_ app: DeskApp) async {
        let photos = app.photos, idle = photos.idleThumbnails
        guard let cache = photos.pipeline.configuration.thumbnailCache else { return }
        // (A folder already in the cache starts no load: its walk just ends.)
        let startedIn = await timeUntil(deadlineMilliseconds: 10_000) { idle.started > 0 || idle.walks > 0 }
        record(app, "idle_started_after_ms", startedIn ?? -1)
        let walksBeforeMove = idle.walks
        // A fast machine may have walked the whole folder already: then there is nothing to withdraw.
        record(app, "idle_in_flight_at_move", Double(idle.inFlight + (idle.isWorking ? 1 : 0)))
        // The user moves: by the next frame nothing idle is in flight.
        let adjustment = photos.adjustment
        let perLine = photos.itemsPerLine ?? 1
        let lines = max(1, (photos.library.count + perLine - 1) / perLine)
        let lineHeight = gtk_adjustment_get_upper(adjustment) / Double(lines)
        gtk_adjustment_set_value(adjustment, gtk_adjustment_get_value(adjustment) + max(1, lineHeight))
        _ = await timeUntil(deadlineMilliseconds: 1000) { idle.yields > 0 }
        record(app, "idle_in_flight_after_move", Double(idle.inFlight))
        record(app, "idle_yields", Double(idle.yields))
        // At rest again: the walk resumes and covers the folder.
        let originals = (0..<photos.library.count).compactMap { row in
            photos.library.fileURL(row).flatMap { try? ThumbnailCache.Original(file: $0) }
        }
        func cached() -> Int {
            originals.filter { PhotosPage.isThumbnailed($0, in: cache) }.count
        }
        let done = await timeUntil(deadlineMilliseconds: 120_000) {
            idle.walks > walksBeforeMove && !idle.isWorking && idle.inFlight == 0
        }
        record(app, "idle_done_ms", done ?? -1)
        // The walk ends when its loads do; their PNGs are written after them, on the disk-writes queue.
        let written = await timeUntil(deadlineMilliseconds: 20_000) {
            originals.allSatisfy { original in
                ThumbnailSize.candidates(for: PhotoCell.thumbnail).contains { cache.hasEntry(for: original, size: $0) }
            }
        }
        record(app, "idle_written_after_ms", written ?? -1)
        record(app, "idle_cached", Double(cached()))
        record(app, "idle_files", Double(originals.count))
        record(app, "idle_started", Double(idle.started))
        record(app, "idle_finished", Double(idle.finished))
        record(app, "idle_skipped", Double(idle.skipped))
    }
}
