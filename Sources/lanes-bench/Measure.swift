import Dispatch
import Foundation
import LanesAppSupport

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
        var object = JSONObject([("scenario", .text(scenario)), ("n", .number(Double(n)))])
        for (name, value) in seconds { object[name + "_s"] = .number(value, decimals: 6) }
        for (name, value) in counts { object[name] = .number(value, decimals: 4) }
        if !notes.isEmpty { object["note"] = .text(notes.joined(separator: "; ")) }
        return object.json
    }
}

extension Row {
    /// A row without figures that says why there are none (a scenario that failed or could not run).
    init(scenario: String, note: String) {
        self.init(scenario: scenario, n: 0)
        notes.append(note)
    }
}

/// The lines a scenario prints: a table per row, or a JSON object per row with `json`. `build` appends the rows; if it
/// throws, the rows so far stay and a row named `scenario` says what failed.
func scenarioLines(_ scenario: String, json: Bool, _ build: (inout [Row]) throws -> Void) -> [String] {
    var rows: [Row] = []
    do {
        try build(&rows)
    } catch {
        rows.append(Row(scenario: scenario, note: "failed: \(error)"))
    }
    return rows.map { json ? $0.json() : Table.render($0) }
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
