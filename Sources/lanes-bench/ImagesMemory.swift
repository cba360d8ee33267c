import Foundation

// The banded-processing targets of `lanes-bench images` (issue 15), each a whole-process comparison in one run,
// contenders interleaved, medians of wall time and of peak RSS (ru_maxrss from wait4, per process):
//   images-tiltshift  lanes-image --tilt-shift (σ 6) on the 12 MP PNG, one thread, vs `vips gaussblur … 6` at
//                     VIPS_CONCURRENCY=1 (vips has no tilt-shift: the same blur); target rss_ratio ≤ 1.5
//   images-batch      seven 12 MP JPEGs blurred (σ 8, PNG out): lanes-image --concurrency 2 --threads 2 vs vips
//                     gaussblur once per file at VIPS_CONCURRENCY=2 (wall summed, RSS the largest); target rss ≤ 2×
//   images-thumbs-N   a folder of seven 12 MP JPEGs and three 12 MP PNGs to fit N x N (N = 256, 800), JPEG q75:
//                     lanes-image (defaults: 8 files in flight, a thread per core) vs vipsthumbnail vs ImageMagick's
//                     mogrify -thumbnail; target lanes_s / vipsthumbnail_s ≤ 0.8
struct ImagesMemoryBench {
    let inputs: ImagesInputs
    let repeats: Int

    struct Contender {
        var name: String
        var runs: () throws -> [ProcessTimer.Outcome]
    }

