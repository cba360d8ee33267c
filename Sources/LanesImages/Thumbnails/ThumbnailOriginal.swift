import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension ThumbnailCache {
    /// A local file as the thumbnail cache knows it: its URI (what names its thumbnail), and the modification time
    /// and size a thumbnail must record to be current. Read (`stat`) before the file's bytes, so a thumbnail made
    /// from them never claims a newer version of the file.
    ///
    /// ```swift
    /// let original = try ThumbnailCache.Original(file: URL(fileURLWithPath: "/home/jens/photos/me.png"))
    /// original.uri        // "file:///home/jens/photos/me.png"
    /// original.modified   // seconds since 1970, as Thumb::MTime records it
    /// ```
    public struct Original: Sendable, Hashable {
        /// The absolute path.
        public let path: String
        /// The `file://` URI, escaped as GLib's `g_filename_to_uri` escapes it.
        public let uri: String
        /// The modification time in whole seconds since 1970 (`Thumb::MTime`).
        public let modified: Int64
        /// The size in bytes (`Thumb::Size`).
        public let byteCount: Int64

        /// The file at `file` (a `file://` URL) as it is now; throws ``ThumbnailCacheError/notAFile(_:)`` when it is
        /// missing or not a regular file.
        public init(file: URL) throws {
            guard file.isFileURL else { throw ThumbnailCacheError.notAFile(file.absoluteString) }
            let path = file.standardizedFileURL.path
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                throw ThumbnailCacheError.notAFile(path)
            }
            #if canImport(Darwin)
            let seconds = Int64(info.st_mtimespec.tv_sec)
            #else
            let seconds = Int64(info.st_mtim.tv_sec)
            #endif
            self.init(path: path, modified: seconds, byteCount: Int64(info.st_size))
        }

        /// A file described by hand (tests, or a caller that already has its `stat`).
        ///
        /// ```swift
        /// let original = ThumbnailCache.Original(path: "/tmp/a.png", modified: 1_700_000_000, byteCount: 1234)
        /// ```
        public init(path: String, modified: Int64, byteCount: Int64) {
            self.path = path
            self.uri = Self.uri(forPath: path)
            self.modified = modified
            self.byteCount = byteCount
        }

        /// `file://` and the path's bytes, each byte outside GLib's safe set for paths (letters, digits,
        /// `! $ & ' ( ) * + , - . / : = @ _ ~`) written `%XX` in upper case: what `g_filename_to_uri` gives, so the
        /// names match every GLib application's (gThumb, geeqie, Files, eog).
        ///
        /// ```swift
        /// ThumbnailCache.Original.uri(forPath: "/tmp/My Photos/a#b.jpg")   // "file:///tmp/My%20Photos/a%23b.jpg"
        /// ```
        public static func uri(forPath path: String) -> String {
            let safe = Set("!$&'()*+,-./:=@_~".utf8)
            let hex = Array("0123456789ABCDEF".utf8)
            var bytes = Array("file://".utf8)
            for byte in path.utf8 {
                let isAlphanumeric = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
                    || (0x61...0x7A).contains(byte)
                if isAlphanumeric || safe.contains(byte) {
                    bytes.append(byte)
                } else {
                    bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// The name of this file's thumbnail in each size folder: the MD5 of its URI, in hex, then `.png`.
        public var thumbnailName: String { MD5.hex(of: Array(uri.utf8)) + ".png" }
    }
}
