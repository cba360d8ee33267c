import CGtk4
import Dispatch
import Lanes
import LanesImages
import LanesLists

/// One reusable grid cell: a picture at thumbnail size and a caption. Bound to a row, it shows the placeholder at
/// once and loads the row's thumbnail through an `ImageBinding` (off the main thread; never another row's image);
/// unbound, it withdraws the load. While the grid outruns the threads (``RowLoad/quick``), the binding's image quick
/// tier (`ImagePipeline.quickLoader`) shows a quick rendering first — loaded for a row on screen, prefetched for a
/// row ahead — then the thumbnail, never the reverse.
@MainActor
final class PhotoCell {
    static let thumbnail = TargetSize(maxWidth: 160, maxHeight: 120)

    let root: Widget
    let picture: Widget
    let caption: Widget
    /// Written over the picture when the row's image cannot be shown: what is wrong, in words.
    let failureLabel: Widget
    /// What ``failureLabel`` says (nil while the cell shows an image or a placeholder).
    private(set) var failure: String?
    private(set) var row: Int?
    /// How the row loads now (nil: not loading).
    private(set) var load: RowLoad?
    /// Whether the picture shows the row's image (not a placeholder), or a quick rendering of it.
    private(set) var hasImage = false
    private(set) var hasQuick = false
    /// Whether the cell shows anything of its row: the image, a quick rendering or why it failed (not blank).
    var hasContent: Bool { hasImage || hasQuick || failure != nil }
    /// The quick rendering prefetched for the row while it was ahead of the screen (withdrawn with the row).
    private var quickPrefetch: ImageRequest?
    /// When the row came into the viewport without its image, and when the list came to rest with it still waiting
    /// (nil when not waiting): the page's visible → shown figures.
    private var visibleSince: UInt64?
    private(set) var restSince: UInt64?
    /// An image arrived while the row was off screen and the row has not been on screen since (wasted if it goes).
    private var unseenImage = false
    private unowned let page: PhotosPage
    private lazy var binding = ImageBinding(
        pipeline: page.pipeline, quick: true,
        placeholder: { [unowned self] _ in showPlaceholder() },
        preview: { [unowned self] _, preview in showPreview(preview) },
        handler: { [unowned self] request, result in deliver(request, result) })

