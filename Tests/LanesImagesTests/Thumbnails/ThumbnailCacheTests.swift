import Foundation
@testable import LanesImages
import LanesTesting
import Testing

@Suite(.timeLimit(.minutes(5)), .heavy) struct ThumbnailCacheTests {
    /// A cache in a fresh folder and an original photo file in another, both removed afterwards.
    private func withCache(_ body: (ThumbnailCache, URL) throws -> Void) throws {
        try DiskTestSupport.withDirectory { root in
            let photos = root.appendingPathComponent("My Photos")
            try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
            let photo = photos.appendingPathComponent("a#b.png")
            try ImageEncoder().encode(noiseBitmap(width: 600, height: 400), as: .png()).write(to: photo)
            let cache = ThumbnailCache(
                directory: root.appendingPathComponent("cache/thumbnails"), applicationName: "lanes-tests")
            try body(cache, photo)
        }
    }

    private func setModified(_ url: URL, _ seconds: TimeInterval) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: seconds)],
                                              ofItemAtPath: url.path)
    }

    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func roundTripWritesTheStandardEntry() throws {
        try withCache { cache, photo in
            let original = try ThumbnailCache.Original(file: photo)
            #expect(cache.thumbnail(for: original, size: .large) == nil)
            let made = try ImageDecoder().decode(Data(contentsOf: photo), targetSize: ThumbnailSize.large.targetSize)
            try cache.store(made, for: original, size: .large, imageSize: (600, 400))

            let path = cache.path(for: original, size: .large)
            #expect(path == cache.directory.path + "/large/" + MD5.hex(of: Array(original.uri.utf8)) + ".png")
            let read = try #require(cache.thumbnail(for: original, size: .large))
            #expect(read.width == 256 && read.height == 171)
            #expect(read.pixels == made.pixels)   // PNG is lossless
            #expect(cache.thumbnail(for: original, size: .normal) == nil)   // another size: another entry

            let text = try PNGText.read(Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(text["Thumb::URI"] == original.uri)
            #expect(text["Thumb::URI"]?.hasSuffix("/My%20Photos/a%23b.png") == true)
            #expect(text["Thumb::MTime"] == String(original.modified))
            #expect(text["Thumb::Size"] == String(original.byteCount))
            #expect(text["Thumb::Image::Width"] == "600" && text["Thumb::Image::Height"] == "400")
        }
    }

    @Test func aLargerBitmapIsScaledIntoTheBox() throws {
        try withCache { cache, photo in
            let original = try ThumbnailCache.Original(file: photo)
            try cache.store(noiseBitmap(width: 600, height: 400), for: original, size: .normal)
            let read = try #require(cache.thumbnail(for: original, size: .normal))
            #expect(read.width == 128 && read.height == 85)
        }
    }

    @Test func aStaleEntryIsIgnored() throws {
        try withCache { cache, photo in
            try setModified(photo, 1_700_000_000)
            let original = try ThumbnailCache.Original(file: photo)
            #expect(original.modified == 1_700_000_000)
            try cache.store(noiseBitmap(width: 100, height: 80), for: original, size: .normal)
            #expect(cache.thumbnail(for: original, size: .normal) != nil)
            try setModified(photo, 1_700_000_001)
            let changed = try ThumbnailCache.Original(file: photo)
            #expect(cache.thumbnail(for: changed, size: .normal) == nil)
            // The same time but another size on disk (the file was rewritten within the second): stale too.
            let resized = ThumbnailCache.Original(path: original.path, modified: original.modified, byteCount: 1)
            #expect(cache.thumbnail(for: resized, size: .normal) == nil)
        }
    }

    @Test func hasEntryTellsFromStatAlone() throws {
        try withCache { cache, photo in
            let original = try ThumbnailCache.Original(file: photo)
            #expect(!cache.hasEntry(for: original, size: .large))   // none yet
            try cache.store(noiseBitmap(width: 100, height: 80), for: original, size: .large)
            #expect(cache.hasEntry(for: original, size: .large))
            #expect(!cache.hasEntry(for: original, size: .normal))   // another size: another entry
            // An entry written before the photo last changed is not taken for done.
            try setModified(URL(fileURLWithPath: cache.path(for: original, size: .large)), 1_600_000_000)
            try setModified(photo, 1_700_000_000)
            #expect(!cache.hasEntry(for: try ThumbnailCache.Original(file: photo), size: .large))
            // An empty file is no entry.
            try Data().write(to: URL(fileURLWithPath: cache.path(for: original, size: .large)))
            #expect(!cache.hasEntry(for: original, size: .large))
        }
    }

    @Test func anEntryForAnotherURIIsIgnored() throws {
        try withCache { cache, photo in
            let original = try ThumbnailCache.Original(file: photo)
            try cache.store(noiseBitmap(width: 100, height: 80), for: original, size: .normal)
            // Another file whose name the entry is copied to (as a hash collision or a tampered cache would give).
            let other = ThumbnailCache.Original(path: photo.path + "x", modified: original.modified,
                                                byteCount: original.byteCount)
            try FileManager.default.copyItem(atPath: cache.path(for: original, size: .normal),
                                             toPath: cache.path(for: other, size: .normal))
            #expect(cache.thumbnail(for: other, size: .normal) == nil)
            #expect(cache.thumbnail(for: original, size: .normal) != nil)
        }
    }

    @Test func corruptAndOversizedEntriesAreIgnored() throws {
        try withCache { cache, photo in
            let original = try ThumbnailCache.Original(file: photo)
            try cache.store(noiseBitmap(width: 100, height: 80), for: original, size: .normal)
            let path = cache.path(for: original, size: .normal)
            let good = try Data(contentsOf: URL(fileURLWithPath: path))
            // Cut inside the image data: the text is right, the pixels are not there.
            try good.prefix(good.count - 200).write(to: URL(fileURLWithPath: path))
            #expect(cache.thumbnail(for: original, size: .normal) == nil)
            // Cut inside the header, before the text: not a thumbnail either.
            try good.prefix(40).write(to: URL(fileURLWithPath: path))
            #expect(cache.thumbnail(for: original, size: .normal) == nil)
            // Not a PNG at all.
            try Data("GIF89a and then some".utf8).write(to: URL(fileURLWithPath: path))
            #expect(cache.thumbnail(for: original, size: .normal) == nil)
            // Right text, but bigger than the size's box.
            try cache.store(noiseBitmap(width: 300, height: 200), for: original, size: .large)
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.copyItem(atPath: cache.path(for: original, size: .large), toPath: path)
            #expect(cache.thumbnail(for: original, size: .normal) == nil)
            // And a good entry written again is used.
            try cache.store(noiseBitmap(width: 100, height: 80), for: original, size: .normal)
            #expect(cache.thumbnail(for: original, size: .normal) != nil)
        }
    }

    @Test func failuresAreRecordedPerApplicationUntilTheFileChanges() throws {
        try withCache { cache, photo in
            try setModified(photo, 1_600_000_000)
            let original = try ThumbnailCache.Original(file: photo)
            #expect(!cache.hasFailure(for: original))
            try cache.recordFailure(for: original)
            #expect(cache.hasFailure(for: original))
            #expect(cache.failurePath(for: original)
                == cache.directory.path + "/fail/lanes-tests/" + original.thumbnailName)
            #expect(FileManager.default.fileExists(atPath: cache.failurePath(for: original)))
            let another = ThumbnailCache(directory: cache.directory, applicationName: "another/app")
            #expect(another.applicationName == "another_app")
            #expect(!another.hasFailure(for: original))
            try setModified(photo, 1_600_000_100)
            #expect(!cache.hasFailure(for: try ThumbnailCache.Original(file: photo)))
        }
    }

    @Test func writesAreAtomicPrivateAndLeaveNoTemporaryFiles() throws {
        try withCache { cache, photo in
            let original = try ThumbnailCache.Original(file: photo)
            for round in 0..<5 {
                try cache.store(noiseBitmap(width: 90 + round, height: 60), for: original, size: .normal)
            }
            try cache.recordFailure(for: original)
            let folder = cache.directory.appendingPathComponent("normal")
            #expect(DiskTestSupport.files(in: folder) == [original.thumbnailName])
            #expect(DiskTestSupport.files(in: cache.directory.appendingPathComponent("fail/lanes-tests"))
                == [original.thumbnailName])
            #expect(try mode(cache.path(for: original, size: .normal)) == 0o600)
            #expect(try mode(cache.failurePath(for: original)) == 0o600)
            for folder in ["", "/normal", "/fail", "/fail/lanes-tests"] {
                #expect(try mode(cache.directory.path + folder) == 0o700, "\(folder)")
            }
            #expect(cache.thumbnail(for: original, size: .normal)?.width == 94)
        }
    }

    @Test func namesMatchGLib() {
        // URIs and MD5s computed with GLib 2.74's g_filename_to_uri and g_checksum (Debian 12); the first is the
        // example of the Thumbnail Managing Standard.
        let cases = [
            ("/home/jens/photos/me.png", "file:///home/jens/photos/me.png", "c6ee772d9e49320e97ec29a7eb5b1697"),
            ("/tmp/My Photos/a#b[1].jpg", "file:///tmp/My%20Photos/a%23b%5B1%5D.jpg", "70f2db36c51541ae84eadc7b4dbdb2f6"),
            ("/tmp/été/x y.png", "file:///tmp/%C3%A9t%C3%A9/x%20y.png", "77e081194ee3d1a8b6be96843c313933"),
        ]
        for (path, uri, md5) in cases {
            let original = ThumbnailCache.Original(path: path, modified: 0, byteCount: 0)
            #expect(original.uri == uri)
            #expect(original.thumbnailName == md5 + ".png")
        }
        let ascii = "/" + String((32..<127).map { Character(Unicode.Scalar(UInt8($0))) }.filter { $0 != "/" }) + "é"
        #expect(ThumbnailCache.Original.uri(forPath: ascii) == "file:///%20!%22%23$%25&'()*+,-.0123456789:%3B%3C=%3E"
            + "%3F@ABCDEFGHIJKLMNOPQRSTUVWXYZ%5B%5C%5D%5E_%60abcdefghijklmnopqrstuvwxyz%7B%7C%7D~%C3%A9")
    }

    /// An entry as GdkPixbuf writes it for gThumb or Files (built here byte by byte, not by our encoder): used.
    @Test func anEntryWrittenByAnotherGeneratorIsUsed() throws {
        try withCache { cache, photo in
            let original = try ThumbnailCache.Original(file: photo)
            func text(_ key: String, _ value: String) -> [UInt8] {
                TinyPNG.chunk("tEXt", Array(key.utf8) + [0] + Array(value.utf8))
            }
            let plain = TinyPNG.make(width: 32, height: 24, colourType: 2, bitDepth: 8) { x, y in [x * 8, y * 10, 77] }
            let header = Array(plain.prefix(8 + 25))   // signature and IHDR
            let entry = header + text("Thumb::URI", original.uri) + text("Thumb::MTime", String(original.modified))
                + text("Software", "GNOME::ThumbnailFactory") + Array(plain.dropFirst(8 + 25))
            let folder = cache.directory.appendingPathComponent("normal")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(entry).write(to: folder.appendingPathComponent(original.thumbnailName))
            let read = try #require(cache.thumbnail(for: original, size: .normal))
            #expect(read.width == 32 && read.height == 24)
            #expect(read[3, 2] == RGBA(red: 24, green: 20, blue: 77))
        }
    }

    @Test func theSizeFoldersStayWithinTheLimit() throws {
        try DiskTestSupport.withDirectory { root in
            let cache = ThumbnailCache(directory: root.appendingPathComponent("thumbnails"), applicationName: "t",
                                       sizeLimit: 200_000)
            var originals: [ThumbnailCache.Original] = []
            for index in 0..<40 {
                let original = ThumbnailCache.Original(path: "/photos/\(index).jpg", modified: 1, byteCount: 1)
                try cache.store(noiseBitmap(width: 64, height: 64, seed: UInt32(index + 1)), for: original,
                                size: .normal)
                // Written in order, a second apart: the oldest go first.
                try setModified(URL(fileURLWithPath: cache.path(for: original, size: .normal)),
                                1_700_000_000 + Double(index))
                originals.append(original)
                #expect(cache.totalBytes() <= 200_000 + 20_000)
            }
            #expect(cache.totalBytes() <= 200_000)
            #expect(cache.thumbnail(for: originals[39], size: .normal) != nil)
            #expect(cache.thumbnail(for: originals[0], size: .normal) == nil)
        }
    }

    @Test func theStandardDirectory() {
        #expect(ThumbnailCache.standardDirectory(environment: ["HOME": "/home/j", "XDG_CACHE_HOME": "/c"]).path
            == "/c/thumbnails")
        #expect(ThumbnailCache.standardDirectory(environment: ["HOME": "/home/j", "XDG_CACHE_HOME": "rel"]).path
            == "/home/j/.cache/thumbnails")
        #expect(ThumbnailSize.fitting(TargetSize(maxWidth: 160, maxHeight: 120)) == .large)
        #expect(ThumbnailSize.fitting(TargetSize(maxWidth: 128, maxHeight: 100)) == .normal)
        #expect(ThumbnailSize.fitting(TargetSize(maxWidth: 1025)) == nil)
    }

    @Test func pngTextIsCheckedAndReadBack() throws {
        #expect(throws: ImageError.self) {
            _ = try ImageEncoder.PNGStream(width: 1, height: 1, hasAlpha: false, text: [("", "empty key")])
        }
        #expect(throws: ImageError.self) {
            _ = try ImageEncoder.PNGStream(width: 1, height: 1, hasAlpha: false, text: [("Key", "caf\u{e9}")])
        }
        let stream = try ImageEncoder.PNGStream(width: 2, height: 1, hasAlpha: false,
                                                text: [("Title", "two\tpixels"), ("Thumb::MTime", "12")])
        try stream.write(rows: 0..<1, of: Bitmap(width: 2, height: 1, filledWith: .white))
        let png = try stream.finish()
        #expect(try PNGText.read(png) == ["Title": "two\tpixels", "Thumb::MTime": "12"])
        #expect(try ImageDecoder().decode(png).width == 2)   // the decoder skips the text
        #expect(throws: ImageError.self) { _ = try PNGText.read(Data("not a png".utf8)) }
    }
}
