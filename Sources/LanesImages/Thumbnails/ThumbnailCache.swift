import Foundation
import Lanes
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The freedesktop thumbnail cache (the Thumbnail Managing Standard) that GLib applications share — gThumb, geeqie,
/// Files, eog: PNGs in `$XDG_CACHE_HOME/thumbnails/{normal,large,x-large,xx-large}/` (`~/.cache/thumbnails` by
/// default), each named by the MD5 of the original's `file://` URI and carrying `Thumb::URI` and `Thumb::MTime` text
/// chunks.
///
/// - **Read**: a thumbnail is used only when its `Thumb::URI` names the file, its `Thumb::MTime` (and `Thumb::Size`,
///   when present) match the file as it is now, and it is a PNG no larger than its size's box. Anything else — stale,
///   another file's, cut short, not a PNG — is ignored, never trusted (and replaced by the next ``store(_:for:size:imageSize:)``).
/// - **Write**: a temporary file in the same folder, mode 0600, renamed over the entry, so a reader never sees half a
///   thumbnail and no other user can read it; folders are made with mode 0700.
/// - **Failures**: an original that cannot be thumbnailed is recorded under `fail/APPLICATION/`
///   (``recordFailure(for:)``), so it is not tried again until it changes.
/// - **Bounded**: when the size folders hold more than `sizeLimit` bytes, the least recently written thumbnails go
///   until a quarter of the limit is free.
///
/// ```swift
/// let thumbnailCache = ThumbnailCache(applicationName: "lanes-desk")
/// let original = try ThumbnailCache.Original(file: fileURL)
/// if let thumbnail = thumbnailCache.thumbnail(for: original, size: .large) {
///     show(thumbnail)                      // made earlier by this app, gThumb, Files...
/// } else {
///     let made = try ImageDecoder().decode(Data(contentsOf: fileURL), targetSize: ThumbnailSize.large.targetSize)
///     try thumbnailCache.store(made, for: original, size: .large)
///     show(made)
/// }
/// ```
public final class ThumbnailCache: Sendable {
    /// The cache's folder (holding `normal/`, `large/`, ..., `fail/`).
    public let directory: URL
    /// The folder under `fail/` where this application records failures.
    public let applicationName: String
    /// The most the size folders may hold, in bytes, before the oldest thumbnails go.
    public let sizeLimit: Int
    /// Bytes in the size folders as last counted plus what this cache wrote since (nil: not counted yet), and whether
    /// a trim is under way.
    private let usage = LockedValue<(bytes: Int?, trimming: Bool)>((nil, false))

