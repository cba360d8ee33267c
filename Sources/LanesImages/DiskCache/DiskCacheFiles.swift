import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The POSIX calls the disk cache makes, all outside its lock.
enum DiskCacheFiles {
    /// What reading an entry file found.
    enum ReadOutcome {
        case payload(Data)
        case corrupt(CorruptEntry)
        case keyMismatch
        case missing
        case failed(Int32)
    }

    /// A file found in the cache directory.
    struct Listing {
        var name: String
        var size: Int
        var modified: UInt64
        var isRegular: Bool
    }

    /// Reads and checks the entry at `path`: header, size, key, checksums.
    static func readEntry(at path: String, key: [UInt8]) -> ReadOutcome {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return errno == ENOENT ? .missing : .failed(errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failed(errno) }
        let fileSize = Int(info.st_size)
        var fixed = [UInt8](repeating: 0, count: DiskCacheEntryFormat.fixedSize)
        let fixedRead = fixed.withUnsafeMutableBytes { readFully(fd, $0, at: 0) }
        guard fixedRead >= 0 else { return .failed(errno) }
        guard fixedRead == fixed.count else { return .corrupt(CorruptEntry("truncated header")) }
        let header: DiskCacheEntryFormat.Header
        switch DiskCacheEntryFormat.parse(fixed, fileSize: fileSize) {
        case .success(let parsed): header = parsed
        case .failure(let corrupt): return .corrupt(corrupt)
        }
        var storedKey = [UInt8](repeating: 0, count: header.keyLength)
        let keyRead = storedKey.withUnsafeMutableBytes { readFully(fd, $0, at: DiskCacheEntryFormat.fixedSize) }
        guard keyRead == header.keyLength else { return keyRead < 0 ? .failed(errno) : .corrupt(CorruptEntry("truncated key")) }
        guard DiskCacheEntryFormat.headerIsIntact(fixed, key: storedKey, header: header) else {
            return .corrupt(CorruptEntry("header checksum mismatch"))
        }
        guard storedKey == key else { return .keyMismatch }
        var payload = Data(count: header.payloadLength)
        let payloadRead = payload.withUnsafeMutableBytes { readFully(fd, $0, at: header.payloadOffset) }
        guard payloadRead == header.payloadLength else {
            return payloadRead < 0 ? .failed(errno) : .corrupt(CorruptEntry("truncated payload"))
        }
        guard StripeHash.hash(payload) == header.payloadChecksum else {
            return .corrupt(CorruptEntry("payload checksum mismatch"))
        }
        return .payload(payload)
    }

    /// Creates `path` (which must not exist) with `mode`, writes `header` then `payload`, stamps its modification
    /// time, and optionally flushes it to the device.
    static func writeNewFile(
        at path: String, header: [UInt8], payload: Data, modified: UInt64, sync: Bool, mode: mode_t = 0o644
    ) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failure("create", path) }
        var closed = false
        defer { if !closed { close(fd) } }
        let headerOK = header.withUnsafeBytes { writeFully(fd, $0) }
        let payloadOK = headerOK && payload.withUnsafeBytes { writeFully(fd, $0) }
        guard payloadOK else { throw failure("write", path) }
        var times = [timeSpec(modified), timeSpec(modified)]
        _ = futimens(fd, &times)
        if sync, fsync(fd) != 0 { throw failure("fsync", path) }
        closed = true
        guard close(fd) == 0 else { throw failure("close", path) }
    }

    /// `rename(2)`: atomically makes `from` visible as `to`.
    static func rename(_ from: String, to: String) throws {
        #if canImport(Darwin)
        let result = Darwin.rename(from, to)
        #elseif canImport(Glibc)
        let result = Glibc.rename(from, to)
        #else
        let result = Musl.rename(from, to)
        #endif
        guard result == 0 else { throw failure("rename", to) }
    }

    /// Removes `path`, ignoring a file that is already gone.
    static func remove(_ path: String) {
        _ = unlink(path)
    }

    /// Sets the modification (and access) time of `path`, ignoring a file that is gone.
    static func setModified(_ path: String, to stamp: UInt64) {
        var times = [timeSpec(stamp), timeSpec(stamp)]
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    /// Flushes the directory itself, so renames in it survive a power loss.
    static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    /// Creates `path` and its parents if needed.
    static func createDirectory(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw DiskCacheError.fileSystem(operation: "create directory", path: path, code: errno == 0 ? EIO : errno)
        }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw DiskCacheError.fileSystem(operation: "create directory", path: path, code: ENOTDIR)
        }
    }

    /// The files in `path` with their sizes and modification times (nanoseconds since 1970).
    static func list(_ path: String) throws -> [Listing] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw DiskCacheError.fileSystem(operation: "list", path: path, code: errno == 0 ? EIO : errno)
        }
        return names.compactMap { name in
            var info = stat()
            guard lstat(path + "/" + name, &info) == 0 else { return nil }
            #if canImport(Darwin)
            let time = info.st_mtimespec
            #else
            let time = info.st_mtim
            #endif
            let modified = UInt64(max(0, time.tv_sec)) * 1_000_000_000 + UInt64(max(0, time.tv_nsec))
            return Listing(name: name, size: Int(info.st_size), modified: modified,
                           isRegular: (info.st_mode & S_IFMT) == S_IFREG)
        }
    }

    /// The wall clock in nanoseconds since 1970, the unit of entry stamps.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UInt64(max(0, time.tv_sec)) * 1_000_000_000 + UInt64(max(0, time.tv_nsec))
    }

    private static func timeSpec(_ stamp: UInt64) -> timespec {
        #if canImport(Darwin)
        return Darwin.timespec(tv_sec: Int(stamp / 1_000_000_000), tv_nsec: Int(stamp % 1_000_000_000))
        #elseif canImport(Glibc)
        return Glibc.timespec(tv_sec: Int(stamp / 1_000_000_000), tv_nsec: Int(stamp % 1_000_000_000))
        #else
        return Musl.timespec(tv_sec: Int(stamp / 1_000_000_000), tv_nsec: Int(stamp % 1_000_000_000))
        #endif
    }

    /// Reads until `buffer` is full or the file ends; the count read, or -1 on error.
    private static func readFully(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var done = 0
        while done < buffer.count {
            let n = pread(fd, base + done, buffer.count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                return -1
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Writes all of `buffer`; false on error.
    private static func writeFully(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Bool {
        guard let base = buffer.baseAddress else { return true }
        var done = 0
        while done < buffer.count {
            let n = write(fd, base + done, buffer.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            done += n
        }
        return true
    }

    private static func failure(_ operation: String, _ path: String) -> DiskCacheError {
        .fileSystem(operation: operation, path: path, code: errno)
    }
}
