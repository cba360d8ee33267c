import Foundation
import Lanes
import LanesImages

/// The files the `images` scenario works on: the repository's image fixtures and a 12 MP
/// photo-like PNG (and JPEG) generated once into a cache folder.
struct ImagesInputs {
    /// The 12 MP PNG every whole-process blur run reads.
    let photoPNG: URL
    /// The same pixels as a JPEG (quality 90), for decode throughput at size.
    let photoJPEG: URL
    /// Fixtures found in `Tests/LanesImagesTests/Fixtures` (empty when the sources are not around).
    let fixtures: [URL]
    /// How the 12 MP image was made, for the output.
    let note: String

    static let width = 4000
    static let height = 3000

    /// Finds the fixtures and makes (or reuses) the 12 MP files in `cache`.
    static func prepare(cache: URL = ImagesInputs.defaultCache) throws -> ImagesInputs {
        let fixtures = fixtureFolder().map { folder in
            ["camera.png", "chelsea.png", "rocket.jpg", "hubble_deep_field.jpg"]
                .map { folder.appendingPathComponent($0) }
                .filter { FileManager.default.fileExists(atPath: $0.path) }
        } ?? []
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        let png = cache.appendingPathComponent("photo-\(width)x\(height)-v1.png")
        let jpeg = cache.appendingPathComponent("photo-\(width)x\(height)-v1.jpg")
        let source = fixtures.first { $0.lastPathComponent == "chelsea.png" }
        var how = source.map { "\($0.lastPathComponent) (451x300) upscaled bilinearly to \(width)x\(height)" }
            ?? "a synthetic \(width)x\(height) scene (gradients and discs)"
        how += " plus ±6 grain per channel, PNG level 6"
        if !FileManager.default.fileExists(atPath: png.path) || !FileManager.default.fileExists(atPath: jpeg.path) {
            let bitmap = try makePhoto(from: source)
            try AtomicFile.write(ImageEncoder().encode(bitmap, as: .png(compressionLevel: 6)), to: png)
            try AtomicFile.write(ImageEncoder().encode(bitmap, as: .jpeg(quality: 90)), to: jpeg)
            how += "; generated now"
        } else {
            how += "; reused"
        }
        let megabytes = Double(fileSize(png)) / 1e6
        return ImagesInputs(photoPNG: png, photoJPEG: jpeg, fixtures: fixtures,
                            note: "12 MP input: \(how), \(format(megabytes, digits: 1)) MB, at \(png.path)")
    }

    /// Seven 12 MP JPEGs (quality 90), each made like the PNG from one photo of `shared/data/images` (or the
    /// fixtures), in `cache/batch`; and `cache/thumbs`: the same JPEGs plus three 12 MP PNGs (hard links).
    static func prepareBatch(cache: URL = ImagesInputs.defaultCache, png: URL) throws -> (batch: URL, thumbs: URL, note: String) {
        let batch = cache.appendingPathComponent("batch-v1", isDirectory: true)
        let thumbs = cache.appendingPathComponent("thumbs-v1", isDirectory: true)
        let done = thumbs.appendingPathComponent(".complete")
        if FileManager.default.fileExists(atPath: done.path) {
            return (batch, thumbs, "batch: 7 JPEGs of \(width)x\(height) in \(batch.path) (reused); thumbs: those + 3 PNGs")
        }
        try? FileManager.default.removeItem(at: batch)
        try? FileManager.default.removeItem(at: thumbs)
        try FileManager.default.createDirectory(at: batch, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: thumbs, withIntermediateDirectories: true)
        var sources = photoSources()
        if sources.isEmpty { sources = [nil] }
        for index in 0..<7 {
            let source = sources[index % sources.count]
            let bitmap = try makePhoto(from: source, seed: UInt32(index + 1) &* 0x9E37_79B9)
            let jpeg = batch.appendingPathComponent("photo-\(index + 1).jpg")
            try AtomicFile.write(ImageEncoder().encode(bitmap, as: .jpeg(quality: 90)), to: jpeg)
            try FileManager.default.linkItem(at: jpeg, to: thumbs.appendingPathComponent(jpeg.lastPathComponent))
            if index < 2 {
                try AtomicFile.write(ImageEncoder().encode(bitmap, as: .png(compressionLevel: 6)),
                                     to: thumbs.appendingPathComponent("photo-\(index + 1).png"))
            }
        }
        try FileManager.default.linkItem(at: png, to: thumbs.appendingPathComponent("photo-0.png"))
        try Data().write(to: done)
        return (batch, thumbs, "batch: 7 JPEGs of \(width)x\(height) (q90) in \(batch.path), generated now; thumbs: those + 3 PNGs")
    }