    /// A cache in `directory` (the standard place by default) that records failures under `fail/applicationName/`
    /// (characters other than letters, digits, `-`, `_` and `.` become `_`). Nothing is created until something is
    /// stored.
    ///
    /// ```swift
    /// let shared = ThumbnailCache(applicationName: "photos", sizeLimit: 256 << 20)
    /// ```
    public init(directory: URL? = nil, applicationName: String, sizeLimit: Int = 512 << 20) {
        self.directory = directory ?? Self.standardDirectory()
        let safe = applicationName.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar))
                ? Character(scalar) : "_"
        }
        let name = String(safe)
        self.applicationName = name.isEmpty || name.allSatisfy({ $0 == "." }) ? "_" : name
        self.sizeLimit = max(0, sizeLimit)
    }

    /// `$XDG_CACHE_HOME/thumbnails` when that variable holds an absolute path, else `$HOME/.cache/thumbnails`.
    ///
    /// ```swift
    /// ThumbnailCache.standardDirectory(environment: ["HOME": "/home/jens"]).path   // "/home/jens/.cache/thumbnails"
    /// ```
    public static func standardDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return URL(fileURLWithPath: cache).appendingPathComponent("thumbnails")
        }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/thumbnails")
    }

    /// Where `original`'s thumbnail of `size` lives (whether or not it exists).
    public func path(for original: Original, size: ThumbnailSize) -> String {
        directory.path + "/" + size.folderName + "/" + original.thumbnailName
    }

    /// Where this application records that `original` could not be thumbnailed.
    public func failurePath(for original: Original) -> String {
        directory.path + "/fail/" + applicationName + "/" + original.thumbnailName
    }

    // MARK: Reading

    /// `original`'s thumbnail of `size`, decoded, when the cache holds a current one (see the type's rules); nil
    /// otherwise. Never throws: a bad entry is simply not a thumbnail.
    public func thumbnail(for original: Original, size: ThumbnailSize) -> Bitmap? {
        guard let png = currentPNG(for: original, size: size) else { return nil }
        return try? ImageDecoder().decode(png, maxPixels: size.pixels * size.pixels)
    }

    /// The bytes of `original`'s current thumbnail of `size` (checked as ``thumbnail(for:size:)`` checks it, pixels
    /// not yet decoded), or nil.
    func currentPNG(for original: Original, size: ThumbnailSize) -> Data? {
        guard !isInside(original.path) else { return nil }   // a thumbnail of a thumbnail: never
        let maxBytes = size.pixels * size.pixels * 8 + (1 << 20)
        guard case .success(let data) = FileReader.read(
            path: path(for: original, size: size), url: original.uri, maxBytes: maxBytes, isCancelled: { false })
        else { return nil }
        return Self.describes(data, original, maxSide: size.pixels) ? data : nil
    }

    /// Whether this application recorded a failure for `original` as it is now.
    public func hasFailure(for original: Original) -> Bool {
        guard case .success(let data) = FileReader.read(
            path: failurePath(for: original), url: original.uri, maxBytes: 1 << 20, isCancelled: { false })
        else { return false }
        return Self.describes(data, original, maxSide: 1 << 16)
    }

    /// Whether `original` probably has a current thumbnail of `size`, from the entry's name and `stat` alone: a
    /// non-empty regular file written no earlier than the original's modification time. Reads nothing, so a walk
    /// over a whole folder can skip what is done at the cost of a `stat`; what is shown still goes through
    /// ``thumbnail(for:size:)``, which checks the entry's text.
    ///
    /// ```swift
    /// let done = ThumbnailSize.candidates(for: TargetSize(maxWidth: 160, maxHeight: 120))
    ///     .contains { thumbnailCache.hasEntry(for: original, size: $0) }
    /// ```
    public func hasEntry(for original: Original, size: ThumbnailSize) -> Bool {
        guard !isInside(original.path) else { return false }
        var info = stat()
        guard stat(path(for: original, size: size), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0
        else { return false }
        #if canImport(Darwin)
        return Int64(info.st_mtimespec.tv_sec) >= original.modified
        #else
        return Int64(info.st_mtim.tv_sec) >= original.modified
        #endif
    }

    /// Whether `data` is a PNG of at most `maxSide` pixels a side whose text says it is `original`'s, current.
    private static func describes(_ data: Data, _ original: Original, maxSide: Int) -> Bool {
        guard let text = try? PNGText.read(data), text["Thumb::URI"] == original.uri,
              let modified = text["Thumb::MTime"].flatMap({ Int64($0) }), modified == original.modified
        else { return false }
        if let size = text["Thumb::Size"], Int64(size) != original.byteCount { return false }
        guard let info = try? ImageDecoder().probe(data), info.format == .png,
              info.width <= maxSide, info.height <= maxSide
        else { return false }
        return true
    }

    // MARK: Writing

    /// Stores `bitmap` (scaled down to fit `size`'s box when larger) as `original`'s thumbnail of `size`, replacing
    /// any entry, with `Thumb::URI`, `Thumb::MTime`, `Thumb::Size` and, when given, the original's pixel size
    /// (`Thumb::Image::Width`/`Height`).
    ///
    /// ```swift
    /// try thumbnailCache.store(bitmap, for: original, size: .normal, imageSize: (4000, 3000))
    /// ```
    public func store(
        _ bitmap: Bitmap, for original: Original, size: ThumbnailSize, imageSize: (width: Int, height: Int)? = nil
    ) throws {
        guard !isInside(original.path) else { return }
        var image = bitmap.layout == .rgba8 ? bitmap : bitmap.converted(to: .rgba8)
        if image.width > size.pixels || image.height > size.pixels {
            image = try Resize(fitting: size.targetSize).process(image)
        }
        var text = Self.text(for: original)
        if let imageSize {
            text += [("Thumb::Image::Width", String(imageSize.width)), ("Thumb::Image::Height", String(imageSize.height))]
        }
        let png = try Self.encode(image, text: text)
        let folder = directory.path + "/" + size.folderName
        try write(png, to: folder, name: original.thumbnailName)
        noteWritten(png.count)
    }

    /// Records that `original`, as it is now, cannot be thumbnailed (a 1 × 1 PNG in `fail/APPLICATION/`).
    ///
    /// ```swift
    /// try thumbnailCache.recordFailure(for: original)
    /// thumbnailCache.hasFailure(for: original)   // true until the file changes
    /// ```
    public func recordFailure(for original: Original) throws {
        guard !isInside(original.path) else { return }
        let png = try Self.encode(Bitmap(width: 1, height: 1, filledWith: .clear), text: Self.text(for: original))
        try write(png, to: directory.path + "/fail/" + applicationName, name: original.thumbnailName)
    }

    private static func text(for original: Original) -> [(key: String, value: String)] {
        [("Thumb::URI", original.uri), ("Thumb::MTime", String(original.modified)),
         ("Thumb::Size", String(original.byteCount)), ("Software", "Lanes")]
    }

    private static func encode(_ image: Bitmap, text: [(key: String, value: String)]) throws -> Data {
        let stream = try ImageEncoder.PNGStream(
            width: image.width, height: image.height, hasAlpha: !image.isOpaque, layout: image.layout,
            compressionLevel: 6, text: text)
        try stream.write(rows: 0..<image.height, of: image)
        return try stream.finish()
    }

    /// Writes `data` as `folder/name` atomically: a temporary file (mode 0600) in `folder`, renamed over it. The
    /// folder and the cache's are made with mode 0700 when missing.
    private func write(_ data: Data, to folder: String, name: String) throws {
        try makeFolders(folder)
        let temporary = folder + "/." + name + "." + String(UInt64.random(in: 0...UInt64.max), radix: 16) + ".tmp"
        do {
            try DiskCacheFiles.writeNewFile(
                at: temporary, header: [], payload: data, modified: DiskCacheFiles.now(), sync: false, mode: 0o600)
            try DiskCacheFiles.rename(temporary, to: folder + "/" + name)
        } catch let error as DiskCacheError {
            DiskCacheFiles.remove(temporary)
            throw ThumbnailCacheError.fileSystem(operation: "write", path: folder + "/" + name, reason: "\(error)")
        }
    }

    /// Makes the cache's folder's parents (as the system would) and then the cache's own folders, mode 0700, down
    /// to `folder`.
    private func makeFolders(_ folder: String) throws {
        let root = directory.path
        let parent = directory.deletingLastPathComponent().path
        if access(parent, F_OK) != 0 {
            try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        }
        var path = root
        let below = folder.hasPrefix(root + "/") ? folder.dropFirst(root.count + 1).split(separator: "/") : []
        for component in [""] + below.map(String.init) {
            if !component.isEmpty { path += "/" + component }
            if mkdir(path, 0o700) != 0 && errno != EEXIST {
                throw ThumbnailCacheError.fileSystem(
                    operation: "create folder", path: path, reason: String(cString: strerror(errno)))
            }
        }
    }

    /// Whether `path` lies in the cache's own folder (thumbnails of thumbnails are never made).
    private func isInside(_ path: String) -> Bool {
        path.hasPrefix(directory.path + "/")
    }

    // MARK: Bounding

    /// The bytes the size folders hold now (counted from the files).
    public func totalBytes() -> Int {
        entries().reduce(0) { $0 + $1.size }
    }

    /// Counts `bytes` just written and trims when the folders hold more than ``sizeLimit``.
    private func noteWritten(_ bytes: Int) {
        let (count, trim) = usage.withLock { usage -> (Bool, Bool) in
            guard let total = usage.bytes else { return (true, false) }
            usage.bytes = total + bytes
            let trim = total + bytes > sizeLimit && !usage.trimming
            if trim { usage.trimming = true }
            return (false, trim)
        }
        if count {
            let total = totalBytes()
            let trim = usage.withLock { usage -> Bool in
                usage.bytes = total
                let trim = total > sizeLimit && !usage.trimming
                if trim { usage.trimming = true }
                return trim
            }
            if trim { self.trim() }
        } else if trim {
            self.trim()
        }
    }

    /// Removes the least recently written thumbnails until the size folders hold at most three quarters of
    /// ``sizeLimit``, and temporary files over an hour old (a writer that died).
    private func trim() {
        let now = DiskCacheFiles.now()
        var files = entries()
        for file in files where file.isTemporary && now > file.modified + 3_600_000_000_000 {
            DiskCacheFiles.remove(file.path)
        }
        files.removeAll { $0.isTemporary }
        files.sort { $0.modified < $1.modified }
        var total = files.reduce(0) { $0 + $1.size }
        let target = sizeLimit / 4 * 3
        for file in files where total > target {
            DiskCacheFiles.remove(file.path)
            total -= file.size
        }
        usage.withLock { $0 = (total, false) }
    }

    /// The regular files of the four size folders.
    private func entries() -> [(path: String, size: Int, modified: UInt64, isTemporary: Bool)] {
        ThumbnailSize.allCases.flatMap { size -> [(path: String, size: Int, modified: UInt64, isTemporary: Bool)] in
            let folder = directory.path + "/" + size.folderName
            let listing = (try? DiskCacheFiles.list(folder)) ?? []
            return listing.filter(\.isRegular).map {
                (folder + "/" + $0.name, $0.size, $0.modified, !$0.name.hasSuffix(".png"))
            }
        }
    }
}
