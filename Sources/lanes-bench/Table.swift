import Foundation

/// Renders a row as a small human-readable block.
enum Table {
    static func render(_ row: Row) -> String {
        var lines = ["\n\(row.scenario) (n = \(row.n))"]
        let lanes = row.seconds.first { $0.0 == "lanes" }?.1
        for (name, value) in row.seconds {
            var line = "  " + name.padding(toLength: max(12, name.count + 1), withPad: " ", startingAt: 0)
                + format(value * 1000, digits: 3).leftPadded(12) + " ms"
            if let lanes, name != "lanes", lanes > 0 { line += "   (\(format(value / lanes, digits: 2))× Lanes)" }
            lines.append(line)
        }
        for (name, value) in row.counts {
            let text = value == value.rounded() && abs(value) < 1e12 ? String(Int(value)) : format(value, digits: 4)
            lines.append("  " + name.padding(toLength: max(26, name.count + 1), withPad: " ", startingAt: 0) + text)
        }
        lines += row.notes.map { "  note: \($0)" }
        return lines.joined(separator: "\n")
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
