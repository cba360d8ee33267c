import Foundation

/// Time spent on the main thread per activity, printed at exit when LANES_DESK_PROFILE is set (a diagnostic).
@MainActor
enum Profile {
    static let enabled = ProcessInfo.processInfo.environment["LANES_DESK_PROFILE"] != nil
    private static var totals: [String: (count: Int, nanoseconds: UInt64, max: UInt64)] = [:]

    static func measure<R>(_ name: String, _ body: () throws -> R) rethrows -> R {
        guard enabled else { return try body() }
        let start = DispatchTime.now().uptimeNanoseconds
        defer {
            let elapsed = DispatchTime.now().uptimeNanoseconds - start
            var entry = totals[name] ?? (0, 0, 0)
            entry.count += 1
            entry.nanoseconds += elapsed
            entry.max = max(entry.max, elapsed)
            totals[name] = entry
        }
        return try body()
    }

    static func dump() {
        guard enabled else { return }
        for (name, entry) in totals.sorted(by: { $0.value.nanoseconds > $1.value.nanoseconds }) {
            FileHandle.standardError.write(Data(String(
                format: "%-20@ %6d calls %9.1f ms total %7.2f ms max\n", name as NSString, entry.count,
                Double(entry.nanoseconds) / 1e6, Double(entry.max) / 1e6).utf8))
        }
    }
}
