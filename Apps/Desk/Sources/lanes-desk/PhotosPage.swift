import CGtk4
import Foundation
import Lanes
import LanesAppSupport
import LanesImages
import LanesLists

/// What the Photos page has done, for the status bar and the report.
struct PhotoStats {
    var rendersStarted = 0
    var rendersCancelled = 0
    var wrongRowDeliveries = 0
    var delivered = 0
    var deliveredWhileLeft = 0
    var cacheHits = 0
    /// Milliseconds from a row coming on screen without its image to the image showing.
    var visibleToShown: [Double] = []
    /// Rows that came on screen and left (or were unbound) without showing their image.
    var leftUnshown = 0
    /// Rows on screen without their image when the list last came to rest, and milliseconds from then to each image.
    var unfilledAtRest = 0
    var restToShown: [Double] = []
    /// Images that arrived for rows off screen and went away without the row coming on screen (wasted prefetches).
    var neverShown = 0
    /// The longest the main thread spent taking in one batch of a folder listing (ms).
    var listingMainMaxMs = 0.0
    /// Quick renderings shown (the image quick tier), and rows that came on screen and left without showing anything,
    /// not even a quick rendering.
    var quickShown = 0
    var leftBlank = 0
}

/// How a bound row loads now: at what priority, whether it is on screen (a row on screen loads at utility when
/// the preload plan says its line leaves the screen before its image could be ready), and whether it wants the image
/// quick tier first (the list brings rows on screen faster than the threads render them).
struct RowLoad: Equatable {
    var priority: WorkPriority
    var onScreen: Bool
    var quick = false
}

/// The Photos page: a virtualised grid over the library (GtkGridView recycles cells; each bound cell loads its
/// thumbnail through the pipeline at visible or prefetch priority, by the viewport) and a detail view.
@MainActor
final class PhotosPage {
    private(set) var library: PhotoLibrary
    let pipeline: ImagePipeline
    let naive: Bool
    var tiltShift: Bool
    var stats = PhotoStats()
    let root: Widget
    let scroller: Widget
    private(set) var grid: Widget!
    private(set) var isSuspended = false
    let placeholder: OpaquePointer
    let failedPlaceholder: OpaquePointer
    private(set) var cells: [ObjectIdentifier: PhotoCell] = [:]
    private let stack: Widget
    private(set) var detail: PhotoDetail!
    private let naiveDecoder: LibraryDecoder?
    /// The grid's model: one string per entry (the cells bind by position).
    private var strings: OpaquePointer!
    /// The folder being listed off the main thread (nil when done or not a folder), and what the listing did.
    private(set) var listing: FolderListing?
    private let emptyLabel: Widget
    /// GTK's kinetic scrolling, heard by the preload (``KineticScroll``).
    private(set) var kinetic: KineticScroll!
    /// Blank area of the grid since the last reset (the app's start, or the fling script's): each frame, the rows on
    /// screen and those showing nothing yet (LanesLists' `BlankArea`, as `lanes-bench scroll` counts it).
    var blankArea = BlankArea()

    static let cacheBudget = 48 << 20
    /// Where decodes, filters and charts run: Lanes' pool, each item at its priority's OS level — the rows on screen
    /// (visible, normal) at the process's own level, so they do not wait behind any ordinary process of the machine;
    /// prefetch at nice +8 and the idle thumbnailing (background) at +10, both with the short time slice, below the
    /// main thread. Queues order items by priority: visible rows first. `LANES_DESK_ALL_LOWEST=1` caps every item at
    /// the lowest level instead (the app before issue 37, for comparison).
    nonisolated static let background = ThreadPoolExecutor(
        maxThreads: ProcessInfo.processInfo.activeProcessorCount, idleTimeout: 30,
        ceiling: ProcessInfo.processInfo.environment["LANES_DESK_ALL_LOWEST"] == nil ? .visible : .background)

    /// `LANES_DESK_QUICK`: when rows ask for the image quick tier — as the preload plans (unset), never (`off`, the
    /// app without the tier, for comparison) or always (`always`: every row's quick rendering first).
    nonisolated static let quickTier = ProcessInfo.processInfo.environment["LANES_DESK_QUICK"] ?? "planned"

    let useGrid: Bool
    /// `--preload fixed`: a fixed 1.5 screens each way instead of the adaptive preload (for comparison).
    let fixedPreload: Bool

    /// The freedesktop thumbnail cache local files' thumbnails come from and go to (nil: `--no-thumbnail-cache`), at
    /// the size that covers a cell.
    static let thumbnailSize = ThumbnailSize.fitting(PhotoCell.thumbnail)!

