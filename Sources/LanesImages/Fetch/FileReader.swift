import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a whole regular file with POSIX calls, refusing directories, special files and files larger than a limit
/// before reading them, and checking for cancellation between chunks.
enum FileReader {
    /// Bytes read per `read(2)` call.
    static let chunkSize = 1 << 20

    /// The bytes of the file at `path`, or why they cannot be had. `url` names the file in errors about its content.
    static func read(path: String, url: String, maxBytes: Int, isCancelled: () -> Bool) -> Result<Data, FetchError> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return .failure(openError(path: path, errno: errno)) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failure(.file(path: path, reason: describe(errno))) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return .failure(.file(path: path, reason: "it is a directory"))
        default: return .failure(.file(path: path, reason: "it is not a regular file"))
        }
        let size = Int(info.st_size)
        guard size <= maxBytes else { return .failure(.tooLarge(url: url, limit: maxBytes)) }
        var data = Data()
        data.reserveCapacity(size)
        var chunk = [UInt8](repeating: 0, count: min(chunkSize, max(size, 4096)))
        while true {
            if isCancelled() { return .failure(.cancelled) }
            var tooLarge = false
            let count = chunk.withUnsafeMutableBytes { buffer -> Int in
                let count = systemRead(descriptor, buffer.baseAddress, buffer.count)
                guard count > 0 else { return count }
                // The file may have grown since fstat.
                guard data.count + count <= maxBytes else {
                    tooLarge = true
                    return count
                }
                data.append(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count)
                return count
            }
            if tooLarge { return .failure(.tooLarge(url: url, limit: maxBytes)) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.file(path: path, reason: describe(errno)))
            }
        }
        guard !data.isEmpty else { return .failure(.emptyBody(url: url)) }
        return .success(data)
    }

    private static func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
        #elseif canImport(Musl)
        Musl.read(descriptor, buffer, count)
        #else
        Darwin.read(descriptor, buffer, count)
        #endif
    }

    private static func openError(path: String, errno code: Int32) -> FetchError {
        switch code {
        case ENOENT, ENOTDIR: .fileNotFound(path: path)
        case EACCES, EPERM: .file(path: path, reason: "permission denied")
        default: .file(path: path, reason: describe(code))
        }
    }

    private static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
