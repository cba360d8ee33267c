import Foundation
import LanesImages

/// The folder `--script hostile` opens: one file of each kind a user's folder can hold that the app must survive, each
/// with what its cell is expected to say, and a subfolder of 20,000 small photos (listed after them).
///
/// ```swift
/// let folder = try HostileFolder.build()
/// defer { folder.remove() }
/// ```
struct HostileFolder {
    /// One hostile file: its case name (the report's `hostile_<case>_*` keys) and file name (raw bytes).
    struct Case {
        let name: String
        let file: [UInt8]
    }

    let path: String
    /// The hostile files in the order the folder lists them (sorted by name, before `zz-bulk`).
    static let cases = [
        Case(name: "corrupt", file: Array("a-corrupt.png".utf8)),
        Case(name: "truncated", file: Array("b-truncated.jpg".utf8)),
        Case(name: "empty", file: Array("c-empty.png".utf8)),
        Case(name: "huge", file: Array("d-huge-100mp.jpg".utf8)),
        Case(name: "unreadable", file: Array("e-unreadable.png".utf8)),
        Case(name: "control", file: Array("f-ctl-\u{1B}[31mred\u{07}\tname.png".utf8)),
        Case(name: "invalid_utf8", file: Array("g-bad-".utf8) + [0xFF, 0xFE, 0xC3] + Array(".png".utf8)),
        Case(name: "loop", file: Array("h-loop.png".utf8)),
        Case(name: "fifo", file: Array("i-fifo.png".utf8)),
        Case(name: "html", file: Array("j-page.png".utf8)),
        Case(name: "lying_header", file: Array("k-lying-header.png".utf8)),
    ]
    /// Photos in the `zz-bulk` subfolder.
    static let bulkCount = 20_000
    /// The side of the 100-megapixel JPEG.
    static let hugeSide = 10_000

    /// Builds the folder under the temporary directory.
    static func build(bulk: Int = bulkCount) throws -> HostileFolder {
        let path = FileManager.default.temporaryDirectory.appending(path: "lanes-desk-hostile-\(getpid())").path
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let small = try ImageEncoder().encode(
            Bitmap(width: 32, height: 24, filledWith: RGBA(red: 60, green: 120, blue: 200)), as: .png())
        let jpeg = try ImageEncoder().encode(
            Bitmap(width: 64, height: 48, filledWith: RGBA(red: 200, green: 160, blue: 40)), as: .jpeg(quality: 80))
        for hostile in cases {
            let full = Array(path.utf8) + [UInt8(ascii: "/")] + hostile.file
            let contents: Data?
            switch hostile.name {
            case "corrupt": contents = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0x5A, count: 400))
            case "truncated": contents = jpeg.prefix(jpeg.count / 2)
            case "empty": contents = Data()
            case "html": contents = Data("<!doctype html><html><body>Not found</body></html>\n".utf8)
            case "lying_header": contents = lyingPNG(width: 60_000, height: 60_000)
            case "huge", "loop", "fifo": contents = nil
            default: contents = small
            }
            try withCString(full) { name in
                switch hostile.name {
                case "huge": try writeHuge(to: name)
                case "loop": symlink(name, name)
                case "fifo": mkfifo(name, 0o644)
                default:
                    let descriptor = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                    guard descriptor >= 0 else { throw OptionError("cannot create a hostile file: \(String(cString: strerror(errno)))") }
                    defer { close(descriptor) }
                    _ = contents?.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                }
                if hostile.name == "unreadable" { chmod(name, 0) }
            }
        }
        try FileManager.default.createDirectory(atPath: path + "/zz-bulk", withIntermediateDirectories: false)
        for index in 0..<bulk {
            let descriptor = open(path + "/zz-bulk/" + String(format: "%05d.png", index), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard descriptor >= 0 else { throw OptionError("cannot create the bulk photos: \(String(cString: strerror(errno)))") }
            _ = small.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
        }
        return HostileFolder(path: path)
    }

    /// Removes the folder (names that are not UTF-8 included: `rm -rf` works on bytes).
    func remove() {
        let rm = Process()
        rm.executableURL = URL(fileURLWithPath: "/bin/rm")
        rm.arguments = ["-rf", path]
        try? rm.run()
        rm.waitUntilExit()
    }

    /// A 100-megapixel JPEG, streamed a band at a time (its encoder never holds the whole image).
    private static func writeHuge(to path: UnsafePointer<CChar>) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw OptionError("cannot create the 100-megapixel file") }
        defer { close(descriptor) }
        let stream = try ImageEncoder.JPEGStream(
            width: hugeSide, height: hugeSide, layout: .grey8, quality: 50, optimizedCoding: false,
            fileDescriptor: descriptor)
        let band = 100
        var rows = [UInt8](repeating: 0, count: hugeSide * band)
        for start in stride(from: 0, to: hugeSide, by: band) {
            for y in 0..<band { rows.withUnsafeMutableBufferPointer { $0[y * hugeSide..<(y + 1) * hugeSide].update(repeating: UInt8((start + y) * 255 / hugeSide)) } }
            try rows.withUnsafeBufferPointer { try stream.write(rows: $0.baseAddress!, count: band) }
        }
        try stream.finish()
    }

    /// A PNG whose header claims `width` x `height` (checksums right) followed by almost no data: a file that lies.
    private static func lyingPNG(width: Int, height: Int) -> Data {
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return bigEndian(body.count) + typed + bigEndian(Int(crc32(typed)))
        }
        let header = bigEndian(width) + bigEndian(height) + [8, 6, 0, 0, 0]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header)
            + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00]) + chunk("IEND", []))
    }

    private static func withCString<R>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        try (path + [0]).withUnsafeBufferPointer { bytes in
            try bytes.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    private static func bigEndian(_ value: Int) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
