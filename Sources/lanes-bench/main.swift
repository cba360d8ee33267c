import Foundation
import Lanes
import LanesAppSupport

// lanes-bench: measures Lanes against the alternatives in one run and prints a table (or JSON lines with --json).
//
//   swift run -c release lanes-bench [--json] [--quick] [--repeats N] [--trace FILE] [SCENARIO...]
//
// Scenarios: independent, chain, fanout, cancel-all, width, enumerate, scroll (its fling, jitter, jump, caught, wheel and pages
// scripts; scroll-fling, scroll-jitter, scroll-jump, scroll-caught, scroll-wheel and scroll-pages play one), main-latency, scroll-busy, requests (the loader's and the
// image pipeline's per-request overhead: cache hits and coalesced misses a second) (default:
// all of these), and images (only when named: it compares with libvips, see scripts/bench-images; images-formats runs
// its WebP, AVIF and GIF rows alone; images-pipeline its URL-through-the-pipeline memory row alone). scroll-busy is
// scroll with every core kept busy by background Lanes items. scaling (only when named) runs independent, fanout,
// width and enumerate at 1, 2, 4, 8 and 16 threads (`--threads 1,4`) beside Dispatch and a TaskGroup held to the
// same width; `--json-file PATH` writes its JSON lines beside the table (scripts/bench-scaling-remote builds it with
// the lock counters for a machine without Swift).

// `lanes-bench cache-writer DIR`: the disk-cache crash test's writer (it never returns).
if CommandLine.arguments.dropFirst().first == "cache-writer" { CacheCrashWriter.run(Array(CommandLine.arguments.dropFirst(2))) }
// `lanes-bench preview-load FILE [LOADS] [WIDTH]`: one progressive download with previews, timed (see PreviewLoad).
if CommandLine.arguments.dropFirst().first == "preview-load" { PreviewLoad.run(Array(CommandLine.arguments.dropFirst(2))) }

// `lanes-bench pipeline-load URL WIDTH SIGMA [--staged]`: one URL through ImagePipeline, resized and blurred (see
// PipelineLoad).
if CommandLine.arguments.dropFirst().first == "pipeline-load" { PipelineLoad.run(Array(CommandLine.arguments.dropFirst(2))) }

// `--trace FILE` records every item of the run as a Chrome trace (large for the big scenarios: name one).
let trace = TraceRecorder.fromArguments(CommandLine.arguments)
let arguments = Array(TraceRecorder.removingTraceArguments(from: CommandLine.arguments).dropFirst())
let json = arguments.contains("--json")
let quick = arguments.contains("--quick")
var repeats = quick ? 3 : 5
if let index = arguments.firstIndex(of: "--repeats"), index + 1 < arguments.count, let value = Int(arguments[index + 1]) {
    repeats = max(1, value)
}
let known = [
    "independent", "chain", "fanout", "cancel-all", "width", "enumerate", "scroll", "main-latency", "scroll-busy", "requests",
    "images", "images-formats", "images-pipeline", "scroll-fling", "scroll-jitter", "scroll-jump", "scroll-caught", "scroll-wheel", "scroll-pages", "scaling",
]
// Option values (`--threads 1,2,4`, `--json-file PATH`) are not scenario names.
let optionValues = ["--threads", "--json-file"].compactMap { arguments.firstIndex(of: $0).map { $0 + 1 } }
let asked = arguments.indices.filter { !optionValues.contains($0) }.map { arguments[$0] }.filter { !$0.hasPrefix("--") && Int($0) == nil }
if let unknown = asked.first(where: { !known.contains($0) }) {
    FileHandle.standardError.write("lanes-bench: unknown scenario '\(TerminalText.sanitized(unknown))'; known: \(known.joined(separator: ", "))\n".data(using: .utf8)!)
    exit(2)
}
let selected = asked.isEmpty ? known.filter { !$0.hasPrefix("images") && $0 != "scaling" && !$0.hasPrefix("scroll-") || $0 == "scroll-busy" } : asked
let core = CoreScenarios(repeats: repeats, quick: quick)

if !json {
    print("lanes-bench — \(ProcessInfo.processInfo.activeProcessorCount) cores, medians of \(repeats) runs\(quick ? " (quick sizes)" : "")")
}
for scenario in selected {
    if scenario == "images-pipeline" {
        for line in imagesPipelineScenario(repeats: repeats, json: json) { print(line) }
        continue
    }
    if scenario == "images" || scenario == "images-formats" {
        for line in imagesScenario(repeats: repeats, quick: quick, json: json, formatsOnly: scenario == "images-formats") {
            print(line)
        }
        continue
    }
    if scenario == "scroll" || ["scroll-fling", "scroll-jitter", "scroll-jump", "scroll-caught", "scroll-wheel", "scroll-pages"].contains(scenario) {
        let scripts = scenario == "scroll" ? ScrollScript.allCases : [ScrollScript(rawValue: String(scenario.dropFirst(7)))!]
        for row in await scrollScenario(repeats: repeats, quick: quick, scripts: scripts) {
            print(json ? row.json() : Table.render(row))
        }
        continue
    }
    if scenario == "scroll-busy" {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let load = Saturation(.lanes(.background), items: cores)
        load.started(atLeast: cores)
        let rows = await scrollScenario(repeats: repeats, quick: quick, scripts: [.fling])
        await load.stop()
        for var row in rows {
            row.scenario = row.scenario.replacingOccurrences(of: "scroll/", with: "scroll-busy/")
            row.notes.append("\(cores) background Lanes items spin on every core throughout")
            print(json ? row.json() : Table.render(row))
        }
        continue
    }
    if scenario == "scaling" {
        let scaling = ScalingScenario(repeats: repeats, quick: quick, threadCounts: ScalingScenario.threadCounts(from: arguments))
        let rows = await scaling.run()
        if json { for row in rows { print(row.json()) } } else { print(ScalingTable.render(rows)) }
        // `--json-file PATH`: the JSON lines as well as the table, from the same run.
        if let index = arguments.firstIndex(of: "--json-file"), index + 1 < arguments.count {
            let lines = rows.map { $0.json() + "\n" }.joined()
            do { try lines.write(toFile: arguments[index + 1], atomically: true, encoding: .utf8) } catch {
                FileHandle.standardError.write(Data(("lanes-bench: " + TerminalText.sanitized("could not write \(arguments[index + 1]): \(error)") + "\n").utf8))
            }
        }
        continue
    }
    if scenario == "requests" {
        let row = await requestsScenario(repeats: repeats, quick: quick)
        print(json ? row.json() : Table.render(row))
        continue
    }
    if scenario == "main-latency" {
        for row in await mainLatencyScenario(quick: quick) { print(json ? row.json() : Table.render(row)) }
        continue
    }
    let row: Row
    switch scenario {
    case "independent": row = await core.independent()
    case "chain": row = await core.chain()
    case "fanout": row = await core.fanout()
    case "cancel-all": row = await core.cancelAll()
    case "enumerate": row = await enumerateScenario(repeats: repeats, quick: quick)
    default: row = await core.width()
    }
    if json {
        print(row.json())
    } else {
        print(Table.render(row))
    }
}
do {
    try trace?.finish()
} catch {
    FileHandle.standardError.write(Data(("lanes-bench: could not write the trace: " + TerminalText.sanitized("\(error)") + "\n").utf8))
}
