import CLanesCodecs
import Foundation
import LanesImages

/// Decode throughput: `ImageDecoder().decode` against the bare libpng/libjpeg path it wraps
/// (`clanes_decoder_create`, its header, one malloc, `clanes_decoder_decode`, free), same thread,
/// same bytes in memory, runs interleaved so drifting load hits both alike.
enum ImagesDecodeBench {
    /// One row per file: seconds per decode for each path, megapixels and decoded megabytes per
    /// second, and `ratio` = Lanes' time / the direct path's time.
    static func rows(files: [URL], repeats: Int) throws -> [Row] {
        try files.map { try row(for: $0, repeats: repeats) }
    }

    static func row(for file: URL, repeats: Int) throws -> Row {
        let data = try Data(contentsOf: file)
        let bytes = Array(data)
        let decoder = ImageDecoder()
        let info = try decoder.probe(data)
        guard try decoder.decode(data).pixelCount == info.pixelCount, direct(bytes) else {
            throw BenchError.failed("decoding \(file.lastPathComponent) failed")
        }
        // Enough decodes per sample for ~0.25 s, so short decodes are not lost in timer noise.
        let once = timed(1) { _ = try? decoder.decode(data) }
        let batch = max(1, Int(0.25 / max(once, 1e-6)))
        var lanesSamples: [Double] = []
        var directSamples: [Double] = []
        for _ in 0..<repeats {
            lanesSamples.append(timed(batch) { _ = try? decoder.decode(data) } / Double(batch))
            directSamples.append(timed(batch) { _ = direct(bytes) } / Double(batch))
        }
        let lanes = median(of: lanesSamples), bare = median(of: directSamples)
        let pixels = Double(info.width * info.height)
        var row = Row(scenario: "images-decode", n: info.width * info.height)
        row.time("lanes", lanes)
        row.time("direct", bare)
        row.count("ratio", lanes / bare)
        row.count("lanes_mpix_per_s", pixels / lanes / 1e6)
        row.count("direct_mpix_per_s", pixels / bare / 1e6)
        row.count("lanes_mb_per_s", pixels * 4 / lanes / 1e6)
        row.count("direct_mb_per_s", pixels * 4 / bare / 1e6)
        row.count("file_kb", Double(data.count) / 1000)
        row.notes.append("\(file.lastPathComponent): \(info.format) \(info.width)x\(info.height)"
            + "\(info.isProgressive ? " progressive" : ""), \(batch) decode(s) per sample; MB/s = decoded RGBA bytes")
        return row
    }

    /// The direct path: what `ImageDecoder` calls, with nothing around it.
    static func direct(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer -> Bool in
            guard let data = buffer.baseAddress else { return false }
            var decoder: OpaquePointer?
            defer { clanes_decoder_destroy(decoder) }
            var info = clanes_info()
            guard clanes_decoder_create(nil, &decoder) == CLANES_OK,
                  clanes_decoder_set_buffer(decoder, data, buffer.count) == CLANES_OK,
                  clanes_decoder_header(decoder, &info) == CLANES_OK else { return false }
            let rowBytes = Int(info.width) * 4
            let pixels = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes * Int(info.height))
            defer { pixels.deallocate() }
            var image = clanes_pixels(pixels: pixels, bytes_per_row: rowBytes, width: info.width, height: info.height,
                                      channels: 4, bytes_per_sample: 1)
            let status = clanes_decoder_decode(decoder, &image)
            return status == CLANES_OK
        }
    }

    private static func timed(_ count: Int, _ body: () -> Void) -> Double {
        let start = now()
        for _ in 0..<count { body() }
        return seconds(since: start)
    }
}

enum BenchError: Error, CustomStringConvertible {
    case failed(String)

    var description: String {
        switch self {
        case .failed(let reason): reason
        }
    }
}
