import Foundation
import LanesImages

// `lanes-bench images`: whole-process, single-threaded comparisons with libvips (needs the
// `vips` command, Debian's libvips-tools; `scripts/bench-images` installs it). Not part of the
// default run. Rows:
//   images-blur    lanes-image blurring the 12 MP PNG with σ = 8 vs `vips gaussblur in out 8`,
//                  VIPS_CONCURRENCY=1; lanes_s, vips_s, ratio = lanes_s / vips_s (target ≤ 1.0), peak RSS
//                  of each process (*_rss_mb, rss_ratio, target ≤ 1.5);
//                  their CPU time (`*_cpu_s`, cpu_ratio), vips with a 3σ kernel like Lanes'
//                  (vips_3sigma_s) and the output sizes. Both write PNG level 6, no row filter
//                  (vips pngsave's defaults, lanes-image's too)
//   images-blur-pinned  the same two commands, each under `taskset -c N` (one core, so vips'
//                  write-behind thread cannot overlap its blur): lanes_s, vips_s, ratio
//   images-tiltshift, images-batch, images-thumbs-256/800: see ImagesMemory.swift
//   images-pipeline-<width>: a 12 MP JPEG over loopback HTTP through ImagePipeline beside lanes-image's banded run
//                  (see ImagesPipelineMemory.swift; `images-pipeline` runs them alone)
//   images-steps   in-process, σ = 8 on the 12 MP image: the blur of the opaque image (RGB only)
//                  vs the same with one translucent pixel (all four channels), and PNG encoding
//                  with vips' settings vs libpng's adaptive filter; resize_800: Resize(width: 800) of the photo
//   images-<webp|avif|gif|gif-anim|heic|jxl>-<decode|thumb|convert>: see ImagesFormats.swift (`images-formats` runs them alone)
//   images-decode  one row per file: ImageDecoder vs the bare libpng/libjpeg path (~1.0× expected)

/// Runs the scenario and returns the lines to print (table blocks, or JSON objects with `--json`).
func imagesScenario(repeats: Int, quick: Bool, json: Bool, formatsOnly: Bool = false) -> [String] {
    scenarioLines("images", json: json) { rows in
        let inputs = try ImagesInputs.prepare()
        rows += try ImagesFormatsBench(inputs: inputs, repeats: repeats).rows()
        if formatsOnly { return }
        rows += try ImagesBlurBench(inputs: inputs, repeats: repeats).rows()
        rows += try ImagesMemoryBench(inputs: inputs, repeats: repeats).rows()
        for width in ImagesPipelineMemoryBench.widths {
            rows.append(try ImagesPipelineMemoryBench(inputs: inputs, repeats: repeats, width: width).row())
        }
        rows.append(try ImagesStepsBench(photo: inputs.photoPNG, repeats: repeats).row())
        let files = (quick ? inputs.fixtures.prefix(2) : inputs.fixtures[...]) + [inputs.photoPNG, inputs.photoJPEG]
        rows += try ImagesDecodeBench.rows(files: Array(files), repeats: repeats)
    }
}

/// The blur comparison: the same file, the same σ, each tool in its own process on one thread.
struct ImagesBlurBench {
    let inputs: ImagesInputs
    let repeats: Int
    let sigma = 8

