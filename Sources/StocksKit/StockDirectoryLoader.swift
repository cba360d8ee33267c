import Foundation

extension StockCSV {
    /// Loads one CSV file. A file that cannot be read yields a result holding one error.
    ///
    /// ```swift
    /// let result = try StockCSV.loadFile(at: URL(fileURLWithPath: "data/AAPL.csv"))
    /// for error in result.errors { print(error) }   // e.g. "AAPL.csv:14: invalid price \"null\""
    /// ```
    ///
    /// - Throws: `CancellationError` when `isCancelled` returns true.
    public static func loadFile(
        at url: URL, isCancelled: () -> Bool = { false }
    ) throws(CancellationError) -> StockLoadResult {
        let name = url.lastPathComponent
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            return StockLoadResult(errors: [StockDataError(file: name, line: nil, reason: "cannot read file")])
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
            let error = StockDataError(file: directory.lastPathComponent, line: nil, reason: "cannot list directory")
            return StockLoadResult(errors: [error])
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
}
