import Foundation

/// The `scaling` rows as one table per scenario: a line per thread count, milliseconds per contender (medians), the
/// per-item cost or speedup, and the lock waits when the build counts them.
enum ScalingTable {
    static func render(_ rows: [Row]) -> String {
        var lines: [String] = []
        var scenarios: [String] = []
        for row in rows where !scenarios.contains(row.scenario) { scenarios.append(row.scenario) }
        for scenario in scenarios {
            let group = rows.filter { $0.scenario == scenario }
            guard let first = group.first else { continue }
            let contenders = first.seconds.map(\.0)
            let perItem = first.counts.contains { $0.0 == "lanes_per_item_us" }
            var header = "  " + "threads".leftPadded(7)
            for name in contenders { header += (name + " ms").leftPadded(14) }
            header += (perItem ? "lanes µs/item" : "lanes speedup").leftPadded(15)
            header += (perItem ? "disp µs/item" : "disp speedup").leftPadded(14)
            if LockWaits.available { header += "queue wait%".leftPadded(13) + "node wait%".leftPadded(12) }
            lines.append("\n\(scenario) (n = \(first.n))")
            lines.append(header)
            for row in group {
                func count(_ key: String) -> Double { row.counts.first { $0.0 == key }?.1 ?? .nan }
                var line = "  " + String(Int(count("threads"))).leftPadded(7)
                for (_, value) in row.seconds { line += format(value * 1000, digits: 2).leftPadded(14) }
                if perItem {
                    line += format(count("lanes_per_item_us"), digits: 3).leftPadded(15)
                    line += format(count("dispatch_per_item_us"), digits: 3).leftPadded(14)
                } else {
                    line += (format(count("lanes_speedup"), digits: 2) + "×").leftPadded(15)
                    line += (format(count("dispatch_speedup"), digits: 2) + "×").leftPadded(14)
                }
                if LockWaits.available {
                    line += format(count("queue_lock_wait_pct"), digits: 2).leftPadded(13)
                    line += format(count("node_lock_wait_pct"), digits: 2).leftPadded(12)
                }
                lines.append(line)
                lines += row.notes.map { "    note: \($0)" }
            }
        }
        if !LockWaits.available {
            lines.append("  (lock waits: build with -Xswiftc -DLANES_LOCK_STATS, as scripts/bench-scaling-remote does)")
        } else {
            lines.append("  wait% = time threads waited for that kind of lock / (lanes wall time × (threads + the producer))")
        }
        return lines.joined(separator: "\n")
    }
}
