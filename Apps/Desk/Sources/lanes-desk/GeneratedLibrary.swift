import Foundation
import Lanes
import LanesImages
import StocksKit
import Synchronization

/// The embedded photo library: a few bundled photos expanded deterministically into many entries, each a crop, zoom
/// and rotation of its source photo. An entry is an image URL `lanes-photo://library/<index>`; ``LibraryFetcher``
/// answers it with a tiny descriptor and ``LibraryDecoder`` "decodes" that by rendering the entry from its source
/// (decoded once, kept) at the requested size — so entries go through the pipeline's fetch, decode, processor and
/// cache stages like any photo.
struct GeneratedLibrary: Sendable {
    static let scheme = "lanes-photo"
    static let marker = Array("lanes-photo:".utf8)

    let sources: [URL]

    static func url(of index: Int) -> URL { URL(string: "\(scheme)://library/\(index)")! }

    static func index(of url: URL) -> Int? {
        url.scheme == scheme ? Int(url.lastPathComponent) : nil
    }

    /// How entry `index` is cut from its source: which source, the crop's centre and size (fractions), a rotation.
    struct Variant: Equatable {
        var source: Int
        var centreX: Double
        var centreY: Double
        var zoom: Double
        var quarterTurns: Int
    }

    func variant(of index: Int) -> Variant {
        // Seeds an odd multiple apart that is not SplitMix's own increment, so neighbours' streams never overlap.
        var random = SplitMix64(seed: UInt64(index) &* 0xD1B5_4A32_D192_ED03 ^ 0x5851_F42D_4C95_7F2D)
        return Variant(
            source: index % max(1, sources.count),
            centreX: 0.2 + 0.6 * random.unit(), centreY: 0.2 + 0.6 * random.unit(),
            zoom: 1 + 2 * random.unit(), quarterTurns: Int(random.next() % 4))
    }

    /// Renders entry `index` from `source` to exactly `width` × `height` (a fill crop, 2 × 2 supersampled).
    func render(_ index: Int, from source: Bitmap, width: Int, height: Int) -> Bitmap {
        let variant = variant(of: index)
        let turns = variant.quarterTurns
        // The crop, in source pixels, with the output's aspect (swapped when rotated a quarter turn).
        let (outW, outH) = turns % 2 == 0 ? (Double(width), Double(height)) : (Double(height), Double(width))
        let scale = min(Double(source.width) / outW, Double(source.height) / outH) / variant.zoom
        let cropW = outW * scale, cropH = outH * scale
        let x0 = min(max(0, variant.centreX * Double(source.width) - cropW / 2), Double(source.width) - cropW)
        let y0 = min(max(0, variant.centreY * Double(source.height) - cropH / 2), Double(source.height) - cropH)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        // 2 × 2 samples when shrinking (thumbnails), one when the crop is about the output's size (the detail view).
        let samples = scale > 1.5 ? 4 : 1
        source.withUnsafePixels { src in
            let sw = source.width, sh = source.height
            for y in 0..<height {
                for x in 0..<width {
                    var r = 0, g = 0, b = 0
                    for sub in 0..<samples {
                        // Output (x, y) → unrotated crop coordinates (u, v) in 0..<1.
                        let offsetX = samples == 1 ? 0.5 : 0.25 + 0.5 * Double(sub & 1)
                        let offsetY = samples == 1 ? 0.5 : 0.25 + 0.5 * Double(sub >> 1)
                        let fx = (Double(x) + offsetX) / Double(width)
                        let fy = (Double(y) + offsetY) / Double(height)
                        let (u, v): (Double, Double)
                        switch turns {
                        case 1: (u, v) = (fy, 1 - fx)
                        case 2: (u, v) = (1 - fx, 1 - fy)
                        case 3: (u, v) = (1 - fy, fx)
                        default: (u, v) = (fx, fy)
                        }
                        let px = x0 + u * cropW - 0.5, py = y0 + v * cropH - 0.5
                        if samples == 1 {
                            // Magnifying (the detail view): bilinear.
                            let ix = min(sw - 2, max(0, Int(px))), iy = min(sh - 2, max(0, Int(py)))
                            let tx = min(1, max(0, px - Double(ix))), ty = min(1, max(0, py - Double(iy)))
                            for channel in 0..<3 {
                                let p00 = Double(src[(iy * sw + ix) * 4 + channel])
                                let p01 = Double(src[(iy * sw + ix + 1) * 4 + channel])
                                let p10 = Double(src[((iy + 1) * sw + ix) * 4 + channel])
                                let p11 = Double(src[((iy + 1) * sw + ix + 1) * 4 + channel])
                                let top = p00 + (p01 - p00) * tx, bottom = p10 + (p11 - p10) * tx
                                let value = Int(top + (bottom - top) * ty + 0.5)
                                if channel == 0 { r += value } else if channel == 1 { g += value } else { b += value }
                            }
                            continue
                        }
                        let sx = min(sw - 1, max(0, Int(px + 0.5)))
                        let sy = min(sh - 1, max(0, Int(py + 0.5)))
                        let offset = (sy * sw + sx) * 4
                        r += Int(src[offset]); g += Int(src[offset + 1]); b += Int(src[offset + 2])
                    }
                    let offset = (y * width + x) * 4
                    pixels[offset] = UInt8(r / samples)
                    pixels[offset + 1] = UInt8(g / samples)
                    pixels[offset + 2] = UInt8(b / samples)
                }
            }
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }
}

extension SplitMix64 {
    /// A uniform value in [0, 1) from the top 53 bits.
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// Answers `lanes-photo://` URLs with a descriptor of the entry (asynchronously, as `DataFetching` requires); every
/// other URL goes to Lanes' `DataFetcher` (files, HTTP).
struct LibraryFetcher: DataFetching {
    let fallback: DataFetcher