    /// Whether `cache` holds a current thumbnail that serves a cell for `original` (the scripts' check).
    static func isThumbnailed(_ original: ThumbnailCache.Original, in cache: ThumbnailCache) -> Bool {
        ThumbnailSize.candidates(for: PhotoCell.thumbnail).contains { cache.thumbnail(for: original, size: $0) != nil }
    }

    init(
        library: PhotoLibrary, naive: Bool, tiltShift: Bool, asGrid: Bool, fixedPreload: Bool = false,
        fetchPolicy: FetchPolicy = FetchPolicy(), thumbnailCache: ThumbnailCache? = nil
    ) {
        useGrid = asGrid
        self.fixedPreload = fixedPreload
        self.library = library
        self.naive = naive
        self.tiltShift = tiltShift
        let decoder: LibraryDecoder
        switch library.content {
        case .generated(let generated, _): decoder = LibraryDecoder(library: generated, keepsSources: !naive)
        case .entries: decoder = LibraryDecoder(library: GeneratedLibrary(sources: []))
        }
        naiveDecoder = naive ? decoder : nil
        var configuration = ImagePipelineConfiguration(
            fetcher: LibraryFetcher(policy: fetchPolicy), decoder: decoder, memoryCacheLimit: Self.cacheBudget,
            decodedBytesLimit: 64 << 20, executor: Self.background)
        // Local files: thumbnails gThumb, Files or an earlier run made are shown without decoding the photo, and
        // those made here are kept for them (the generated library's URLs are not files: it never uses the cache).
        configuration.thumbnailCache = thumbnailCache
        pipeline = ImagePipeline(configuration: configuration)
        placeholder = makeTexture(Bitmap(width: 8, height: 6, filledWith: RGBA(grey: 200)))
        // A failed cell's picture: a pale red box the size of a thumbnail, with the reason written over it.
        failedPlaceholder = makeTexture(Bitmap(
            width: PhotoCell.thumbnail.maxWidth, height: PhotoCell.thumbnail.maxHeight,
            filledWith: RGBA(red: 250, green: 222, blue: 222)))
        stack = gtk_stack_new()
        root = stack
        emptyLabel = gtk_label_new("")
        scroller = gtk_scrolled_window_new()
        gtk_widget_set_vexpand(scroller, 1)
        gtk_widget_set_hexpand(scroller, 1)
        gtk_stack_add_named(gcast(stack), scroller, "grid")
        grid = makeGrid()
        gtk_scrolled_window_set_child(gcast(scroller), grid)
        detail = PhotoDetail(page: self)
        gtk_stack_add_named(gcast(stack), detail.root, "detail")
        gtk_stack_add_named(gcast(stack), emptyLabel, "empty")
        if let folder = library.folder {
            listing = FolderListing(folder: folder) { [unowned self] batch, done in listed(batch, done: done) }
        }
        kinetic = KineticScroll(page: self, scroller: scroller)
    }

    /// A batch of the folder's entries arrived from ``FolderListing``: the grid grows by it (one model change).
    private func listed(_ batch: [PhotoEntry], done: Bool) {
        let began = DispatchTime.now().uptimeNanoseconds
        defer {
            stats.listingMainMaxMs = max(stats.listingMainMaxMs, Double(DispatchTime.now().uptimeNanoseconds - began) / 1e6)
        }
        let start = UInt32(library.count)
        library.append(batch)
        if !batch.isEmpty {
            var pointers = (0..<batch.count).map { strdup(String(Int(start) + $0)) } + [nil]
            pointers.withUnsafeMutableBufferPointer { buffer in
                buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { list in
                    gtk_string_list_splice(strings, start, 0, list.baseAddress)
                }
            }
            for pointer in pointers { free(pointer) }
        }
        if done, library.count == 0, let folder = library.folder {
            setLabel(emptyLabel,
                     "No PNG, JPEG, WebP, GIF, AVIF, HEIC or JPEG XL files in " + TerminalText.sanitized(folder))
            gtk_stack_set_visible_child_name(gcast(stack), "empty")
        }
    }

