import Foundation
import LanesImages

/// In-process timings of the steps `images-blur` spends its time in, on the 12 MP photo:
/// the σ = 8 blur of the opaque image (alpha skipped) against the same image with one
/// translucent pixel (all four channels blurred), and PNG encoding with libvips' `pngsave`
/// settings (level 6, no filter) against libpng's adaptive filter at levels 4 and 6, and `Resize(width: 800)` of the
/// photo (the whole-bitmap resize, streamed through `ResizeRows`' ring).
struct ImagesStepsBench {
    let photo: URL
    let repeats: Int

    func row() throws -> Row {
        let opaque = try ImageDecoder().decode(Data(contentsOf: photo))
        var translucent = opaque
        var corner = translucent[0, 0]
        corner.alpha = 0
        translucent[0, 0] = corner
        let blur = GaussianBlur(sigma: 8)
        let blurred = try blur.process(opaque)
        let encodings: [(String, ImageEncoder.Format)] = [
            ("png_none_6", .png(compressionLevel: 6, filter: .none)),
            ("png_adaptive_4", .png(compressionLevel: 4, filter: .adaptive)),
            ("png_adaptive_6", .png(compressionLevel: 6, filter: .adaptive)),
        ]
        var samples: [String: [Double]] = [:]
        var sizes: [String: Int] = [:]
        // Interleaved, so a burst of load from elsewhere hits every variant alike.
        for _ in 0..<repeats {
            samples["blur_rgb", default: []].append(try timed { _ = try blur.process(opaque) })
            samples["blur_rgba", default: []].append(try timed { _ = try blur.process(translucent) })
            samples["resize_800", default: []].append(try timed { _ = try Resize(width: 800).process(opaque) })
            for (name, format) in encodings {
                samples[name, default: []].append(try timed {
                    sizes[name] = try ImageEncoder().encode(blurred, as: format).count
                })
            }
        }
        func middle(_ name: String) -> Double { median(of: samples[name]!) }
        var row = Row(scenario: "images-steps", n: opaque.pixelCount)
        row.time("blur_rgb", middle("blur_rgb"))
        row.time("blur_rgba", middle("blur_rgba"))
        row.count("rgba_over_rgb", middle("blur_rgba") / middle("blur_rgb"))
        row.time("resize_800", middle("resize_800"))
        for (name, _) in encodings {
            row.time(name, middle(name))
            row.count(name + "_mb", Double(sizes[name]!) / 1e6)
        }
        row.notes.append("σ = 8 on \(photo.lastPathComponent) in this process, one thread; blur_rgba: the same image with one"
            + " translucent pixel, so all four channels are blurred; png_*: encoding the blurred image to memory")
        return row
    }

    private func timed(_ body: () throws -> Void) rethrows -> Double {
        let start = now()
        try body()
        return seconds(since: start)
    }
}
