import Foundation
import Lanes

// word-count: the words and lines of each file, read on one queue and counted on another, as a typed edge (the count
// consumes the read). Results print in the order the files were given; a file that cannot be read gets a one-line
// error and the others are still counted.
//
//   swift run word-count FILE...

struct Counts: Sendable {
    var words = 0
    var lines = 0
}

/// The words (runs of letters, digits or apostrophes) and the lines of `text`.
func count(_ text: String, _ ctx: WorkContext) throws -> Counts {
    var counts = Counts()
    var inWord = false
    for (index, character) in text.enumerated() {
        if index % 65_536 == 0 { try ctx.checkCancellation() }
        if character == "\n" { counts.lines += 1 }
        let partOfWord = character.isLetter || character.isNumber || character == "'"
        if partOfWord && !inWord { counts.words += 1 }
        inWord = partOfWord
    }
    return counts
}

struct ReadError: Error, CustomStringConvertible {
    let description: String
}

let files = CommandLine.arguments.dropFirst()
guard !files.isEmpty else {
    FileHandle.standardError.write(Data("usage: word-count FILE...\n".utf8))
    exit(2)
}

let io = WorkQueue("io", maxConcurrency: 2)          // reads: a few at a time
let cpu = WorkQueue("count", maxConcurrency: 4)      // counting: up to one per core

let counted = files.map { path in
    let text = io.add(label: "read \(path)") { _ in
        guard let data = FileManager.default.contents(atPath: path) else {
            // Quoted and escaped: one line whatever the file's name holds.
            throw ReadError(description: "cannot read \(String(reflecting: path))")
        }
        return String(decoding: data, as: UTF8.self)
    }
    // .fail: a read that failed fails its count with the read's error (the default, .cancel, would cancel it).
    return (path, cpu.add(consuming: text, policy: .fail, label: "count \(path)") { text, ctx in try count(text, ctx) })
}

var total = Counts()
var failed = false
for (path, item) in counted {
    do {
        let counts = try await item.value
        total.words += counts.words
        total.lines += counts.lines
        print("\(counts.lines)\t\(counts.words)\t\(path)")
    } catch {
        FileHandle.standardError.write(Data("word-count: \(error)\n".utf8))
        failed = true
    }
}
print("\(total.lines)\t\(total.words)\ttotal")
exit(failed ? 1 : 0)