    init(page: PhotosPage) {
        self.page = page
        root = gtk_box_new(page.useGrid ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL, 8)
        picture = gtk_picture_new()
        caption = gtk_label_new("")
        failureLabel = gtk_label_new("")
        gtk_widget_set_size_request(picture, Int32(Self.thumbnail.maxWidth), Int32(Self.thumbnail.maxHeight))
        // Never upscale a smaller thumbnail (a landscape photo from --folder) to the cell's height.
        gtk_picture_set_content_fit(gcast(picture), GTK_CONTENT_FIT_SCALE_DOWN)
        gtk_label_set_ellipsize(gcast(caption), PANGO_ELLIPSIZE_END)
        if page.useGrid { gtk_widget_set_size_request(caption, Int32(Self.thumbnail.maxWidth), -1) }
        gtk_label_set_xalign(gcast(caption), 0)
        gtk_label_set_wrap(gcast(failureLabel), 1)
        gtk_label_set_wrap_mode(gcast(failureLabel), PANGO_WRAP_WORD_CHAR)
        gtk_label_set_lines(gcast(failureLabel), 5)
        gtk_label_set_ellipsize(gcast(failureLabel), PANGO_ELLIPSIZE_END)
        gtk_label_set_justify(gcast(failureLabel), GTK_JUSTIFY_CENTER)
        gtk_label_set_max_width_chars(gcast(failureLabel), 18)
        gtk_widget_set_size_request(failureLabel, Int32(Self.thumbnail.maxWidth) - 12, -1)
        gtk_widget_set_halign(failureLabel, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(failureLabel, GTK_ALIGN_CENTER)
        gtk_widget_set_visible(failureLabel, 0)
        let overlay = gtk_overlay_new()!
        gtk_overlay_set_child(gcast(overlay), picture)
        gtk_overlay_add_overlay(gcast(overlay), failureLabel)
        gtk_box_append(gcast(root), overlay)
        gtk_box_append(gcast(root), caption)
    }

    /// Shows row `row` (a list item's `bind`): loads it now if it is on or near the screen, else when it comes near.
    func bind(_ row: Int) {
        noteVisibility(nil)
        RowTrace.mark("bind", row: row)
        if self.row != nil {
            // Rebound without an unbind (GTK always unbinds first; a tilt-shift toggle rebinds): drop the old load.
            withdraw()
            load = nil
        }
        self.row = row
        setLabel(caption, page.library.title(row))
        if let problem = page.library.problem(row) {
            showFailure(reason: problem)
            return
        }
        if page.naive {
            page.renderNaively(row, into: self)
            return
        }
        showPlaceholder()
        updatePriority(page.load(for: row))
    }

    /// Stops showing the row (a list item's `unbind`): the load is withdrawn.
    func unbind() {
        noteVisibility(nil)
        withdraw()
        row = nil
        load = nil
        showPlaceholder()
    }

    /// Loads the row again after the page was left and came back.
    func resume() {
        guard let row, !page.naive else { return }
        load = nil
        updatePriority(page.load(for: row))
    }

    /// Withdraws the load but keeps the row (the page was left).
    func suspend() {
        noteVisibility(nil)
        withdraw()
        load = nil
    }

    /// Starts, re-prioritises or withdraws the row's load: `nil` means too far from the viewport to load now.
    func updatePriority(_ wanted: RowLoad?) {
        // A row whose entry cannot be loaded (found while listing) keeps saying why and loads nothing.
        guard let row, !page.naive, page.library.problem(row) == nil else { return }
        noteVisibility(wanted)
        guard wanted != load else { return }
        let old = load?.priority
        load = wanted
        RowTrace.load(row: row, priority: wanted?.priority, onScreen: wanted?.onScreen ?? false)
        guard let wanted else {
            withdraw()
            return
        }
        let request = binding.request ?? page.thumbnailRequest(row)
        // On screen, a row that cannot get its image in time asks for the quick rendering; ahead of the screen it is
        // prefetched (at the preload's priority, not the visible one the binding would give it).
        let asksQuick = wanted.quick && wanted.onScreen
        if wanted.quick, !wanted.onScreen, quickPrefetch == nil, !binding.isLoaded {
            page.pipeline.quickLoader.prefetch(CollectionOfOne(request), priority: wanted.priority)
            quickPrefetch = request
        }
        if binding.request == nil {
            if binding.show(request, priority: wanted.priority, quick: asksQuick) {
                page.stats.cacheHits += 1
            } else {
                page.stats.rendersStarted += 1
            }
        } else if wanted.priority != old || asksQuick {
            binding.show(request, priority: wanted.priority, quick: asksQuick)
        }
    }

    /// Withdraws the quick rendering prefetched for the row, if any (the row went, or its image came).
    private func dropQuickPrefetch() {
        guard let quickPrefetch else { return }
        page.pipeline.quickLoader.cancelPrefetch(CollectionOfOne(quickPrefetch))
        self.quickPrefetch = nil
    }

    private func withdraw() {
        dropQuickPrefetch()
        guard !page.naive, binding.request != nil else { return }
        if !binding.isLoaded { page.stats.rendersCancelled += 1 }
        binding.clear()
    }

    func showPlaceholder() {
        hasImage = false
        hasQuick = false
        gtk_picture_set_content_fit(gcast(picture), GTK_CONTENT_FIT_SCALE_DOWN)
        clearFailure()
        gtk_picture_set_paintable(gcast(picture), page.placeholder)
    }

    /// Shows why the row's image failed, in words over a pale red box (``FailureText``).
    func showFailure(_ error: any Error) {
        showFailure(reason: FailureText.reason(error))
    }

    func showFailure(reason: String) {
        hasImage = false
        hasQuick = false
        failure = reason
        gtk_picture_set_paintable(gcast(picture), page.failedPlaceholder)
        setLabel(failureLabel, "⚠ " + reason)
        gtk_widget_set_tooltip_text(root, reason)
        gtk_widget_set_visible(failureLabel, 1)
    }

    private func clearFailure() {
        guard failure != nil else { return }
        failure = nil
        gtk_widget_set_visible(failureLabel, 0)
        gtk_widget_set_tooltip_text(root, nil)
    }

    /// Shows what has arrived of the row's image (a progressive JPEG's scans, an interlaced PNG's passes, at most one
    /// every half second); the row still waits for its image, so it is not counted as shown.
    func showPreview(_ preview: Bitmap) {
        clearFailure()
        setTexture(makeTexture(preview), in: picture)
    }

    /// Shows a quick rendering of the row's image (the quick tier): content, but the row still waits for its image.
    func showQuick(_ bitmap: Bitmap) {
        // A quick rendering is smaller than the cell: it fills it (a blurred photo, not a small one).
        present(bitmap, fit: GTK_CONTENT_FIT_CONTAIN)
        hasQuick = true
        page.stats.quickShown += 1
    }

    func show(_ bitmap: Bitmap) {
        present(bitmap, fit: GTK_CONTENT_FIT_SCALE_DOWN)
        hasImage = true
        hasQuick = false
        if let row { RowTrace.shown(row: row) }
        dropQuickPrefetch()
        unseenImage = !page.naive && load?.onScreen != true   // the naive mode keeps no priorities: it renders in bind
        let now = DispatchTime.now().uptimeNanoseconds
        if let since = visibleSince { page.stats.visibleToShown.append(Double(now - min(now, since)) / 1e6) }
        if let since = restSince { page.stats.restToShown.append(Double(now - min(now, since)) / 1e6) }
        visibleSince = nil
        restSince = nil
    }

    /// Puts an image of the row in the picture, fitted as `fit` says (what ``show(_:)`` and ``showQuick(_:)``
    /// share): a stamped library's image that carries another row's index is counted as a wrong-row delivery.
    private func present(_ bitmap: Bitmap, fit: GtkContentFit) {
        if page.library.isStamped, IndexBarcode.read(bitmap) != row { page.stats.wrongRowDeliveries += 1 }
        clearFailure()
        gtk_picture_set_content_fit(gcast(picture), fit)
        setTexture(makeTexture(bitmap), in: picture)
    }

    /// Times the row from when it comes on screen without its image to when the image shows (`load` is how the row
    /// loads now; nil when the row goes away); a row that leaves the screen still waiting is counted, and so is an
    /// image that arrived for a row that goes away without coming on screen (a wasted prefetch).
    private func noteVisibility(_ load: RowLoad?) {
        if load?.onScreen == true {
            unseenImage = false
            if visibleSince == nil, !hasImage, row != nil { visibleSince = DispatchTime.now().uptimeNanoseconds }
        } else if visibleSince != nil {
            page.stats.leftUnshown += 1
            if !hasQuick { page.stats.leftBlank += 1 }
            visibleSince = nil
            restSince = nil
        }
        if load == nil, unseenImage {
            page.stats.neverShown += 1
            unseenImage = false
        }
    }

    /// The list came to rest: if the row is on screen still waiting for its image, time it from `time` as well.
    func cameToRest(at time: UInt64) -> Bool {
        guard visibleSince != nil else { return false }
        restSince = time
        return true
    }

    private func deliver(_ request: ImageRequest, _ result: Result<Bitmap, any Error>) {
        Profile.measure("deliver") { deliverNow(request, result) }
    }

    private func deliverNow(_ request: ImageRequest, _ result: Result<Bitmap, any Error>) {
        if binding.isShowingQuick, case .success(let bitmap) = result { return showQuick(bitmap) }
        page.stats.delivered += 1
        if page.isSuspended { page.stats.deliveredWhileLeft += 1 }
        switch result {
        case .success(let bitmap): show(bitmap)
        case .failure(let error): showFailure(error)
        }
    }
}
