import Foundation

extension TraceRecorder {
    /// Stops recording and writes the trace to ``outputURL`` (does nothing without one).
    ///
    /// ```swift
    /// try trace.finish()
    /// ```
    public func finish() throws {
        stop()
        guard let outputURL else { return }
        try write(to: outputURL)
    }

    /// Why a trace could not be written to `url`, in a few words, or nil when it can: check at start, so a run
    /// does not find out at exit that its trace is lost.
    ///
    /// ```swift
    /// if let reason = TraceRecorder.unwritableReason(for: url) { fail("cannot write the trace \(url.path): \(reason)") }
    /// ```
    public static func unwritableReason(for url: URL) -> String? {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return "it is a folder" }
        }
        let folder = url.deletingLastPathComponent().path
        guard manager.fileExists(atPath: folder, isDirectory: &isDirectory) else { return "no folder \(folder)" }
        guard isDirectory.boolValue else { return "\(folder) is not a folder" }
        // The trace is written beside the file and renamed into place, so the folder must be writable.
        guard manager.isWritableFile(atPath: folder) else { return "the folder \(folder) is not writable" }
        return nil
    }

    /// Records every hitch `monitor` reports from now on: an interval on a "hitches" track of the monitored
    /// queue (named `"<queue> hitches"`) spanning the stall, named `hitch 48.2 ms` with the blocking item's label
    /// when known; a stall past ``ResponsivenessStats/hangThreshold`` is named `hang 312.0 ms` (category `hang`).
    /// The monitor's clock must count `DispatchTime` uptime nanoseconds (the default clock does).
    ///
    /// ```swift
    /// let monitor = ResponsivenessMonitor()
    /// trace.recordHitches(from: monitor)
    /// monitor.start()
    /// ```
    public func recordHitches(from monitor: ResponsivenessMonitor) {
        monitor.onHitch { [weak self] hitch in
            let nanoseconds = hitch.duration.laneNanoseconds
            let kind = hitch.duration > ResponsivenessStats.hangThreshold ? "hang" : "hitch"
            let name = "\(kind) \(ResponsivenessStats.milliseconds(hitch.duration)) ms" + (hitch.label.map { " in '\($0)'" } ?? "")
            self?.recordInterval(name: name, category: kind, start: hitch.start, end: hitch.start.laneAdding(nanoseconds),
                                 track: hitch.queue + " hitches")
        }
    }
}
