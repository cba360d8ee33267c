import CGtk4
import Foundation
import LanesAppSupport
import Lanes
import LanesGLib
import LanesImages

/// The window: a stack of two pages (Photos, Stocks) with a switcher, and the status bar.
@MainActor
final class DeskApp {
    let options: Options
    let photos: PhotosPage
    let stocks: StocksPage
    let frames = FrameRecorder()
    /// The status bar's monitor pings every three frames while the app is active (``IdleWatch``; asleep it does not
    /// ping): a ping wakes two threads (~0.1 ms of CPU). Stalls over 96 ms are always caught, shorter ones when a
    /// ping lands in them; the scripted runs measure latency with their own 8 ms monitor.
    let monitor = ResponsivenessMonitor(interval: .milliseconds(48))
    let status = StatusBar()
    /// Stops the monitor and the status bar's timer after a quiet second, starts them on the next activity.
    let activity = IdleWatch()
    private var statusTimer: UInt32?
    private(set) var window: Widget!
    private var pages: Widget!
    private var application: UnsafeMutablePointer<GtkApplication>?
    /// Figures a script adds to the report, in order.
    var report: [(String, JSONValue)] = []
    /// The widest the window was at any frame (pixels): the report's `window_width_max`, which must stay the width
    /// asked for (a child's natural width, such as a long status line, must not widen the window).
    private(set) var widestWindow: Int32 = 0
    /// Whether a line of the status bar was ever cut short at a frame (the report's `status_bar_cut`).
    private(set) var statusWasCut = false

    init(options: Options, library: PhotoLibrary) {
        self.options = options
        photos = PhotosPage(
            library: library, naive: options.naive, tiltShift: options.tiltShift, asGrid: options.grid,
            fixedPreload: options.fixedPreload,
            fetchPolicy: FetchPolicy(
                timeout: .seconds(options.fetchTimeout), deadline: .seconds(3 * options.fetchTimeout)),
            thumbnailCache: options.thumbnailCache && !options.naive
                ? ThumbnailCache(applicationName: "lanes-desk") : nil)
        stocks = StocksPage(synthetic: options.synthetic)
    }

