import Foundation
import LanesImages

// `lanes-bench images-formats` (also part of `images`): WebP, AVIF, GIF, HEIC and JPEG XL inputs against libvips,
// whole processes
// side by side in one run, contenders interleaved, medians of wall, CPU and peak RSS, as ratios (issue 22):
//   images-<format>-decode   lanes-image process IN --format png --compression 0 vs vips pngsave IN OUT --compression 0
//                            (decoding, plus writing the pixels with zlib storing them)
//   images-<format>-thumb    lanes-image process IN --resize 256x256 --format jpg --quality 75 vs vipsthumbnail IN
//                            -s 256x256 -o %s.jpg[Q=75]; targets wall ≤ 1.0× and RSS ≤ 1.5× vipsthumbnail's
//   images-<format>-convert  WebP → WebP (q75, effort 4), AVIF → AVIF (q50, effort 4), GIF, HEIC, JXL → WebP: lanes-image vs
//                            vips webpsave / heifsave --compression av1 with the same settings
// Both tools run with their defaults (threads per core). The inputs are made once into the cache by the reference
// encoders from the 12 MP photo: cwebp -q 80, avifenc -s 6 (8-bit 4:2:0), ImageMagick's convert for a one-frame
// 12 MP GIF and an animated GIF (16 frames of 640x480 cut from the photo, 80 ms each), heif-enc -q 50 (x265, as a
// phone's HEIC: one image, no grid) and cjxl -d 1 (VarDCT, libjxl's default quality).
struct ImagesFormatsBench {
    let inputs: ImagesInputs
    let repeats: Int

    struct Input {
        var name: String
        var file: URL
        /// What the convert row writes, and the vips command that writes it alike.
        var outputFormat: String
        var vipsSave: [String]
    }

