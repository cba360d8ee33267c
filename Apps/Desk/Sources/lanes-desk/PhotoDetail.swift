import CGtk4
import Foundation
import Lanes
import LanesImages
import LanesLists

/// A photo opened large with live tilt-shift controls. Each change cancels the render in flight and asks for a quick
/// quarter-size preview, then the full render; the preview never replaces a full render already shown. An animated
/// GIF or WebP from a folder plays instead (``DetailAnimation``; the tilt-shift controls apply to stills), and stops
/// when the view closes.
@MainActor
final class PhotoDetail {
    let root: Widget
    private let picture: Widget
    private let title: Widget
    private let band: Widget
    private let blur: Widget
    private let toggle: Widget
    private(set) var row: Int?
    private unowned let page: PhotosPage
    /// The quarter-size preview and the full render: bindings, so a result for a request the view has moved on from
    /// is never shown.
    private lazy var previewImage = ImageBinding(pipeline: page.pipeline, placeholder: { _ in }) {
        [unowned self] _, result in
        if case .success(let bitmap) = result { show(bitmap, isPreview: true) }
    }
    private lazy var fullImage = ImageBinding(pipeline: page.pipeline, placeholder: { _ in }) {
        [unowned self] _, result in
        if case .success(let bitmap) = result { show(bitmap, isPreview: false) }
    }
    private var showingFull = false
    /// Renders asked for, cancelled before they finished, previews shown, full renders shown.
    private(set) var requested = 0, cancelled = 0, previewsShown = 0, fullRendersShown = 0
    /// The animation of the photo shown (kept after it stops, for the scripts' figures); `animationToken` drops a
    /// decode that finishes after the view closed or moved on.
    private(set) var animation: DetailAnimation?
    private var animationToken = 0
    private var animationLoad: WorkItem<Animation?>?

    init(page: PhotosPage) {
        self.page = page
        root = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)
        let bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
        let back = gtk_button_new_with_label("← Back")!
        title = gtk_label_new("")
        toggle = gtk_check_button_new_with_label("Tilt-shift")
        gtk_check_button_set_active(gcast(toggle), 1)
        band = gtk_scale_new_with_range(GTK_ORIENTATION_HORIZONTAL, 0.05, 0.95, 0.01)
        blur = gtk_scale_new_with_range(GTK_ORIENTATION_HORIZONTAL, 0, 24, 0.5)
        gtk_range_set_value(gcast(band), 0.5)
        gtk_range_set_value(gcast(blur), 8)
        gtk_widget_set_size_request(band, 200, -1)
        gtk_widget_set_size_request(blur, 200, -1)
        gtk_box_append(gcast(bar), back)
        gtk_box_append(gcast(bar), title)
        gtk_box_append(gcast(bar), toggle)
        gtk_box_append(gcast(bar), gtk_label_new("Band"))
        gtk_box_append(gcast(bar), band)
        gtk_box_append(gcast(bar), gtk_label_new("Blur"))
        gtk_box_append(gcast(bar), blur)
        picture = gtk_picture_new()
        gtk_widget_set_vexpand(picture, 1)
        gtk_box_append(gcast(root), bar)
        gtk_box_append(gcast(root), picture)
        onSignal(raw(back), "clicked") { [unowned page] in page.closeDetail() }
        onSignal(raw(band), "value-changed") { [unowned self] in render() }
        onSignal(raw(blur), "value-changed") { [unowned self] in render() }
        onSignal(raw(toggle), "toggled") { [unowned self] in render() }
    }

    func open(_ row: Int) {
        self.row = row
        setLabel(title, page.library.title(row))
        gtk_picture_set_paintable(gcast(picture), page.placeholder)
        render()
        loadAnimation(row)
    }

    func close() {
        cancel()
        stopAnimation()
        row = nil
    }

    /// Decodes the photo's frames off the main thread; when it is animated, the animation replaces the renders.
    private func loadAnimation(_ row: Int) {
        stopAnimation()
        guard let url = page.library.fileURL(row) else { return }
        let token = animationToken
        let item = DetailAnimation.queue.add(label: "decode animation", priority: .visible) { _ in
            DetailAnimation.load(url)
        }
        animationLoad = item
        item.onMainCompletion { [weak self] result in
            guard let self, self.animationToken == token, case .success(let frames?) = result else { return }
            let animation = DetailAnimation(frames, in: self.picture)
            self.animation = animation
            animation.start()
        }
    }

    private func stopAnimation() {
        animationToken += 1
        animationLoad?.cancel()
        animationLoad = nil
        animation?.stop()
    }

    /// Sets the band position (0...1), as a drag of its slider does.
    func setBand(_ value: Double) { gtk_range_set_value(gcast(band), value) }

    var tiltShift: TiltShift? {
        guard gtk_check_button_get_active(gcast(toggle)) != 0 else { return nil }
        return TiltShift(
            focusCenter: gtk_range_get_value(gcast(band)), focusHeight: 0.15, transition: 0.2,
            sigma: gtk_range_get_value(gcast(blur)))
    }

    /// The full-size target: the picture's allocation (the window's size before the first layout).
    private var fullSize: TargetSize {
        let width = max(320, Int(gtk_widget_get_width(picture)))
        let height = max(240, Int(gtk_widget_get_height(picture)))
        return TargetSize(maxWidth: min(width, 1200), maxHeight: min(height, 900))
    }

    /// Withdraws the renders in flight.
    func cancel() {
        for binding in [previewImage, fullImage] where binding.request != nil {
            if !binding.isLoaded {
                cancelled += 1
                page.stats.rendersCancelled += 1
            }
            binding.clear()
        }
    }

    func resume() {
        if row != nil { render() }
    }

    private func render() {
        guard let row, !page.isSuspended else { return }
        cancel()
        showingFull = false
        let full = fullSize
        let filter = tiltShift
        let previewFilter = filter.map {
            TiltShift(focusCenter: $0.focusCenter, focusHeight: $0.focusHeight, transition: $0.transition,
                      sigma: $0.sigma / 4)
        }
        let preview = TargetSize(maxWidth: full.maxWidth / 4, maxHeight: full.maxHeight / 4)
        for (binding, size, processor) in [(previewImage, preview, previewFilter), (fullImage, full, filter)] {
            requested += 1
            // A cached image is shown before `show` returns.
            if binding.show(page.library.request(row, size: size, tiltShift: processor)) {
                page.stats.cacheHits += 1
            } else {
                page.stats.rendersStarted += 1
            }
        }
    }

    private func show(_ bitmap: Bitmap, isPreview: Bool) {
        if isPreview && showingFull { return }
        if let animation, !animation.isStopped { return }  // the animation owns the picture until the view closes
        if isPreview {
            previewsShown += 1
        } else {
            showingFull = true
            fullRendersShown += 1
        }
        page.stats.delivered += 1
        setTexture(makeTexture(bitmap), in: picture)
    }
}