    private func makeGrid() -> Widget {
        strings = gtk_string_list_new(nil)
        for index in 0..<library.count { gtk_string_list_append(strings, String(index)) }
        let selection = gtk_no_selection_new(gcast(raw(strings)))
        let factory = gtk_signal_list_item_factory_new()
        onSignal(raw(factory), "setup") { [unowned self] item in
            let cell = PhotoCell(page: self)
            attach(cell, to: item, key: "lanes-cell")
            gtk_list_item_set_child(gcast(item), cell.root)
            cells[ObjectIdentifier(cell)] = cell
        }
        onSignal(raw(factory), "bind") { item in
            guard let cell = attached(item, key: "lanes-cell", as: PhotoCell.self) else { return }
            Profile.measure("bind") { cell.bind(Int(gtk_list_item_get_position(gcast(item)))) }
        }
        onSignal(raw(factory), "unbind") { item in
            Profile.measure("unbind") { attached(item, key: "lanes-cell", as: PhotoCell.self)?.unbind() }
        }
        onSignal(raw(factory), "teardown") { [unowned self] item in
            if let cell = attached(item, key: "lanes-cell", as: PhotoCell.self) {
                cells[ObjectIdentifier(cell)] = nil
            }
        }
        let grid: Widget
        if useGrid {
            grid = gtk_grid_view_new(gcast(raw(selection)), factory)!
            gtk_grid_view_set_max_columns(gcast(grid), 12)
            gtk_grid_view_set_single_click_activate(gcast(grid), 1)
        } else {
            grid = gtk_list_view_new(gcast(raw(selection)), factory)!
            gtk_list_view_set_single_click_activate(gcast(grid), 1)
        }
        onSignal(raw(grid), "activate") { [unowned self] (position: UInt32) in open(Int(position)) }
        return grid
    }

    var adjustment: UnsafeMutablePointer<GtkAdjustment> { gtk_scrolled_window_get_vadjustment(gcast(scroller))! }

    /// Lists the folder again from the start (the grid empties, then fills as the listing goes).
    func reloadFolder() {
        guard let folder = library.folder else { return }
        listing?.cancel()
        idleThumbnails.stop()
        let count = UInt32(library.count)
        library = PhotoLibrary(content: .entries([]), folder: folder)
        gtk_string_list_splice(strings, 0, count, nil)
        stats.listingMainMaxMs = 0
        listing = FolderListing(folder: folder) { [unowned self] batch, done in listed(batch, done: done) }
    }

    /// Scrolls so that row `row`'s line is at the top (as far as the grid goes).
    func scroll(toRow row: Int) {
        guard let viewport else { return }
        gtk_adjustment_set_value(adjustment, Double(row / viewport.perLine) * viewport.lineHeight)
    }

    // MARK: Requests

    var thumbnailTiltShift: TiltShift? { tiltShift ? TiltShift(focusCenter: 0.5, focusHeight: 0.2, sigma: 3) : nil }

    func thumbnailRequest(_ row: Int) -> ImageRequest {
        library.request(row, size: PhotoCell.thumbnail, tiltShift: thumbnailTiltShift)
    }

    /// The `--naive` path: fetch, decode, filter and stamp right here, on the main thread, inside bind.
    func renderNaively(_ row: Int, into cell: PhotoCell) {
        stats.rendersStarted += 1
        let request = thumbnailRequest(row)
        do {
            let data: Data
            if GeneratedLibrary.index(of: request.url) != nil {
                data = Data(GeneratedLibrary.marker + Array(String(row).utf8))
            } else {
                data = try Data(contentsOf: request.url)
            }
            var bitmap = try naiveDecoder!.decode(data, targetSize: request.targetSize, maxPixels: 100_000_000)
            for processor in request.processors { bitmap = try processor.process(bitmap) }
            stats.delivered += 1
            cell.show(bitmap)
        } catch {
            cell.showFailure(error)
        }
    }

    // MARK: Viewport

    /// Which lines (rows of the grid) are worth loading beyond the viewport: LanesLists' adaptive preload, fed the
    /// scroll position once a frame and planned against what a thumbnail costs (the pipeline loader's running
    /// estimate, on the pool's threads). Nothing at rest, while the user jitters or just turned; ahead of a steady
    /// scroll or a fling, the lines the threads can have ready before they leave the screen (skipping those too close
    /// to make it); dropped on a jump. GTK keeps ~200 rows bound around the viewport; bound rows outside these lines
    /// wait (unloaded) until they come near or on screen.
    private var preloadTracker = PreloadTracker()
    /// The folder's other thumbnails, made into the shared cache while the grid is at rest.
    private(set) lazy var idleThumbnails = IdleThumbnails(page: self)
    private var preloadLines = PreloadRows.empty
    /// The frame clock's time of the last frame (ns, monotonic): the tracker times the scroll by the frames that
    /// drew it, not by when the after-paint hook got to run (which jitters with the frame's own work and the load,
    /// and made a steady scroll look like flicks and stops: the plan flapped and rows were dropped and asked again).
    private var frameTime: UInt64 = 0

