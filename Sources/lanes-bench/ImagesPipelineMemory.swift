import Foundation

// `lanes-bench images-pipeline` (issue 36): the 12 MP JPEG served over HTTP from a loopback server (Python's
// http.server in its own process, so its memory is not counted), resized to fit WIDTH pixels wide and blurred by σ 8:
//   pipeline         `lanes-bench pipeline-load URL WIDTH 8`: ImagePipeline with its defaults (the chain in bands)
//   lanes_image      `lanes-image process URL --resize WIDTHx --blur 8 --format jpg --concurrency 1 --threads 1`:
//                    the banded run (decoded as the body arrives, written band by band: nothing whole)
//   pipeline_staged  `lanes-bench pipeline-load URL WIDTH 8 --staged`: the pipeline with processesInBands off
// Whole processes, interleaved, medians of wall, CPU and peak RSS; rss_ratio_lanes_image is the pipeline's peak over
// lanes-image's (target ≤ 2). One row per WIDTH: 2000, 3000 and 4000 (results of 12, 27 and 48 MB, which the
// pipeline must hold and lanes-image never does; 4000 is the blur alone), or LANES_BENCH_PIPELINE_WIDTHS=2000,3000.

/// The lines of the `images-pipeline` scenario (a table, or JSON with `--json`).
func imagesPipelineScenario(repeats: Int, json: Bool) -> [String] {
    scenarioLines("images-pipeline", json: json) { rows in
        let inputs = try ImagesInputs.prepare()
        for width in ImagesPipelineMemoryBench.widths {
            rows.append(try ImagesPipelineMemoryBench(inputs: inputs, repeats: repeats, width: width).row())
        }
    }
}

struct ImagesPipelineMemoryBench {
    let inputs: ImagesInputs
    let repeats: Int
    let width: Int
    let sigma = 8

    static var widths: [Int] {
        let asked = ProcessInfo.processInfo.environment["LANES_BENCH_PIPELINE_WIDTHS"]?
            .split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 } ?? []
        return asked.isEmpty ? [2000, 3000, 4000] : asked
    }

    func row() throws -> Row {
        guard let lanes = ImagesBlurBench.lanesImageBinary() else {
            throw BenchError.failed("lanes-image was not found next to lanes-bench")
        }
        let bench = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let server = try LoopbackFileServer(folder: inputs.photoJPEG.deletingLastPathComponent())
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/\(inputs.photoJPEG.lastPathComponent)"
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("lanes-bench-pipeline-out-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(at: output) }
        let checked = ImagesMemoryBench.checked
        let (width, sigma) = (width, sigma)
        let contenders = [
            ImagesMemoryBench.Contender(name: "pipeline") {
                [try checked(ProcessTimer.run(bench, ["pipeline-load", url, "\(width)", "\(sigma)"]), "pipeline-load")]
            },
            ImagesMemoryBench.Contender(name: "lanes_image") {
                let folder = try ImagesMemoryBench.fresh("pipeline", in: output)
                return [try checked(ProcessTimer.run(lanes, [
                    "process", url, "--resize", "\(width)x", "--blur", "\(sigma)", "--format", "jpg",
                    "--out", folder.path, "--concurrency", "1", "--threads", "1",
                ]), "lanes-image")]
            },
            ImagesMemoryBench.Contender(name: "pipeline_staged") {
                [try checked(ProcessTimer.run(bench, ["pipeline-load", url, "\(width)", "\(sigma)", "--staged"]),
                             "pipeline-load --staged")]
            },
        ]
        var row = try ImagesMemoryBench(inputs: inputs, repeats: repeats).measure(
            "images-pipeline-\(width)", contenders, n: ImagesInputs.width * ImagesInputs.height, rssTarget: 2,
            note: "\(inputs.photoJPEG.lastPathComponent) (\(ImagesInputs.fileSize(inputs.photoJPEG) / 1000) KB) over"
                + " HTTP from 127.0.0.1 (python3 http.server), fit \(width) wide, blur σ \(sigma);"
                + " pipeline: lanes-bench pipeline-load (ImagePipeline defaults, chain in bands);"
                + " lanes_image: lanes-image process URL --resize \(width)x --blur \(sigma) --format jpg"
                + " --concurrency 1 --threads 1 (banded); pipeline_staged: processesInBands off;"
                + " rss_ratio_lanes_image = pipeline / lanes-image, target ≤ 2")
        func value(_ key: String) -> Double? { row.counts.first { $0.0 == key }?.1 }
        if let staged = value("pipeline_staged_rss_mb"), let banded = value("lanes_image_rss_mb") {
            row.count("staged_rss_ratio_lanes_image", staged / banded)
        }
        return row
    }
}

/// A static file server on 127.0.0.1 in its own process (Python's `http.server`, quiet), at a port the kernel picks.
final class LoopbackFileServer {
    let port: Int
    private let process: Process

    init(folder: URL) throws {
        guard let python = ProcessTimer.find("python3") else {
            throw BenchError.failed("python3 is needed for the loopback HTTP server")
        }
        let script = """
            import functools, http.server, sys
            class Quiet(http.server.SimpleHTTPRequestHandler):
                def log_message(self, *args): pass
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=sys.argv[1]))
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """
        process = Process()
        process.executableURL = python
        process.arguments = ["-c", script, folder.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = pipe.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw BenchError.failed("the loopback HTTP server did not start")
        }
        self.port = port
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
