import Dispatch
import Foundation

/// One scenario's result: seconds per contender plus scenario-specific counts.
struct Row {
    var scenario: String
    var n: Int
    var seconds: [(String, Double)] = []
    var counts: [(String, Double)] = []
    var notes: [String] = []

    mutating func time(_ contender: String, _ value: Double) { seconds.append((contender, value)) }
    mutating func count(_ key: String, _ value: Double) { counts.append((key, value)) }

    func json() -> String {
        var fields = ["\"scenario\": \"\(scenario)\"", "\"n\": \(n)"]
        for (name, value) in seconds { fields.append("\"\(name)_s\": \(format(value, digits: 6))") }
        for (name, value) in counts {
            fields.append(value == value.rounded() && abs(value) < 1e15
                ? "\"\(name)\": \(Int(value))" : "\"\(name)\": \(format(value, digits: 4))")
        }
        if !notes.isEmpty { fields.append("\"note\": \(jsonString(notes.joined(separator: "; ")))") }
        return "{" + fields.joined(separator: ", ") + "}"
    }
}

/// `text` as a JSON string literal (quotes, backslashes and control characters such as a tool's newlines escaped).
func jsonString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

/// The median of `samples` (the upper one of an even count), or 0 for none.
func median(of samples: [Double]) -> Double {
    samples.isEmpty ? 0 : samples.sorted()[samples.count / 2]
}

func format(_ value: Double, digits: Int) -> String { String(format: "%.\(digits)f", value) }

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func seconds(since start: UInt64) -> Double { Double(now() - start) / 1e9 }

/// Runs `body` `repeats` times and returns the median of the seconds it reports.
func median(_ repeats: Int, _ body: () async throws -> Double) async rethrows -> Double {
    var samples: [Double] = []
    for _ in 0..<repeats { samples.append(try await body()) }
    return median(of: samples)
}

func medianSync(_ repeats: Int, _ body: () throws -> Double) rethrows -> Double {
    var samples: [Double] = []
    for _ in 0..<repeats { samples.append(try body()) }
    return median(of: samples)
}

/// Blocks the calling thread; kept out of async contexts on purpose (Foundation marks it noasync).
func waitForOperations(_ queue: OperationQueue) { queue.waitUntilAllOperationsAreFinished() }

func blockingSleep(milliseconds: Int) { usleep(useconds_t(milliseconds * 1000)) }