    func rows() throws -> [Row] {
        let (batch, thumbs, note) = try ImagesInputs.prepareBatch(png: inputs.photoPNG)
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("lanes-bench-memory-out-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(at: output) }
        guard let lanes = ImagesBlurBench.lanesImageBinary() else {
            let why = "lanes-image was not found next to lanes-bench: no process comparisons"
            return [Row(scenario: "images-memory", note: why)]
        }
        let vips = ProcessTimer.find("vips"), thumbnail = ProcessTimer.find("vipsthumbnail")
        let mogrify = ProcessTimer.find("mogrify")
        func fresh(_ name: String) throws -> URL { try Self.fresh(name, in: output) }
        let checked = Self.checked
        let batchFiles = try Self.images(in: batch)
        let thumbFiles = try Self.images(in: thumbs)

        var tilt: [Contender] = [Contender(name: "lanes") {
            [try checked(ProcessTimer.run(lanes, ["process", inputs.photoPNG.path, "--tilt-shift", "--format", "png",
                                                  "--out", try fresh("tilt").path, "--overwrite", "--concurrency", "1",
                                                  "--threads", "1"]), "lanes-image")]
        }]
        var batchContenders: [Contender] = [Contender(name: "lanes") {
            [try checked(ProcessTimer.run(lanes, ["process", batch.path, "--blur", "8", "--format", "png",
                                                  "--out", try fresh("batch").path, "--concurrency", "2",
                                                  "--threads", "2"]), "lanes-image")]
        }]
        if let vips {
            tilt.append(Contender(name: "vips") {
                [try checked(ProcessTimer.run(vips, ["gaussblur", inputs.photoPNG.path,
                                                     try fresh("tilt-vips").appendingPathComponent("out.png").path, "6"],
                                              environment: ["VIPS_CONCURRENCY": "1"]), "vips")]
            })
            batchContenders.append(Contender(name: "vips") {
                let folder = try fresh("batch-vips")
                return try batchFiles.map { file in
                    try checked(ProcessTimer.run(vips, ["gaussblur", file.path, folder.appendingPathComponent(
                        file.deletingPathExtension().lastPathComponent + ".png").path, "8"],
                                                 environment: ["VIPS_CONCURRENCY": "2"]), "vips")
                }
            })
        }
        var rows = [try measure("images-tiltshift", tilt, n: ImagesInputs.width * ImagesInputs.height, rssTarget: 1.5,
                                note: "lanes-image process PNG --tilt-shift (σ 6) --concurrency 1 --threads 1 vs"
                                    + " VIPS_CONCURRENCY=1 vips gaussblur PNG OUT.png 6")]
        rows.append(try measure("images-batch", batchContenders, n: batchFiles.count, rssTarget: 2,
                                note: "\(note); lanes-image process DIR --blur 8 --format png --concurrency 2 --threads 2"
                                    + " vs VIPS_CONCURRENCY=2 vips gaussblur FILE OUT.png 8 per file (wall summed, RSS max)"))
        for size in [256, 800] {
            var contenders = [Contender(name: "lanes") {
                [try checked(ProcessTimer.run(lanes, ["process", thumbs.path, "--resize", "\(size)x\(size)", "--format", "jpg",
                                                      "--quality", "75", "--out", try fresh("thumbs").path]), "lanes-image")]
            }]
            if let thumbnail {
                contenders.append(Contender(name: "vipsthumbnail") {
                    let folder = try fresh("thumbs-vips")
                    return [try checked(ProcessTimer.run(thumbnail, thumbFiles.map(\.path)
                        + ["-s", "\(size)x\(size)", "-o", folder.path + "/%s.jpg[Q=75]"]), "vipsthumbnail")]
                })
            }
            if let mogrify {
                contenders.append(Contender(name: "magick") {
                    let folder = try fresh("thumbs-magick")
                    return [try checked(ProcessTimer.run(mogrify, ["-path", folder.path, "-thumbnail", "\(size)x\(size)",
                                                                   "-quality", "75", "-format", "jpg"] + thumbFiles.map(\.path)),
                                        "mogrify")]
                })
            }
            rows.append(try measure("images-thumbs-\(size)", contenders, n: thumbFiles.count, rssTarget: nil,
                                    wallTarget: ("vipsthumbnail", 0.8),
                                    note: "\(thumbFiles.count) files (7 JPEG + 3 PNG, 12 MP) to fit \(size)x\(size), JPEG q75;"
                                        + " lanes-image defaults vs vipsthumbnail FILES -s \(size)x\(size) vs mogrify -thumbnail"))
        }
        return rows
    }

    /// Runs every contender `repeats` times, interleaved; a row of median wall, CPU and peak RSS, and their ratios
    /// to the second contender (vips).
    func measure(_ scenario: String, _ contenders: [Contender], n: Int, rssTarget: Double?,
                         wallTarget: (String, Double)? = nil, note: String) throws -> Row {
        var wall: [String: [Double]] = [:], cpu: [String: [Double]] = [:], rss: [String: [Double]] = [:]
        for _ in 0..<repeats {
            for contender in contenders {
                let runs = try contender.runs()
                wall[contender.name, default: []].append(runs.map(\.seconds).reduce(0, +))
                cpu[contender.name, default: []].append(runs.map(\.cpuSeconds).reduce(0, +))
                rss[contender.name, default: []].append(runs.map(\.peakRSS).max() ?? .nan)
            }
        }
        var row = Row(scenario: scenario, n: n)
        for contender in contenders {
            row.time(contender.name, median(of: wall[contender.name]!))
        }
        for contender in contenders {
            row.count(contender.name + "_cpu_s", median(of: cpu[contender.name]!))
            row.count(contender.name + "_rss_mb", median(of: rss[contender.name]!) / 1e6)
        }
        if contenders.count > 1 {
            let lanes = contenders[0].name
            for other in contenders.dropFirst() {
                row.count("wall_ratio_\(other.name)", median(of: wall[lanes]!) / median(of: wall[other.name]!))
                row.count("rss_ratio_\(other.name)", median(of: rss[lanes]!) / median(of: rss[other.name]!))
                row.count("cpu_ratio_\(other.name)", median(of: cpu[lanes]!) / median(of: cpu[other.name]!))
            }
            if let rssTarget { row.count("target_rss_ratio", rssTarget) }
            if let (name, target) = wallTarget { row.count("target_wall_ratio_\(name)", target) }
        } else {
            row.notes.append("vips/vipsthumbnail/mogrify not installed (scripts/bench-images installs them): lanes only")
        }
        row.notes.append(note)
        return row
    }

    /// An empty folder `name` in `output` (emptied when it exists).
    static func fresh(_ name: String, in output: URL) throws -> URL {
        let folder = output.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// `run`, or an error naming `what` and its status when it failed.
    static func checked(_ run: ProcessTimer.Outcome, _ what: String) throws -> ProcessTimer.Outcome {
        guard run.status == 0 else { throw BenchError.failed("\(what) exited with \(run.status): \(run.errorOutput)") }
        return run
    }

    static func images(in folder: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { ["png", "jpg"].contains($0.pathExtension) }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }
}
