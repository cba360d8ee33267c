import Foundation
import Synchronization

/// `LANES_BENCH_SCROLL_TRACE=DIR`: each `lanes` scroll run writes `DIR/SCRIPT-TIER-N.json`, a per-row trace to set
/// Lanes' schedule beside the ballistic oracle's: every render (row, quick or full, start, end, whether it finished),
/// every content shown in a cell of its row, every visibility window, every lift-off, and when the oracle's render of
/// each row ends. Times are milliseconds from the first frame. `scripts/scroll-trace` reads them.
enum ScrollTrace {
    static let directory = ProcessInfo.processInfo.environment["LANES_BENCH_SCROLL_TRACE"]
    static var isOn: Bool { directory != nil }

    /// Renders as they ran on the render threads: (row, quick, start ns, end ns, finished).
    static let renders = Mutex<[(row: Int, quick: Bool, start: UInt64, end: UInt64, finished: Bool)]>([])

    static func render(row: Int, quick: Bool, start: UInt64, finished: Bool) {
        guard isOn else { return }
        let end = now()
        renders.withLock { $0.append((row, quick, start, end, finished)) }
    }

    /// Writes one run's trace (and empties the render log for the next run).
    @MainActor
    static func write(
        driver: ScrollDriver, windows: [(row: Int, start: Double, end: Double, counted: Bool)],
        oracle: [Int: Double], renderMilliseconds: Double
    ) {
        guard let directory else { return }
        let origin = driver.origin
        func ms(_ seconds: Double) -> String {
            seconds.isFinite ? String(format: "%.2f", (seconds - origin) * 1000) : "-1"
        }
        func msNs(_ ns: UInt64) -> String { ms(Double(ns) / 1e9) }
        let logged = renders.withLock { log -> [(row: Int, quick: Bool, start: UInt64, end: UInt64, finished: Bool)] in
            defer { log.removeAll() }
            return log
        }
        func list(_ name: String, _ items: [String]) -> String { "\"\(name)\": [" + items.joined(separator: ", ") + "]" }
        let fields = [
            "\"script\": \"\(driver.scriptKind.rawValue)\"",
            "\"render_ms\": \(String(format: "%.3f", renderMilliseconds))",
            list("renders", logged.map { "[\($0.row), \($0.quick), \(msNs($0.start)), \(msNs($0.end)), \($0.finished)]" }),
            list("shown", driver.shownLog.map { "[\($0.row), \(msNs($0.time)), \($0.quick)]" }),
            list("windows", windows.map { "[\($0.row), \(ms($0.start)), \(ms($0.end)), \($0.counted)]" }),
            list("lift_offs", driver.liftOffs.map {
                "[\(ms($0.time)), \(String(format: "%.2f", $0.from)), \(String(format: "%.2f", $0.travel)), \(ms($0.end))]"
            }),
            list("frames", driver.preloadLog.map {
                "[\(msNs($0.time)), \($0.visible.lowerBound), \($0.visible.upperBound), \($0.first), \($0.last), \($0.count), \($0.priority)]"
            }),
            list("oracle", oracle.sorted { $0.key < $1.key }.map { "[\($0.key), \(ms($0.value))]" }),
        ]
        let text = "{" + fields.joined(separator: ", ") + "}\n"
        let tier = ProcessInfo.processInfo.environment["LANES_BENCH_QUICK_TIER"] == "1" ? "quick" : "none"
        let stamp = Int(Date().timeIntervalSince1970 * 1000)
        let path = "\(directory)/\(driver.scriptKind.rawValue)-\(tier)-\(stamp).json"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try? Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }
}
