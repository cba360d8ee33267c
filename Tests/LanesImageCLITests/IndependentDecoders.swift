import Foundation
import LanesTesting
import Testing

/// What a file holds according to a decoder that is not LanesImages': PNGs through scripts/png-samples.py (Python's
/// zlib, no libpng), JPEGs through `djpeg` (libjpeg-turbo-progs, which scripts/test-tools installs).
struct DecodedSamples: Sendable {
    /// PNG colour type (0 grey, 2 RGB, 4 grey+alpha, 6 RGBA); for a JPEG 0 (one component, PGM) or 2 (PPM).
    var colourType: Int
    var bitDepth: Int
    var width: Int
    var height: Int
    /// Every sample, row by row, pixel by pixel, channel by channel.
    var samples: [Int]

    var channels: Int { [0: 1, 2: 3, 4: 2, 6: 4][colourType] ?? 0 }

    /// The samples of pixel (x, y).
    func pixel(_ x: Int, _ y: Int) -> ArraySlice<Int> {
        let start = (y * width + x) * channels
        return samples[start..<(start + channels)]
    }
}

enum IndependentDecoders {
    /// The repository's root (this file is Tests/LanesImageCLITests/IndependentDecoders.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let pngScript = root.appendingPathComponent("scripts/png-samples.py")

    /// `name` on PATH or in the usual folders.
    static func tool(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"] {
            let candidate = URL(fileURLWithPath: folder).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Runs `executable` with `arguments` on a dedicated thread; its status, standard output and standard error.
    static func run(_ executable: URL, _ arguments: [String], in folder: URL) async throws
        -> (status: Int32, output: Data, errors: String) {
        try await onDedicatedThread {
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            let id = UUID().uuidString
            let out = folder.appendingPathComponent("stdout-\(id)"), err = folder.appendingPathComponent("stderr-\(id)")
            _ = FileManager.default.createFile(atPath: out.path, contents: nil)
            _ = FileManager.default.createFile(atPath: err.path, contents: nil)
            defer {
                try? FileManager.default.removeItem(at: out)
                try? FileManager.default.removeItem(at: err)
            }
            process.standardOutput = try FileHandle(forWritingTo: out)
            process.standardError = try FileHandle(forWritingTo: err)
            try process.run()
            process.waitUntilExit()
            return (process.terminationStatus, try Data(contentsOf: out),
                    String(decoding: try Data(contentsOf: err), as: UTF8.self))
        }
    }

    /// Parses png-samples.py's two lines.
    static func parseSamples(_ output: Data) throws -> DecodedSamples {
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let header = try #require(lines.first).split(separator: " ").compactMap { Int($0) }
        try #require(header.count == 4, "png-samples.py printed no header")
        let samples = lines.count > 1 ? lines[1].split(separator: " ").compactMap { Int($0) } : []
        return DecodedSamples(colourType: header[0], bitDepth: header[1], width: header[2], height: header[3],
                              samples: samples)
    }

    static func python() throws -> URL {
        try #require(tool("python3"), "python3 is needed to read PNGs independently")
    }

    /// Writes a PNG of png-samples.py's pattern and returns what it wrote.
    static func writePNG(_ url: URL, colourType: Int, bitDepth: Int, width: Int, height: Int,
                         pattern: String = "ramp") async throws -> DecodedSamples {
        let result = try await run(try python(), [pngScript.path, "write", url.path, "\(colourType)", "\(bitDepth)",
                                                  "\(width)", "\(height)", pattern], in: url.deletingLastPathComponent())
        try #require(result.status == 0, "png-samples.py write failed: \(result.errors)")
        return try parseSamples(result.output)
    }

    /// A PNG's samples as Python reads them.
    static func readPNG(_ url: URL) async throws -> DecodedSamples {
        let result = try await run(try python(), [pngScript.path, "read", url.path], in: url.deletingLastPathComponent())
        try #require(result.status == 0, "png-samples.py read failed: \(result.errors)")
        return try parseSamples(result.output)
    }

    /// A JPEG's samples as djpeg decodes them (PGM for a one-component JPEG, PPM otherwise).
    static func readJPEG(_ url: URL) async throws -> DecodedSamples {
        let djpeg = try #require(tool("djpeg"), "djpeg is needed to read JPEGs independently: run scripts/test-tools")
        let result = try await run(djpeg, ["-pnm", url.path], in: url.deletingLastPathComponent())
        try #require(result.status == 0, "djpeg failed: \(result.errors)")
        // "P5|P6 <ws> width <ws> height <ws> 255 <one ws>" then the bytes.
        var fields: [String] = [], current = "", index = 0
        let bytes = [UInt8](result.output)
        while fields.count < 4, index < bytes.count {
            let character = Character(UnicodeScalar(bytes[index]))
            index += 1
            if character.isWhitespace {
                if !current.isEmpty { fields.append(current); current = "" }
            } else {
                current.append(character)
            }
        }
        try #require(fields.count == 4 && (fields[0] == "P5" || fields[0] == "P6") && fields[3] == "255",
                     "djpeg wrote no 8-bit PNM")
        return DecodedSamples(colourType: fields[0] == "P5" ? 0 : 2, bitDepth: 8, width: Int(fields[1]) ?? 0,
                              height: Int(fields[2]) ?? 0, samples: bytes[index...].map(Int.init))
    }
}