    /// The photos the batch is made from: `$LANES_BENCH_PHOTOS`, else `shared/data/images` beside the checkout,
    /// else the fixtures.
    static func photoSources() -> [URL?] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [ProcessInfo.processInfo.environment["LANES_BENCH_PHOTOS"].map { URL(fileURLWithPath: $0) },
                          root.deletingLastPathComponent().appendingPathComponent("shared/data/images"),
                          fixtureFolder()].compactMap { $0 }
        for folder in candidates {
            let files = ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [])
                .filter { ["png", "jpg", "jpeg"].contains($0.pathExtension.lowercased()) }
                .filter { (try? ImageDecoder().probe(Data(contentsOf: $0)))?.orientation == .up }
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
            if !files.isEmpty { return files }
        }
        return []
    }

    static var defaultCache: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("lanes-bench-images", isDirectory: true)
    }

    /// `Tests/LanesImagesTests/Fixtures` of the checkout this file was compiled from.
    static func fixtureFolder() -> URL? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let folder = root.appendingPathComponent("Tests/LanesImagesTests/Fixtures")
        return FileManager.default.fileExists(atPath: folder.path) ? folder : nil
    }

    static func fileSize(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// A photo-like 12 MP bitmap: the fixture upscaled (smooth, like optics) plus fine grain
    /// (like sensor noise), so PNG compresses it about as well as a real photo.
    private static func makePhoto(from source: URL?, seed: UInt32 = 0x1234_5678) throws -> Bitmap {
        var bitmap: Bitmap
        if let source {
            let small = try ImageDecoder().decode(Data(contentsOf: source))
            bitmap = try Resize(width: width, height: height).process(small)
        } else {
            bitmap = Bitmap(width: width, height: height, filledWith: .black)
            bitmap.withUnsafeMutablePixels { pixels in
                for y in 0..<height {
                    for x in 0..<width {
                        let i = (y * width + x) * 4
                        let dx = x % 800 - 400, dy = y % 800 - 400
                        let disc = dx * dx + dy * dy < 90_000 ? 60 : 0
                        pixels[i] = UInt8(min(255, x * 200 / width + disc))
                        pixels[i + 1] = UInt8(min(255, y * 200 / height + disc / 2))
                        pixels[i + 2] = UInt8(min(255, (x + y) * 120 / (width + height) + 40))
                        pixels[i + 3] = 255
                    }
                }
            }
        }
        var state: UInt32 = seed == 0 ? 1 : seed
        bitmap.withUnsafeMutablePixels { pixels in
            for i in 0..<pixels.count where i % 4 != 3 {
                state ^= state << 13
                state ^= state >> 17
                state ^= state << 5
                let grain = Int(state % 13) - 6
                pixels[i] = UInt8(clamping: Int(pixels[i]) + grain)
            }
        }
        return bitmap
    }
}

/// Runs a command to completion and times it from launch to exit (the whole process), with its peak RSS.
enum ProcessTimer {
    struct Outcome {
        /// Wall-clock seconds from launch to exit.
        var seconds: Double
        /// User + system CPU seconds the child used (more than `seconds` when it ran on several cores).
        var cpuSeconds: Double
        var status: Int32
        var errorOutput: String
        /// The command's peak resident set in bytes (GNU time's `%M`: that process alone, not a sum), or NaN.
        var peakRSS: Double = .nan
    }

    /// Runs a command on one core only, through `taskset -c core`.
    struct Pin {
        var taskset: URL
        var core: Int
    }

    /// Spawns the command (`posix_spawn`, under `/usr/bin/time -f %M` for its peak RSS; NaN without it), stdout to
    /// /dev/null, stderr to a temporary file, and reaps it with `wait4` (CPU time: the command's and time's).
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                    pin: Pin? = nil) throws -> Outcome {
        var argv = [executable.path] + arguments
        if let pin { argv = [pin.taskset.path, "-c", "\(pin.core)"] + argv }
        // The peak RSS comes from GNU time, which forks the command from its own small process: a child spawned
        // straight from this one (vfork + exec) would inherit this process's high-water mark, which Linux keeps
        // across exec, and report it as its own.
        let rssPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("lanes-bench-rss-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        defer { unlink(rssPath) }
        let time = FileManager.default.isExecutableFile(atPath: "/usr/bin/time") ? "/usr/bin/time" : nil
        if let time { argv = [time, "-f", "%M", "-o", rssPath] + argv }
        let merged = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let errorsPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("lanes-bench-stderr-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        defer { unlink(errorsPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorsPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        var pid: pid_t = 0
        let start = now()
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, cEnvironment)
        guard spawned == 0 else {
            throw BenchError.failed("cannot start \(argv[0]): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let wall = seconds(since: start)
        func cpu(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        let exited = (status & 0x7F) == 0
        let errors = (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? ""
        return Outcome(seconds: wall, cpuSeconds: cpu(usage.ru_utime) + cpu(usage.ru_stime),
                       status: exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), errorOutput: errors,
                       peakRSS: time == nil ? .nan : Self.kilobytes(in: rssPath) * 1024)
    }

    /// The last number in GNU time's output file (kilobytes), NaN when there is none.
    static func kilobytes(in path: String) -> Double {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(whereSeparator: \.isNewline).last.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } ?? .nan
    }

    /// The first executable called `name` on the PATH.
    static func find(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
