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
            originals.allSatisfy { cache.thumbnail(for: $0, size: PhotosPage.thumbnailSize) != nil }
        }
        record(app, "first_screen_thumbnails_cached", written == nil ? 0 : Double(originals.count))
    }
}