    func activate(_ application: UnsafeMutablePointer<GtkApplication>) {
        self.application = application
        window = gtk_application_window_new(application)
        gtk_window_set_title(gcast(window), "Lanes · desk" + (options.naive ? " (naive)" : ""))
        gtk_window_set_default_size(gcast(window), Int32(options.width), Int32(options.height))
        pages = gtk_stack_new()
        gtk_stack_add_titled(gcast(pages), photos.root, "photos", "Photos")
        gtk_stack_add_titled(gcast(pages), stocks.root, "stocks", "Stocks")
        gtk_widget_set_vexpand(pages, 1)
        let switcher = gtk_stack_switcher_new()!
        gtk_stack_switcher_set_stack(gcast(switcher), gcast(pages))
        gtk_widget_set_halign(switcher, GTK_ALIGN_CENTER)
        let tilt = gtk_check_button_new_with_label("Tilt-shift thumbnails")!
        gtk_check_button_set_active(gcast(tilt), options.tiltShift ? 1 : 0)
        onSignal(raw(tilt), "toggled") { [unowned self] in
            photos.setTiltShift(gtk_check_button_get_active(gcast(tilt)) != 0)
        }
        let header = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12)!
        gtk_widget_set_hexpand(switcher, 1)
        gtk_box_append(gcast(header), switcher)
        gtk_box_append(gcast(header), tilt)
        gtk_widget_set_margin_top(header, 4)
        gtk_widget_set_margin_end(header, 8)
        let column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_box_append(gcast(column), header)
        gtk_box_append(gcast(column), pages)
        gtk_box_append(gcast(column), status.label)
        gtk_window_set_child(gcast(window), column)
        if options.page == "stocks" { showPage("stocks") }
        onSignal(raw(pages), "notify::visible-child") { [unowned self] (_: UnsafeMutableRawPointer?) in pageChanged() }
        pageChanged()
        onSignal(raw(window), "realize") { [unowned self] in
            frames.install(on: window)
            // GTK's frame clock sets the main-queue frame budget: results fit around the frames (an environment
            // variable turns it off, to measure what it does).
            if ProcessInfo.processInfo.environment["LANES_DESK_NO_FRAME_BUDGET"] == nil,
               let clock = gtk_widget_get_frame_clock(window) {
                frames.onFrameStart {
                    // The display's own rate (120 Hz screens get 8.3 ms frames), once GTK knows it.
                    var interval: gint64 = 0, presentation: gint64 = 0
                    gdk_frame_clock_get_refresh_info(clock, gdk_frame_clock_get_frame_time(clock), &interval, &presentation)
                    if interval > 0 { MainFrame.setInterval(.microseconds(Int64(interval))) }
                    MainFrame.beginFrame()
                }
            }
        }
        frames.onFrameStart { [unowned self] in activity.frameStarted() }
        onInputEvent(window) { [unowned self] in activity.noteActivity() }
        activity.onSleep = { [unowned self] in
            monitor.stop()
            status.update(self)
        }
        activity.onWake = { [unowned self] in
            monitor.start()
            startStatusTimer()
            // The bar said "idle": say what is happening now, not at the timer's first tick 500 ms later (a fling
            // that woke the app read "idle" for its first half second).
            status.update(self)
        }
        // The view moving is activity even before its frame starts (a scroll that changes nothing visible yet).
        for adjustment in [photos.adjustment, stocks.adjustment] {
            onSignal(raw(adjustment), "value-changed") { [unowned self] in activity.noteActivity() }
        }
        gtk_window_present(gcast(window))
        monitor.start()
        startStatusTimer()
        RowTrace.start()
        frames.onFrame { [unowned self] time in
            if RowTrace.isOn { RowTrace.frame(offset: gtk_adjustment_get_value(photos.adjustment)) }
            widestWindow = max(widestWindow, gtk_widget_get_width(window))
            if !statusWasCut { statusWasCut = status.isCut }
            Profile.measure("priorities") { photos.updatePriorities(frameTime: time) }
            Profile.measure("stocks tick") { stocks.frameTick() }
        }
        if let script = options.script {
            Task { @MainActor in
                await Scripts.run(script, app: self)
                finish()
            }
        }
    }

    /// Refreshes the status bar every 500 ms while the app is awake; stops when the idle watch falls asleep.
    private func startStatusTimer() {
        guard statusTimer == nil else { return }
        statusTimer = GLibTimeout.start(priority: 200, intervalMilliseconds: 500) { [weak self] in
            guard let self else { return false }
            if activity.checkQuiet(busy: monitor.isAwaitingPing) {
                statusTimer = nil
                return false
            }
            status.update(self)
            return true
        }
    }

    /// The bridge is about to run main-queue work (`MainQueueSource.willDrain`): activity, unless it is only the
    /// monitor's ping being answered.
    func mainQueueWillDrain() {
        activity.mainQueueWillDrain(answersPing: monitor.isAwaitingPing)
    }

    var visiblePage: String {
        gtk_stack_get_visible_child_name(gcast(pages)).map { String(cString: $0) } ?? ""
    }

    func showPage(_ name: String) {
        gtk_stack_set_visible_child_name(gcast(pages), name)
    }

    /// Leaving a page cancels its work; coming back starts it again for what is shown.
    private func pageChanged() {
        if visiblePage == "photos" {
            stocks.suspend()
            photos.resume()
        } else {
            photos.suspend()
            stocks.resume()
        }
    }

    /// Writes the report (if asked for) and quits.
    func finish() {
        Profile.dump()
        status.update(self)   // the bar and the report read the same counters at the same moment
        if let path = options.report {
            do {
                try Report.write(self, to: path)
            } catch {
                FileHandle.standardError.write(Data("lanes-desk: \(error)\n".utf8))
            }
        }
        if let application { g_application_quit(gcast(raw(application))) }
    }
}
