import CGtk4
import Lanes
import LanesGLib
import LanesImages
import LanesLists

/// Idle-time thumbnailing: while the grid is at rest (LanesLists' `PreloadTracker.idleRows`: still for half a second)
/// and no row on screen waits for its image, the folder's other thumbnails are made into the shared thumbnail cache
/// at background priority, a pool's worth at a time, outward from the screen in the way the user last scrolled. They
/// are withdrawn the moment the grid moves, and wait while a row on screen does; the engine runs every visible or
/// prefetch item before them. Nothing is kept in memory: the result lives on disk, where the next scroll, the next
/// launch and gThumb find it.
@MainActor
final class IdleThumbnails {
    private unowned let page: PhotosPage
    /// The loads in flight, by row, and the generation they belong to (a stop starts a new one, so a late
    /// cancellation is never taken for a load of the next round).
    private var tasks: [Int: ImageTask] = [:]
    private var generation = 0
    /// Where the walk outward from the screen is: the lines still to visit, and the rows of the current line.
    private var lines: IdleRows.Iterator?
    private var rows: [Int] = []
    private var timer: UInt32?
    private var lastOffset: Double?
    /// The folder's size when a walk last covered it from this position (nil: not walked since the last move): a walk
    /// starts again only after a move or when the listing found more.
    private var walkedCount: Int?
    /// Loads started, and those that finished with a thumbnail (made, or found current in the cache).
    private(set) var started = 0
    private(set) var finished = 0
    /// Walks that covered the whole folder.
    private(set) var walks = 0
    /// Rows passed over because the cache already had an entry for them (checked by `stat`, nothing read).
    private(set) var skipped = 0
    /// Rounds withdrawn because the grid moved or a row on screen needed the threads.
    private(set) var yields = 0

    static let delay: UInt32 = 500

    init(page: PhotosPage) {
        self.page = page
    }

    var inFlight: Int { tasks.count }
    var isWorking: Bool { lines != nil }

    /// A frame at scroll position `offset` (lines): a move withdraws the round; either way the next check is armed.
    func frame(offset: Double) {
        if let lastOffset, lastOffset != offset {
            stop(yielded: true)
            walkedCount = nil
        }
        lastOffset = offset
        arm()
    }

    /// Withdraws every load (the page was left, or the grid moved).
    func stop(yielded: Bool = false) {
        if yielded, lines != nil || !tasks.isEmpty { yields += 1 }
        generation += 1
        lines = nil
        rows = []
        let running = tasks
        tasks = [:]
        for task in running.values { task.cancel() }
    }

    private func arm() {
        guard timer == nil, page.pipeline.configuration.thumbnailCache != nil else { return }
        timer = GLibTimeout.start(priority: 200, intervalMilliseconds: Self.delay) { [weak self] in
            self?.timer = nil
            self?.check()
            return false
        }
    }

    /// At rest long enough and nothing on screen waiting: start (or go on with) the walk; otherwise look again later.
    private func check() {
        guard !page.isSuspended, !page.isShowingDetail else { return }
        guard !page.visibleCells().contains(where: { !$0.hasImage && $0.failure == nil }) else {
            stop(yielded: true)
            return arm()
        }
        if lines == nil {
            guard walkedCount != page.library.count else { return }
            guard let idle = page.idleLines() else { return arm() }
            lines = idle.makeIterator()
        }
        fill()
    }

    /// Keeps one load per decode thread in flight while rows remain.
    private func fill() {
        let threads = max(1, page.pipeline.configuration.decodeConcurrency)
        while tasks.count < threads, let row = nextRow() {
            guard row < page.library.count, let url = page.library.fileURL(row), page.library.problem(row) == nil
            else { continue }
            // Done already (by this app or another): a stat of the entry, not a load that reads and checks it.
            if let cache = page.pipeline.configuration.thumbnailCache,
               let original = try? ThumbnailCache.Original(file: url),
               ThumbnailSize.candidates(for: PhotoCell.thumbnail).contains(where: {
                   cache.hasEntry(for: original, size: $0)
               }) {
                skipped += 1
                continue
            }
            // The decode stage alone, writing the thumbnail to disk and nothing to the memory cache.
            let request = ImageRequest(
                url: url, targetSize: PhotoCell.thumbnail, cachePolicy: [.readsDisk, .writesDisk])
            let round = generation
            started += 1
            tasks[row] = page.pipeline.load(request, priority: .background) { [weak self] result in
                guard let self, round == generation else { return }
                tasks[row] = nil
                if case .success = result { finished += 1 }
                fill()
            }
        }
        if tasks.isEmpty, lines != nil, rows.isEmpty {   // the whole folder is done
            lines = nil
            walkedCount = page.library.count
            walks += 1
        }
    }

    private func nextRow() -> Int? {
        while rows.isEmpty {
            guard let line = lines?.next(), let perLine = page.itemsPerLine else { return nil }
            rows = Array(line * perLine..<min(page.library.count, (line + 1) * perLine))
        }
        return rows.removeFirst()
    }
}