    /// The plain comparison and, when `taskset` exists, the pinned one.
    func rows() throws -> [Row] {
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("lanes-bench-images-out-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: output) }

        var row = Row(scenario: "images-blur", n: ImagesInputs.width * ImagesInputs.height)
        row.notes.append(inputs.note)
        let vips = ProcessTimer.find("vips")
        let lanesImage = Self.lanesImageBinary()
        // `taskset -c CORE` pins a whole process to one core: single-threaded for certain, whatever
        // helper threads a tool starts (vips keeps a write-behind thread even at VIPS_CONCURRENCY=1).
        let pin = ProcessTimer.find("taskset").map { ProcessTimer.Pin(taskset: $0, core: Self.pinnedCore) }
        var runs: [String: [ProcessTimer.Outcome]] = [:]
        var vipsOutputBytes = 0.0
        // Interleaved, so a burst of load from elsewhere hits every contender alike.
        for _ in 0..<repeats {
            if let lanesImage {
                runs["lanes", default: []].append(try runLanesImage(lanesImage, output: output, pin: nil))
                if let pin { runs["lanes_pinned", default: []].append(try runLanesImage(lanesImage, output: output, pin: pin)) }
            } else {
                runs["lanes", default: []].append(try runInProcess(output: output))
            }
            if let vips {
                runs["vips", default: []].append(try runVips(vips, output: output, extra: [], pin: nil))
                vipsOutputBytes = Double(ImagesInputs.fileSize(output.appendingPathComponent("vips.png")))
                if let pin { runs["vips_pinned", default: []].append(try runVips(vips, output: output, extra: [], pin: pin)) }
                // vips cuts its kernel where it falls below 0.2 of the peak (radius ≈ 1.8σ); Lanes
                // uses 3σ. The same 3σ kernel in vips is min-ampl = exp(-4.5) ≈ 0.0111.
                runs["vips_3sigma", default: []].append(
                    try runVips(vips, output: output, extra: ["--min-ampl", "0.0111"], pin: nil))
            }
        }
        func wall(_ name: String) -> Double? { runs[name].map { median(of: $0.map(\.seconds)) } }
        func cpu(_ name: String) -> Double? { runs[name].map { median(of: $0.map(\.cpuSeconds)) } }

        let lanes = wall("lanes")!
        row.time("lanes", lanes)
        var pinnedRow: Row?
        if let pin, let lanesPinned = wall("lanes_pinned") {
            var pinned = Row(scenario: "images-blur-pinned", n: row.n)
            pinned.time("lanes", lanesPinned)
            if let vipsPinned = wall("vips_pinned") {
                pinned.time("vips", vipsPinned)
                pinned.count("ratio", lanesPinned / vipsPinned)
                pinned.count("target_ratio", 1.0)
            }
            if let lanesCPU = cpu("lanes_pinned"), let vipsCPU = cpu("vips_pinned") {
                pinned.count("lanes_cpu_s", lanesCPU)
                pinned.count("vips_cpu_s", vipsCPU)
            }
            pinned.notes.append("both commands of images-blur under \(pin.taskset.path) -c \(pin.core)")
            pinnedRow = pinned
        }
        var result: [Row] { [row] + (pinnedRow.map { [$0] } ?? []) }
        let lanesOutput = output.appendingPathComponent(lanesImage != nil ? lanesOutputName : "lanes.png")
        if let lanesImage {
            row.notes.append("lanes: \(lanesImage.path) process INPUT --blur \(sigma) --format png --concurrency 1 --threads 1 (PNG level 6, filter none by default)")
        } else {
            row.notes.append("lanes: lanes-image was not found next to lanes-bench: timed decode + blur + encode + write in-process instead")
        }
        guard let vips, let vipsTime = wall("vips") else {
            row.notes.append("vips is not installed (Debian: apt-get install libvips-tools, or run scripts/bench-images): Lanes only")
            return result
        }
        row.time("vips", vipsTime)
        row.time("vips_3sigma", wall("vips_3sigma")!)
        row.count("ratio", lanes / vipsTime)
        row.count("ratio_3sigma", lanes / wall("vips_3sigma")!)
        row.count("target_ratio", 1.0)
        func rss(_ name: String) -> Double? { runs[name].map { median(of: $0.map(\.peakRSS)) } }
        if let lanesRSS = rss("lanes"), let vipsRSS = rss("vips") {
            row.count("lanes_rss_mb", lanesRSS / 1e6)
            row.count("vips_rss_mb", vipsRSS / 1e6)
            row.count("rss_ratio", lanesRSS / vipsRSS)
            row.count("target_rss_ratio", 1.5)
        }
        if let lanesCPU = cpu("lanes"), lanesCPU.isFinite, let vipsCPU = cpu("vips") {
            row.count("lanes_cpu_s", lanesCPU)
            row.count("vips_cpu_s", vipsCPU)
            row.count("cpu_ratio", lanesCPU / vipsCPU)
        }
        row.count("lanes_out_mb", Double(ImagesInputs.fileSize(lanesOutput)) / 1e6)
        row.count("vips_out_mb", vipsOutputBytes / 1e6)
        // The last vips run used the 3σ kernel: the two outputs should then nearly agree.
        if let difference = try? Self.meanDifference(lanesOutput, output.appendingPathComponent("vips.png")) {
            row.count("mean_abs_diff_3sigma", difference)
        }
        row.notes.append("vips: VIPS_CONCURRENCY=1 vips gaussblur INPUT OUT.png \(sigma) (\(Self.vipsVersion(vips)));"
            + " vips_3sigma adds --min-ampl 0.0111 (a 3σ kernel like Lanes')"
            + (pin == nil ? "; taskset not found: no pinned runs" : "")
            + "; *_cpu_s: user + system CPU of the process")
        return result
    }

    /// The core pinned runs use: the last one (`LANES_BENCH_CORE` to choose).
    static var pinnedCore: Int {
        ProcessInfo.processInfo.environment["LANES_BENCH_CORE"].flatMap(Int.init)
            ?? max(0, ProcessInfo.processInfo.activeProcessorCount - 1)
    }

    /// `lanes-image` names its output `<input stem>.<format>`.
    private var lanesOutputName: String { inputs.photoPNG.deletingPathExtension().lastPathComponent + ".png" }

    private func runLanesImage(_ binary: URL, output: URL, pin: ProcessTimer.Pin?) throws -> ProcessTimer.Outcome {
        let written = output.appendingPathComponent(lanesOutputName)
        try? FileManager.default.removeItem(at: written)
        let run = try ProcessTimer.run(binary, ["process", inputs.photoPNG.path, "--blur", "\(sigma)", "--format", "png",
                                                "--out", output.path, "--concurrency", "1", "--threads", "1"],
                                       pin: pin)
        guard run.status == 0 else { throw BenchError.failed("lanes-image exited with \(run.status): \(run.errorOutput)") }
        guard FileManager.default.fileExists(atPath: written.path) else {
            throw BenchError.failed("lanes-image exited with 0 but wrote no \(written.path)")
        }
        return run
    }

    private func runVips(_ vips: URL, output: URL, extra: [String], pin: ProcessTimer.Pin?) throws -> ProcessTimer.Outcome {
        let run = try ProcessTimer.run(vips, ["gaussblur", inputs.photoPNG.path,
                                              output.appendingPathComponent("vips.png").path, "\(sigma)"] + extra,
                                       environment: ["VIPS_CONCURRENCY": "1"], pin: pin)
        guard run.status == 0 else { throw BenchError.failed("vips exited with \(run.status): \(run.errorOutput)") }
        return run
    }

    /// Until `lanes-image` is built: the same steps in this process (decode, blur, encode, write).
    private func runInProcess(output: URL) throws -> ProcessTimer.Outcome {
        let start = now()
        let bitmap = try ImageDecoder().decode(Data(contentsOf: inputs.photoPNG))
        let blurred = try GaussianBlur(sigma: Double(sigma)).process(bitmap)
        try ImageEncoder().encode(blurred, as: .png(compressionLevel: 6, filter: .none))
            .write(to: output.appendingPathComponent("lanes.png"))
        return ProcessTimer.Outcome(seconds: seconds(since: start), cpuSeconds: .nan, status: 0, errorOutput: "")
    }

    /// `lanes-image` beside this executable (the same build folder), or `$LANES_IMAGE`.
    static func lanesImageBinary() -> URL? {
        if let path = ProcessInfo.processInfo.environment["LANES_IMAGE"] {
            return URL(fileURLWithPath: path)
        }
        let here = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let sibling = here.deletingLastPathComponent().appendingPathComponent("lanes-image")
        return FileManager.default.isExecutableFile(atPath: sibling.path) ? sibling : nil
    }

    static func vipsVersion(_ vips: URL) -> String {
        let process = Process()
        process.executableURL = vips
        process.arguments = ["--version"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return "version unknown" }
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Mean absolute difference of the R, G and B samples of two images of the same size.
    static func meanDifference(_ a: URL, _ b: URL) throws -> Double {
        let first = try ImageDecoder().decode(Data(contentsOf: a))
        let second = try ImageDecoder().decode(Data(contentsOf: b))
        guard first.width == second.width, first.height == second.height else {
            throw BenchError.failed("outputs differ in size")
        }
        var total = 0
        first.withUnsafePixels { p in
            second.withUnsafePixels { q in
                for i in 0..<p.count where i % 4 != 3 { total += abs(Int(p[i]) - Int(q[i])) }
            }
        }
        return Double(total) / Double(first.pixelCount * 3)
    }

}