    /// The viewport in lines: the line height, the first line's offset and the page height (nil before the first
    /// layout). The list's rows are all the same height, so the adjustment says which rows the viewport shows.
    private var viewport: (lineHeight: Double, value: Double, page: Double, lines: Int, perLine: Int)? {
        let adjustment = self.adjustment
        let upper = gtk_adjustment_get_upper(adjustment), page = gtk_adjustment_get_page_size(adjustment)
        guard upper > 0, page > 0, library.count > 0 else { return nil }
        let perLine = useGrid ? max(1, gridColumns) : 1
        let lines = (library.count + perLine - 1) / perLine
        return (upper / Double(lines), gtk_adjustment_get_value(adjustment), page, lines, perLine)
    }

    /// How row `row` should load now: on screen at visible priority (utility when the plan says its line leaves the
    /// screen before it could be ready), in the preload lines at the plan's priority (prefetch, or normal while the
    /// scroll outruns the threads), nil when not worth loading yet.
    func load(for row: Int) -> RowLoad? {
        // Before the first layout the viewport is unknown: the first rows are what will show; the rest wait a frame.
        guard let viewport else { return row < 12 ? RowLoad(priority: .visible, onScreen: true) : nil }
        let line = row / viewport.perLine
        let top = Double(line) * viewport.lineHeight, bottom = top + viewport.lineHeight
        let quick = switch Self.quickTier {
        case "off": false
        case "always": true
        default: !fixedPreload && preloadTracker.wantsQuick(forRow: line)
        }
        if bottom > viewport.value && top < viewport.value + viewport.page {
            let priority = fixedPreload ? .visible : preloadTracker.loadPriority(forRow: line)
            return RowLoad(priority: priority, onScreen: true, quick: quick)
        }
        guard preloadLines.contains(line) else { return nil }
        return RowLoad(priority: fixedPreload ? .prefetch : preloadTracker.preloadPriority, onScreen: false, quick: quick)
    }

    /// Feeds the scroll position to the preload tracker and keeps its window of lines.
    private func updatePreloadWindow() {
        if frameTime == 0 { frameTime = UInt64(g_get_monotonic_time()) * 1000 }
        guard let viewport else { return }
        let first = Int((viewport.value / viewport.lineHeight).rounded(.down))
        let last = Int(((viewport.value + viewport.page) / viewport.lineHeight).rounded(.up))
        preloadTracker.planPreload(
            costs: pipeline.loader.costs, threads: pipeline.configuration.decodeConcurrency,
            itemsPerRow: viewport.perLine)
        preloadTracker.update(
            offset: viewport.value / viewport.lineHeight, at: frameTime, rowHeight: 1,
            viewportHeight: viewport.page / viewport.lineHeight)
        let visible = first..<max(first, last)
        if fixedPreload {
            let margin = Int((1.5 * viewport.page / viewport.lineHeight).rounded(.up))
            preloadLines = PreloadRows(
                above: max(0, first - margin)..<first,
                below: visible.upperBound..<max(visible.upperBound, min(viewport.lines, visible.upperBound + margin)))
        } else {
            preloadLines = preloadTracker.preloadRows(around: visible, rowCount: viewport.lines)
        }
    }

    /// Columns of the grid (from the widest cell seen; GTK 4.8 does not say).
    private var gridColumns: Int {
        let width = Double(gtk_widget_get_width(scroller))
        return min(12, max(1, Int(width / Double(PhotoCell.thumbnail.maxWidth + 12))))
    }

    /// Whether `cell` intersects the scrolled viewport now (GTK binds ~200 rows beyond it; those are prefetch).
    func isVisible(_ cell: PhotoCell) -> Bool {
        // GTK keeps recycled items beyond the viewport bound but not drawn; their old allocation is stale.
        guard gtk_widget_is_drawable(cell.root) != 0 else { return false }
        var bounds = graphene_rect_t()
        guard gtk_widget_compute_bounds(cell.root, scroller, &bounds) != 0 else { return false }
        let height = Float(gtk_widget_get_height(scroller))
        return bounds.origin.y + bounds.size.height > 0 && bounds.origin.y < height
    }

