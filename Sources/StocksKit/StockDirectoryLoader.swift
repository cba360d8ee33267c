import Foundation

extension StockCSV {
    /// Loads one CSV file. A file that cannot be read yields a result holding one error.
    ///
    /// ```swift
    /// let result = try StockCSV.loadFile(at: URL(fileURLWithPath: "data/AAPL.csv"))
    /// for error in result.errors { print(error) }   // e.g. "data/AAPL.csv:14: invalid price \"n/a\""
    /// ```
    ///
    /// Errors name the file by its full path (`url.path`), and a file that cannot be read says why.
    ///
    /// - Throws: `CancellationError` when `isCancelled` returns true.
    public static func loadFile(
        at url: URL, isCancelled: () -> Bool = { false }
    ) throws(CancellationError) -> StockLoadResult {
        let name = url.path
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let reason = "cannot read the file: " + Self.reason(for: url, error: error)
            return StockLoadResult(errors: [StockDataError(file: name, line: nil, reason: reason)])
        }
        return try parse(data: data, fileName: name, isCancelled: isCancelled)
    }

    /// Loads every `.csv` file directly inside `directory` (not subfolders, not hidden
    /// files), in file-name order. A bad file does not stop the others: its problems are in
    /// the result's errors and the other files' series still load.
    ///
    /// ```swift
    /// let result = try StockCSV.loadDirectory(at: URL(fileURLWithPath: "data"))
    /// let universe = StockUniverse(result.series)
    /// ```
    ///
    /// - Throws: `CancellationError` when `isCancelled` returns true.
    public static func loadDirectory(
        at directory: URL, isCancelled: () -> Bool = { false }
    ) throws(CancellationError) -> StockLoadResult {
        let files: [URL]
        do {
            files = try FileManager.default.contentsOfDirectory(
                at: directory, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        } catch {
            let reason = "cannot list the folder: " + Self.reason(for: directory, error: error, folder: true)
            return StockLoadResult(errors: [StockDataError(file: directory.path, line: nil, reason: reason)])
        }
        let csvFiles = files
            .filter { $0.pathExtension.lowercased() == "csv" }
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) ?? true }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        var result = StockLoadResult()
        for file in csvFiles {
            if isCancelled() { throw CancellationError() }
            result.append(try loadFile(at: file, isCancelled: isCancelled))
        }
        return result
    }

    /// Why `url` could not be read, in a few words.
    static func reason(for url: URL, error: any Error, folder: Bool = false) -> String {
        var isDirectory: ObjCBool = false
        let manager = FileManager.default
        guard manager.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            return folder ? "no such folder" : "no such file"
        }
        if isDirectory.boolValue != folder { return folder ? "not a folder" : "it is a folder" }
        if !manager.isReadableFile(atPath: url.path) { return "permission denied" }
        if let posix = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError,
           posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        return "read error"
    }
}
