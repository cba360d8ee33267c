/// Why the thumbnail cache could not do what it was asked, in one line.
///
/// ```swift
/// do {
///     _ = try ThumbnailCache.Original(file: URL(fileURLWithPath: "/nowhere.png"))
/// } catch let error as ThumbnailCacheError {
///     print(error)   // "not a local file: /nowhere.png"
/// }
/// ```
public enum ThumbnailCacheError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The original is not a regular local file (missing, a folder, a URL of another scheme).
    case notAFile(String)
    /// A file-system call failed (`operation` on `path`, with the `errno` text).
    case fileSystem(operation: String, path: String, reason: String)

    public var description: String {
        switch self {
        case .notAFile(let path): "not a local file: \(path)"
        case .fileSystem(let operation, let path, let reason): "cannot \(operation) \(path): \(reason)"
        }
    }
}