    /// Once a frame (`frameTime`: the frame clock's, µs): promotes rows that entered the viewport, demotes those that
    /// left, starts rows that came near and withdraws rows that went far.
    func updatePriorities(frameTime microseconds: Int64? = nil) {
        if let microseconds, microseconds > 0 { frameTime = UInt64(microseconds) * 1000 }
        guard !naive, !isSuspended else { return }
        updatePreloadWindow()
        var visible = 0, blank = 0
        for cell in cells.values {
            guard let row = cell.row else { continue }
            cell.updatePriority(load(for: row))
            guard cell.load?.onScreen == true else { continue }
            visible += 1
            if !cell.hasContent { blank += 1 }
        }
        if let microseconds, microseconds > 0 { blankArea.frame(at: Double(microseconds) / 1e6, blank: blank, visible: visible) }
        if let viewport, library.folder != nil { idleThumbnails.frame(offset: viewport.value / viewport.lineHeight) }
    }

    /// The lines to thumbnail at rest, outward from the screen (nil while the grid moves or has not rested long
    /// enough): the preload tracker's idle rows, in lines.
    func idleLines() -> IdleRows? {
        guard let viewport else { return nil }
        let first = Int((viewport.value / viewport.lineHeight).rounded(.down))
        let last = Int(((viewport.value + viewport.page) / viewport.lineHeight).rounded(.up))
        return preloadTracker.idleRows(
            around: first..<max(first, last), rowCount: viewport.lines,
            at: UInt64(g_get_monotonic_time()) * 1000, after: Double(IdleThumbnails.delay) / 1000)
    }

    /// Items a line of the grid holds (nil before the first layout).
    var itemsPerLine: Int? { viewport?.perLine }

    /// The page's height in pixels (the adjustment's page size).
    var pageSize: Double { gtk_adjustment_get_page_size(adjustment) }

    /// The fingers lifted and the grid flies on at `pixelsPerSecond` (the adjustment's), decaying as GTK's kinetic
    /// scrolling does (``KineticScroll``): the preload plans over the whole path at once.
    func liftOff(pixelsPerSecond: Double) {
        guard let viewport, !fixedPreload else { return }
        preloadTracker.liftOff(
            .gtk(velocity: pixelsPerSecond / viewport.lineHeight), offset: viewport.value / viewport.lineHeight,
            at: UInt64(g_get_monotonic_time()) * 1000)
        updatePriorities()
    }

    /// A finger is down: the fling's prediction is dropped (the list follows the finger).
    func touchDown() {
        preloadTracker.touchDown(at: UInt64(g_get_monotonic_time()) * 1000)
    }

    /// The scroll stopped: rows on screen still waiting for their images are timed from now as well.
    func cameToRest() {
        RowTrace.mark("rest")
        updatePriorities()
        let now = DispatchTime.now().uptimeNanoseconds
        stats.unfilledAtRest = cells.values.filter { $0.cameToRest(at: now) }.count
        stats.restToShown = []
    }

    /// Bound cells that are visible now, with their rows.
    func visibleCells() -> [PhotoCell] {
        cells.values.filter { $0.row != nil && isVisible($0) }
    }

    /// Bound cells whose picture lies wholly inside the viewport (what a screenshot shows uncovered).
    func whollyVisibleCells() -> [PhotoCell] {
        let height = Float(gtk_widget_get_height(scroller))
        return visibleCells().filter { cell in
            var bounds = graphene_rect_t()
            guard gtk_widget_compute_bounds(cell.picture, scroller, &bounds) != 0 else { return false }
            return bounds.origin.y >= 0 && bounds.origin.y + bounds.size.height <= height
        }
    }

    // MARK: Leaving and coming back

    /// The page was left: every load (cells and detail) is withdrawn; nothing is delivered until ``resume()``.
    func suspend() {
        guard !isSuspended else { return }
        isSuspended = true
        idleThumbnails.stop()
        for cell in cells.values { cell.suspend() }
        detail.cancel()
    }

    func resume() {
        guard isSuspended else { return }
        isSuspended = false
        for cell in cells.values { cell.resume() }
        detail.resume()
    }

    /// Image stages in flight (decodes and processor chains).
    var inFlight: Int { pipeline.stagesInFlight.bitmaps }

    // MARK: Detail

    func open(_ row: Int) {
        gtk_stack_set_visible_child_name(gcast(stack), "detail")
        detail.open(row)
    }

    func closeDetail() {
        detail.close()
        gtk_stack_set_visible_child_name(gcast(stack), "grid")
    }

    var isShowingDetail: Bool { detail.row != nil }

    /// Turns tilt-shift on or off for the thumbnails: every bound cell reloads (cached images come back at once).
    func setTiltShift(_ on: Bool) {
        guard on != tiltShift else { return }
        tiltShift = on
        for cell in cells.values {
            guard let row = cell.row else { continue }
            cell.bind(row)
        }
    }
}
