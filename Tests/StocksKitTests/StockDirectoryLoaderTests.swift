import Foundation
import StocksKit
import Testing

@Suite("Loading directories", .timeLimit(.minutes(5)))
struct StockDirectoryLoaderTests {
    /// A fresh temporary directory holding `files`, removed by the caller.
    private func makeDirectory(_ files: [String: String]) throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("stockskit-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, contents) in files {
            try Data(contents.utf8).write(to: directory.appendingPathComponent(name))
        }
        return directory
    }

    @Test func aBadFileDoesNotStopTheOthers() throws {
        let directory = try makeDirectory([
            "a-long.csv": "symbol,date,price\nMSFT,Jan 1 2000,39.81\nMSFT,oops,1\n",
            "b-broken.csv": "what,is,this\n1,2,3\n",
            "c-wide.csv": "date,GOOG\n2018-01-01,1.0\n",
            "IBM.csv": "Date,Open,High,Low,Close,Adj Close,Volume\n2020-01-02,1,1,1,2,1.5,10\n",
            "notes.txt": "not a csv",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }

        let result = try StockCSV.loadDirectory(at: directory)
        // Files load in name order: IBM.csv, a-long.csv, b-broken.csv, c-wide.csv.
        #expect(result.series.map(\.symbol) == ["IBM", "MSFT", "GOOG"])
        #expect(result.series.map(\.prices) == [[1.5], [39.81], [1.0]])
        #expect(result.errors.map(\.file) == ["a-long.csv", "b-broken.csv"].map { directory.appendingPathComponent($0).path })
        #expect(result.errors.map(\.line) == [3, 1])
    }

    @Test func missingDirectoryIsReportedNotThrown() throws {
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)")
        let result = try StockCSV.loadDirectory(at: missing)
        #expect(result.series.isEmpty)
        #expect(result.errors.count == 1)
        #expect(result.errors[0].file == missing.path)
        #expect(result.errors[0].reason == "cannot list the folder: no such folder")
    }

    @Test func unreadableFileIsReported() throws {
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString).csv")
        let result = try StockCSV.loadFile(at: missing)
        #expect(result.series.isEmpty)
        #expect(result.errors.first?.file == missing.path)
        #expect(result.errors.first?.reason == "cannot read the file: no such file")
    }
}
