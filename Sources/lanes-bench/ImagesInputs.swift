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
    private static func makePhoto(from source: URL?) throws -> Bitmap {
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
        var state: UInt32 = 0x1234_5678
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

/// Runs a command to completion and times it from launch to exit (the whole process).
enum ProcessTimer {
    struct Outcome {
        /// Wall-clock seconds from launch to exit.
        var seconds: Double
        /// User + system CPU seconds the child used (more than `seconds` when it ran on several cores).
        var cpuSeconds: Double
        var status: Int32
        var errorOutput: String
    }

    /// Runs a command on one core only, through `taskset -c core`.
    struct Pin {
        var taskset: URL
        var core: Int
    }

    static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                    pin: Pin? = nil) throws -> Outcome {
        let process = Process()
        if let pin {
            process.executableURL = pin.taskset
            process.arguments = ["-c", "\(pin.core)", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        let cpuBefore = childrenCPUSeconds()
        let start = now()
        try process.run()
        let text = errors.fileHandleForReading.readDataToEndOfFile() // until the child closes it
        process.waitUntilExit()
        let wall = seconds(since: start)
        return Outcome(seconds: wall, cpuSeconds: childrenCPUSeconds() - cpuBefore, status: process.terminationStatus,
                       errorOutput: String(decoding: text, as: UTF8.self))
    }

    /// CPU time of every finished child of this process so far (children run one at a time here).
    static func childrenCPUSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_CHILDREN.rawValue, &usage) // an enum in Glibc's headers
        #else
        getrusage(RUSAGE_CHILDREN, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The first executable called `name` on the PATH.
    static func find(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