    func rows() throws -> [Row] {
        guard let lanes = ImagesBlurBench.lanesImageBinary() else {
            let why = "lanes-image was not found next to lanes-bench: no format comparisons"
            return [Row(scenario: "images-formats", note: why)]
        }
        let made = try Self.prepare(from: inputs.photoPNG)
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("lanes-bench-formats-out-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(at: output) }
        func fresh(_ name: String) throws -> URL { try ImagesMemoryBench.fresh(name, in: output) }
        let checked = ImagesMemoryBench.checked
        let vips = ProcessTimer.find("vips"), thumbnail = ProcessTimer.find("vipsthumbnail")
        let bench = ImagesMemoryBench(inputs: inputs, repeats: repeats)
        typealias Contender = ImagesMemoryBench.Contender
        var rows: [Row] = []
        for input in made.inputs {
            let size = Self.size(of: input.file)
            func lanesRun(_ options: [String]) -> Contender {
                Contender(name: "lanes") {
                    [try checked(ProcessTimer.run(lanes, ["process", input.file.path, "--out", try fresh("lanes").path,
                                                          "--progress", "lines"] + options), "lanes-image")]
                }
            }
            var decode = [lanesRun(["--format", "png", "--compression", "0"])]
            var thumb = [lanesRun(["--resize", "256x256", "--format", "jpg", "--quality", "75"])]
            var convert = [lanesRun(["--format", input.outputFormat])]
            if let vips {
                decode.append(Contender(name: "vips") {
                    [try checked(ProcessTimer.run(vips, ["pngsave", input.file.path,
                                                         try fresh("vips").appendingPathComponent("out.png").path,
                                                         "--compression", "0"]), "vips pngsave")]
                })
                convert.append(Contender(name: "vips") {
                    let out = try fresh("vips").appendingPathComponent("out.\(input.outputFormat)")
                    return [try checked(ProcessTimer.run(vips, [input.vipsSave[0], input.file.path, out.path]
                                                         + input.vipsSave.dropFirst()), "vips \(input.vipsSave[0])")]
                })
            }
            if let thumbnail {
                thumb.append(Contender(name: "vipsthumbnail") {
                    [try checked(ProcessTimer.run(thumbnail, [input.file.path, "-s", "256x256",
                                                              "-o", try fresh("vips").path + "/%s.jpg[Q=75]"]),
                                 "vipsthumbnail")]
                })
            }
            let what = "\(input.name) \(size.width)x\(size.height), \(format(Double(ImagesInputs.fileSize(input.file)) / 1e6, digits: 1)) MB"
            rows.append(try bench.measure("images-\(input.name)-decode", decode, n: size.width * size.height,
                                          rssTarget: nil,
                                          note: "\(what): lanes-image --format png --compression 0 vs vips pngsave"
                                              + " --compression 0"))
            rows.append(try bench.measure("images-\(input.name)-thumb", thumb, n: size.width * size.height,
                                          rssTarget: 1.5, wallTarget: ("vipsthumbnail", 1.0),
                                          note: "\(what): lanes-image --resize 256x256 --format jpg --quality 75 vs"
                                              + " vipsthumbnail -s 256x256 -o %s.jpg[Q=75]"))
            rows.append(try bench.measure("images-\(input.name)-convert", convert, n: size.width * size.height,
                                          rssTarget: nil,
                                          note: "\(what): lanes-image --format \(input.outputFormat) vs vips "
                                              + input.vipsSave.joined(separator: " ")))
        }
        rows[0].notes.append(made.note)
        return rows
    }

    /// The inputs, made once into the cache beside the 12 MP PNG (reused while they exist).
    static func prepare(from png: URL) throws -> (inputs: [Input], note: String) {
        let cache = png.deletingLastPathComponent()
        func made(_ name: String, by tool: String, _ arguments: (URL) -> [String]) throws -> URL {
            let file = cache.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: file.path) { return file }
            guard let executable = ProcessTimer.find(tool) else {
                throw BenchError.failed("\(tool) is needed to make \(name) (scripts/bench-images installs it)")
            }
            let partial = cache.appendingPathComponent("partial-" + name)
            let run = try ProcessTimer.run(executable, arguments(partial))
            guard run.status == 0 else { throw BenchError.failed("\(tool) failed making \(name): \(run.errorOutput)") }
            try FileManager.default.moveItem(at: partial, to: file)
            return file
        }
        let webp = try made("photo-v1.webp", by: "cwebp") { ["-quiet", "-q", "80", png.path, "-o", $0.path] }
        let avif = try made("photo-v1.avif", by: "avifenc") { ["-s", "6", "-y", "420", "-j", "all", png.path, $0.path] }
        let gif = try made("photo-v1.gif", by: "convert") { [png.path, $0.path] }
        let animated = try made("anim-v1.gif", by: "convert") {
            [png.path, "-resize", "2560x1920!", "-crop", "640x480", "+repage", "-delay", "8", "-loop", "0", $0.path]
        }
        let heic = try made("photo-v1.heic", by: "heif-enc") { ["-q", "50", png.path, "-o", $0.path] }
        // As a phone writes it: a thumbnail item beside the image (iPhones store 320 pixels or more); heif-enc 1.15
        // adds none unless asked. vipsthumbnail and lanes-image both decode it for a 256-pixel thumbnail.
        let heicThumbnail = try made("photo-t320-v1.heic", by: "heif-enc") {
            ["-q", "50", "-t", "320", png.path, "-o", $0.path]
        }
        let jxl = try made("photo-v1.jxl", by: "cjxl") { [png.path, $0.path, "-d", "1"] }
        let webpSave = ["webpsave", "--Q", "75", "--effort", "4"]
        return ([
            Input(name: "webp", file: webp, outputFormat: "webp", vipsSave: webpSave),
            Input(name: "avif", file: avif, outputFormat: "avif",
                  vipsSave: ["heifsave", "--compression", "av1", "--Q", "50", "--effort", "4"]),
            Input(name: "gif", file: gif, outputFormat: "webp", vipsSave: webpSave),
            Input(name: "gif-anim", file: animated, outputFormat: "webp", vipsSave: webpSave),
            Input(name: "heic", file: heic, outputFormat: "webp", vipsSave: webpSave),
            Input(name: "heic-t320", file: heicThumbnail, outputFormat: "webp", vipsSave: webpSave),
            Input(name: "jxl", file: jxl, outputFormat: "webp", vipsSave: webpSave),
        ], "format inputs from the 12 MP PNG: cwebp -q 80, avifenc -s 6 -y 420, ImageMagick convert (one-frame GIF;"
            + " 16 frames of 640x480, 80 ms), heif-enc -q 50 (and -t 320: a thumbnail item), cjxl -d 1; cached in \(cache.path)")
    }

    /// Width and height from the file's header.
    static func size(of file: URL) -> (width: Int, height: Int) {
        guard let data = try? Data(contentsOf: file), let info = try? ImageDecoder().probe(data) else { return (0, 0) }
        return (info.width, info.height)
    }
}