    init(policy: FetchPolicy = FetchPolicy()) {
        fallback = DataFetcher(policy: policy)
    }

    func fetch(
        _ url: URL, priority: WorkPriority, completion: @escaping @Sendable (Result<Data, FetchError>) -> Void
    ) -> any FetchHandle {
        guard let index = GeneratedLibrary.index(of: url) else {
            return fallback.fetch(url, priority: priority, completion: completion)
        }
        let data = Data(GeneratedLibrary.marker + Array(String(index).utf8))
        DispatchQueue.global().async { completion(.success(data)) }
        return ImmediateFetch()
    }
}

/// The handle of a fetch that completes at once (nothing to cancel).
struct ImmediateFetch: FetchHandle {
    func cancel() {}
    func setPriority(_ priority: WorkPriority) {}
}

/// Renders library descriptors (see ``GeneratedLibrary``) and decodes everything else with Lanes' `ImageDecoder`.
/// Source photos are decoded at most 800 pixels wide, once, and kept.
final class LibraryDecoder: QuickImageDecoding {
    let library: GeneratedLibrary
    private let real = ImageDecoder()
    private let sources = Mutex<[Int: Bitmap]>([:])

    /// Whether decoded source photos are kept (the naive mode decodes the source file on every bind, as a cell that
    /// loads its photo itself would).
    let keepsSources: Bool

    init(library: GeneratedLibrary, keepsSources: Bool = true) {
        self.library = library
        self.keepsSources = keepsSources
    }

    func decode(_ data: Data, targetSize: TargetSize?, maxPixels: Int) throws -> Bitmap {
        guard data.starts(with: GeneratedLibrary.marker),
            let index = Int(String(decoding: data.dropFirst(GeneratedLibrary.marker.count), as: UTF8.self))
        else { return try real.decode(data, targetSize: targetSize, maxPixels: maxPixels) }
        let size = targetSize ?? TargetSize(maxWidth: 800, maxHeight: 600)
        let width = min(size.maxWidth, 4096), height = min(size.maxHeight, 4096)
        return library.render(index, from: try source(library.variant(of: index).source), width: width, height: height)
    }

    /// A quick rendering (the image quick tier): the entry rendered at half the target each way (a quarter of the
    /// work), with its index stamped as the full thumbnail's `IndexStamp` step stamps it, so the app's wrong-row check
    /// reads quick renderings too.
    func decodeQuick(_ data: Data, targetSize: TargetSize?, maxPixels: Int) throws -> Bitmap {
        guard data.starts(with: GeneratedLibrary.marker),
            let index = Int(String(decoding: data.dropFirst(GeneratedLibrary.marker.count), as: UTF8.self))
        else { return try real.decodeQuick(data, targetSize: targetSize, maxPixels: maxPixels) }
        let size = targetSize ?? TargetSize(maxWidth: 800, maxHeight: 600)
        let width = max(1, min(size.maxWidth, 4096) / 2), height = max(1, min(size.maxHeight, 4096) / 2)
        var bitmap = library.render(index, from: try source(library.variant(of: index).source), width: width, height: height)
        IndexBarcode.stamp(index, into: &bitmap)
        return bitmap
    }

    /// The decoded source photo `number` (decoded on first use; two first uses at once may both decode it).
    func source(_ number: Int) throws -> Bitmap {
        if let bitmap = sources.withLock({ $0[number] }) { return bitmap }
        let data = try Data(contentsOf: library.sources[number])
        let bitmap = try real.decode(data, targetSize: TargetSize(maxWidth: 800, maxHeight: 800))
        if keepsSources { sources.withLock { $0[number] = bitmap } }
        return bitmap
    }
}
