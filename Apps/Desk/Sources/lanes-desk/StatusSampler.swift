import CGtk4
import Lanes
import LanesAppSupport
import LanesGLib

/// Reads the status bar as a user would, several times a second during a scripted motion, and once at rest: the
/// fling script's `status_*` figures (the bar must never say idle while the view moves, and at rest its counters
/// are the report's).
@MainActor
final class StatusSampler {
    private unowned let app: DeskApp
    private var timer: UInt32?
    private(set) var samples = 0, idleSamples = 0, asleepSamples = 0, monitorStopped = 0
    private var texts: [String] = []

    /// Starts sampling every 150 ms (a GLib timeout: sampling itself is not main-queue activity).
    init(_ app: DeskApp) {
        self.app = app
        timer = GLibTimeout.start(priority: 200, intervalMilliseconds: 150) { [weak self] in
            self?.sample()
            return true
        }
    }

    private func sample() {
        samples += 1
        let text = app.status.shown
        if text.contains("idle") { idleSamples += 1 }
        if app.activity.isAsleep { asleepSamples += 1 }
        if !app.monitor.isRunning { monitorStopped += 1 }
        if texts.count < 40 { texts.append(text) }
    }

    func stop() {
        if let timer { GLibTimeout.cancel(timer) }
        timer = nil
    }

    func record(into app: DeskApp) {
        Scripts.record(app, "status_samples_during_fling", Double(samples))
        Scripts.record(app, "status_idle_samples_during_fling", Double(idleSamples))
        Scripts.record(app, "status_asleep_samples_during_fling", Double(asleepSamples))
        Scripts.record(app, "status_monitor_stopped_samples_during_fling", Double(monitorStopped))
        app.report.append(("status_texts_during_fling", .text(texts.joined(separator: "\n"))))
    }

    /// Waits (≤ 5 s) for the idle watch to fall asleep and, in that moment, records the bar's text and the counters.
    static func recordAtRest(_ app: DeskApp) async {
        let reading: (String, DeskCounters)? = await withCheckedContinuation { continuation in
            let deadline = GLibTimeout.start(priority: 200, intervalMilliseconds: 5000) {
                app.activity.cancelWhenAsleep()
                continuation.resume(returning: nil)
                return false
            }
            app.activity.whenAsleep {
                GLibTimeout.cancel(deadline)
                continuation.resume(returning: (app.status.shown, DeskCounters(app)))
            }
        }
        guard let (text, counters) = reading else {
            Scripts.record(app, "status_at_rest_asleep", 0)
            return
        }
        Scripts.record(app, "status_at_rest_asleep", 1)
        app.report.append(("status_at_rest_text", .text(text)))
        Scripts.record(app, "status_at_rest_matches_counters", text == StatusBar.text(counters) ? 1 : 0)
        Scripts.record(app, "status_at_rest_cached", Double(StatusBar.number(after: "cached", in: text) ?? -1))
        Scripts.record(app, "status_at_rest_in_flight", Double(StatusBar.number(after: "in flight", in: text) ?? -1))
        Scripts.record(app, "counters_at_rest_cached", Double(counters.cached))
        Scripts.record(app, "counters_at_rest_in_flight", Double(counters.inFlight))
    }
}
