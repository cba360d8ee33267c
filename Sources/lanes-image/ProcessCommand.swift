import ArgumentParser
import Foundation
import Lanes
import LanesAppSupport
import LanesImages

/// `lanes-image process INPUT... [options]`.
struct ProcessCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "process",
        abstract: "Process images and write them as <stem>.<format> into the output folder.",
        discussion: """
            INPUT is a PNG, JPEG, WebP, GIF or AVIF file (an animation's first frame), a folder (its image files, not \
            recursive), or a \
            file:// or http(s):// URL. Steps run in this order: decode (scaled down to fit --resize), blur, \
            tilt-shift, greyscale, encode. Grey inputs stay grey and 16-bit PNGs stay 16-bit in PNG outputs (resize, blur \
            and tilt-shift work in 8 bits; greyscale keeps 16); a JPEG is 8-bit, and transparency in it is flattened on \
            --background; WebP and AVIF outputs are 8-bit RGB, with alpha when the image has any, and are encoded from \
            the whole image (libwebp and libavif take a whole picture: about 4 bytes a pixel besides the encoder's \
            own). Outputs that would collide get -1, -2... suffixes; an input \
            is never overwritten, nor is any other existing file unless --overwrite is given. \
            The output folder is checked for writability before any input is read; Ctrl-C (or SIGTERM) removes \
            the outputs still being written. Exit status: 0 when every image was written, 1 when any failed, \
            130/143 when interrupted.
            """
    )

    @Argument(help: "Files, folders, or file:// or http(s):// URLs.")
    var inputs: [String]

    @Flag(name: .customLong("tilt-shift"), help: "The tilt-shift (miniature) effect: a sharp band, blurred above and below.")
    var tiltShift = false

    @Option(help: ArgumentHelp("Gaussian blur of SIGMA pixels.", valueName: "sigma"))
    var blur: Double?

    @Flag(help: "Convert to greyscale.")
    var greyscale = false

    @Option(help: ArgumentHelp("Scale down to fit: WxH, Wx (width only) or xH (height only). Never enlarges.",
                               valueName: "size"))
    var resize: String?

    @Option(help: "Output format: png, jpeg, jpg, webp or avif (also the file extension).")
    var format: String = "png"

    @Option(help: "Quality of a lossy output: JPEG 1...100 (default 85), WebP 0...100 (75), AVIF 0...100 (50).")
    var quality: Int?

    @Flag(help: "A lossless WebP (WebP only; --quality then sets how hard it compresses).")
    var lossless = false

    @Option(help: ArgumentHelp("Encoder effort, like libvips': WebP 0...6 (libwebp's method), AVIF 0...9 (AV1 speed "
                               + "9 - effort); higher is smaller and slower; default 4.", valueName: "n"))
    var effort: Int?

    @Option(help: ArgumentHelp("What transparent pixels are flattened on in a JPEG: white, black, grey, red, green, blue, "
                               + "#RGB or #RRGGBB.", valueName: "colour"))
    var background: String = "white"

    @Flag(name: .customLong("optimize-jpeg"),
          help: "Optimal Huffman tables in JPEGs: about 7% smaller files, but the encoder holds ~3 bytes a pixel.")
    var optimizeJPEG = false

    @Option(help: "PNG compression level, 0...9 (9: smallest, slowest; 6 like libvips).")
    var compression: Int = 6

    @Option(name: .customLong("png-filter"),
            help: ArgumentHelp("PNG row filter: none (fastest, like libvips), sub, up, average, paeth or adaptive (smallest).",
                               valueName: "filter"))
    var pngFilter: String = "none"

    @Flag(help: "Replace existing files in the output folder (an input is never replaced).")
    var overwrite = false

    @Option(help: ArgumentHelp("Output folder (created if missing).", valueName: "dir"))
    var out: String = "."

    @Option(help: ArgumentHelp("Progress on stderr: bar (redrawn on one line), lines (one per file) or auto (a bar on a "
                               + "terminal).", valueName: "style"))
    var progress: String = "auto"

    @Option(help: "Images in flight at once.")
    var concurrency: Int = 8

    @Option(help: "Threads per stage (decode, process, encode) at once; 1 makes each stage serial.")
    var threads: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: ArgumentHelp("Write a Chrome trace of every Lanes work item to FILE (open in ui.perfetto.dev).",
                               valueName: "file"))
    var trace: String?

    @Option(help: "Refuse images of more pixels than this (checked from the header).")
    var maxPixels: Int = ImageDecoder.defaultMaxPixels

    @Option(help: ArgumentHelp("Give up on an http(s) input after SECONDS in all, retries included; also the longest "
                               + "wait for the server to send anything.", valueName: "seconds"))
    var timeout: Double = 120

    @Option(help: "Retries of an http(s) input after a connection failure, a timeout or HTTP 5xx (never after 4xx).")
    var retries: Int = 2

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("name at least one input") }
        _ = try makePlan()
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        guard threads >= 1 else { throw ValidationError("--threads must be at least 1") }
        guard maxPixels >= 1 else { throw ValidationError("--max-pixels must be at least 1") }
        guard timeout.isFinite, timeout > 0, timeout <= 86_400 else {
            throw ValidationError("--timeout must be in 0 < seconds <= 86400")
        }
        guard (0...100).contains(retries) else { throw ValidationError("--retries must be 0...100") }
        guard ["auto", "bar", "lines"].contains(progress) else {
            throw ValidationError("--progress '\(TerminalText.truncated(progress, toWidth: 40))' is not auto, bar or lines")
        }
    }

    /// How http(s) inputs are fetched: the whole fetch within `--timeout`, nothing arriving for at most 30 s of it,
    /// `--retries` retries, a body of at most ``maxBodyBytes``.
    var fetchPolicy: FetchPolicy {
        let limit = Duration.milliseconds(Int64(timeout * 1000))
        var retry = FetchPolicy.defaultRetry
        retry.maxAttempts = retries + 1
        return FetchPolicy(timeout: min(limit, .seconds(30)), retry: retry, maxBytes: Self.maxBodyBytes,
                           deadline: limit)
    }

    /// The largest http(s) body fetched: 64 MiB (a larger encoded image would decode past the pixel limit anyway).
    static let maxBodyBytes = 64 << 20

    /// The options as a plan; the errors name the option at fault.
    func makePlan() throws -> ProcessingPlan {
        var plan = ProcessingPlan()
        if let resize {
            guard let spec = ResizeSpec(parsing: resize) else {
                throw ValidationError("--resize '\(resize)' is not WxH, Wx or xH with positive numbers")
            }
            plan.resize = spec
        }
        if let blur {
            guard blur.isFinite, blur > 0, blur <= 1000 else { throw ValidationError("--blur must be in 0 < sigma <= 1000") }
            plan.blurSigma = blur
        }
        plan.tiltShift = tiltShift
        plan.greyscale = greyscale
        guard let format = OutputFormat(rawValue: format.lowercased()) else {
            throw ValidationError("--format '\(TerminalText.truncated(format, toWidth: 40))' is not png, jpeg, jpg, webp or avif")
        }
        plan.format = format
        let quality = quality ?? format.defaultQuality
        if let range = format.qualityRange {
            guard range.contains(quality) else { throw ValidationError("--quality must be \(range) for \(format)") }
        } else if self.quality != nil {
            throw ValidationError("--quality is for jpeg, webp and avif outputs (png is lossless: see --compression)")
        }
        if lossless && format != .webp { throw ValidationError("--lossless is for webp outputs") }
        if let effort {
            guard let range = format.effortRange else { throw ValidationError("--effort is for webp and avif outputs") }
            guard range.contains(effort) else { throw ValidationError("--effort must be \(range) for \(format)") }
            plan.effort = effort
        }
        plan.lossless = lossless
        plan.encoderThreads = min(max(threads, 1), 64)
        guard (0...9).contains(compression) else { throw ValidationError("--compression must be 0...9") }
        guard let filter = ImageEncoder.PNGFilter(rawValue: pngFilter.lowercased()) else {
            let names = ImageEncoder.PNGFilter.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("--png-filter '\(pngFilter)' is not one of \(names)")
        }
        guard let colour = BackgroundColour.parse(background) else {
            let shown = TerminalText.truncated(background, toWidth: 40)
            throw ValidationError("--background '\(shown)' is not a colour: use white, black, grey, red, green, blue, "
                                  + "#RGB or #RRGGBB")
        }
        plan.background = colour
        plan.quality = quality
        plan.optimizedJPEG = optimizeJPEG
        plan.compression = compression
        plan.pngFilter = filter
        plan.overwrite = overwrite
        return plan
    }

    func run() async throws {
        let plan = try makePlan()
        let outputDirectory = URL(fileURLWithPath: out, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
        } catch {
            throw ValidationError(TerminalText.sanitized("cannot create the output folder \(out): \(describe(error))"))
        }
        try Self.checkWritable(outputDirectory, named: out)
        InterruptCleanup.install()
        let jobs = InputList.jobs(for: InputList.sources(for: inputs), outputDirectory: outputDirectory,
                                  fileExtension: plan.format.fileExtension, overwrite: plan.overwrite)
        guard !jobs.isEmpty else {
            let named = TerminalText.sanitized(inputs.joined(separator: ", "))
            FileHandle.standardError.write(Data("lanes-image: no image files in \(named)\n".utf8))
            throw ExitCode(1)
        }
        let recorder = trace.map { TraceRecorder(outputURL: URL(fileURLWithPath: $0)) }
        recorder?.start()

        let loader = PipelineLoader(concurrency: concurrency, threads: threads, maxPixels: maxPixels,
                                    fetchPolicy: fetchPolicy)
        let encoders = WorkQueue("lanes-image encode", maxConcurrency: threads)
        let interactive = progress == "auto" ? isatty(STDERR_FILENO) != 0 : progress == "bar"
        let progress = ProgressReporter(interactive: interactive, tickInterval: .milliseconds(250))
        InterruptCleanup.onInterrupt { progress.close() }
        let runner = BatchRunner(plan: plan, loader: loader, encoders: encoders, concurrency: concurrency,
                                 progress: progress,
                                 banded: BandedFiles(maxPixels: maxPixels, budget: loader.pipeline.budget,
                                                     fetcher: loader.pipeline.configuration.fetcher))
        let start = Date()
        let results = await runner.run(jobs)
        let seconds = Date().timeIntervalSince(start)

        let failures = results.filter(\.failed)
        let summary = Self.summary(results, outputDirectory: outputDirectory, seconds: seconds, plan: plan)
        FileHandle.standardError.write(Data((summary + "\n").utf8))
        if let recorder {
            do {
                try recorder.finish()
                FileHandle.standardError.write(Data("lanes-image: trace written to \(trace!) (\(recorder.eventCount) events)\n".utf8))
            } catch {
                FileHandle.standardError.write(Data("lanes-image: could not write the trace \(trace!): \(describe(error))\n".utf8))
            }
        }
        if !failures.isEmpty { throw ExitCode(1) }
    }

    /// Fails unless a file can be created in `folder`, before any input is read: an unwritable `--out` used to
    /// decode and process every image, then fail each. (Tried by creating and removing a hidden file: permission
    /// bits say nothing of read-only mounts, and nothing to root.)
    static func checkWritable(_ folder: URL, named name: String) throws {
        let probe = folder.appendingPathComponent(".lanes-image-write-check.\(UUID().uuidString)")
        let descriptor = open(probe.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ValidationError(TerminalText.sanitized(
                "the output folder \(name) is not writable: \(String(cString: strerror(errno)))"))
        }
        close(descriptor)
        unlink(probe.path)
    }

    /// The closing report: how many were written, outputs numbered to spare an existing file, failures (names and
    /// reasons sanitized: they come from file names, URLs and servers).
    static func summary(_ results: [JobResult], outputDirectory: URL, seconds: Double, plan: ProcessingPlan) -> String {
        let failures = results.filter(\.failed)
        let folder = TerminalText.sanitized(outputDirectory.path)
        var summary = "lanes-image: \(results.count - failures.count) of \(results.count) written to \(folder)"
            + " in \(String(format: "%.2f", seconds)) s (\(plan))"
        let renamed = results.filter { !$0.failed && $0.job.keptExisting != nil }
        if !renamed.isEmpty {
            summary += "\n\(renamed.count) renamed to keep an existing file (--overwrite replaces them):"
                + renamed.map {
                    "\n  " + TerminalText.sanitized($0.job.keptExisting!) + " → "
                        + TerminalText.sanitized($0.job.output.lastPathComponent)
                }.joined()
        }
        if !failures.isEmpty {
            summary += "\n\(failures.count) failed:" + failures.map {
                "\n  " + TerminalText.sanitized($0.job.displayName) + ": " + TerminalText.sanitized($0.detail)
            }.joined()
        }
        return summary
    }
}
