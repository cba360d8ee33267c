/// One logical CSV record: its fields and the physical line it starts on.
struct CSVRecord {
    var line: Int
    var fields: [String]
}

/// A small RFC 4180-style CSV tokenizer over UTF-8 bytes.
///
/// - Line ends may be `\n`, `\r\n` or a lone `\r`.
/// - Unquoted fields are trimmed of spaces and tabs.
/// - Quoted fields may contain commas, doubled quotes (`""`) and line breaks; text
///   after the closing quote and before the next comma is appended as-is.
/// - Lines holding only whitespace are skipped.
/// - An unterminated quote yields an error for the record's first line.
struct CSVReader {
    private let bytes: [UInt8]
    private var position = 0
    private var line = 1

    init(bytes: [UInt8]) {
        var start = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }  // BOM
        self.bytes = start == 0 ? bytes : Array(bytes[start...])
    }

    /// Returns the next non-blank record, an error for a malformed one, or nil at the end.
    mutating func next() -> Result<CSVRecord, StockDataError.Reason>? {
        while position < bytes.count {
            let startLine = line
            var fields: [String] = []
            var field: [UInt8] = []
            var fieldWasQuoted = false
            var recordHasContent = false
            while true {
                guard position < bytes.count else {
                    fields.append(finish(field, quoted: fieldWasQuoted))
                    break
                }
                let c = bytes[position]
                if c == 0x0A || c == 0x0D {
                    consumeLineEnd()
                    fields.append(finish(field, quoted: fieldWasQuoted))
                    break
                }
                position += 1
                if c == 0x2C {  // ,
                    fields.append(finish(field, quoted: fieldWasQuoted))
                    field.removeAll(keepingCapacity: true)
                    fieldWasQuoted = false
                    recordHasContent = true
                } else if c == 0x22, !fieldWasQuoted, isBlank(field) {  // opening quote
                    field.removeAll(keepingCapacity: true)
                    fieldWasQuoted = true
                    recordHasContent = true
                    guard readQuoted(into: &field) else {
                        return .failure(.init(line: startLine, message: "unterminated quoted field"))
                    }
                } else if fieldWasQuoted, c == 0x20 || c == 0x09 {
                    continue  // whitespace after a closing quote
                } else {
                    field.append(c)
                    if c != 0x20 && c != 0x09 { recordHasContent = true }
                }
            }
            if recordHasContent {
                return .success(CSVRecord(line: startLine, fields: fields))
            }
        }
        return nil
    }

    /// Reads a quoted field's content after its opening quote; false if it never closes.
    private mutating func readQuoted(into field: inout [UInt8]) -> Bool {
        while position < bytes.count {
            let c = bytes[position]
            position += 1
            if c == 0x22 {
                if position < bytes.count, bytes[position] == 0x22 {
                    field.append(0x22)
                    position += 1
                } else {
                    return true
                }
            } else {
                if c == 0x0A || (c == 0x0D && (position >= bytes.count || bytes[position] != 0x0A)) {
                    line += 1
                }
                field.append(c)
            }
        }
        return false
    }

    private mutating func consumeLineEnd() {
        if bytes[position] == 0x0D, position + 1 < bytes.count, bytes[position + 1] == 0x0A {
            position += 2
        } else {
            position += 1
        }
        line += 1
    }

    private func isBlank(_ field: [UInt8]) -> Bool {
        field.allSatisfy { $0 == 0x20 || $0 == 0x09 }
    }

    private func finish(_ field: [UInt8], quoted: Bool) -> String {
        if quoted { return String(decoding: field, as: UTF8.self) }
        var lower = 0, upper = field.count
        while lower < upper, field[lower] == 0x20 || field[lower] == 0x09 { lower += 1 }
        while upper > lower, field[upper - 1] == 0x20 || field[upper - 1] == 0x09 { upper -= 1 }
        return String(decoding: field[lower..<upper], as: UTF8.self)
    }
}

extension StockDataError {
    /// A line-level problem before the file name is attached.
    struct Reason: Error {
        var line: Int
        var message: String
    }
}
