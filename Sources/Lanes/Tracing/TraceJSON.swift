/// A small writer for Chrome trace-event JSON: objects with string and number fields, written straight into one
/// string with proper escaping (labels may hold quotes, backslashes, control characters and any Unicode).
package struct TraceJSON {
    /// A field value.
    enum Value {
        case string(String)
        case integer(Int)
        /// Nanoseconds, written as microseconds with three decimals (the trace format's unit).
        case micros(UInt64)
        case object([(String, Value)])
    }

    private(set) var text = ""
    private var count = 0

    init(capacity: Int) {
        text.reserveCapacity(capacity)
        text.append("{\"traceEvents\":[")
    }

    /// Appends one trace event.
    mutating func event(_ fields: [(String, Value)]) {
        text.append(count == 0 ? "\n" : ",\n")
        count += 1
        Self.write(.object(fields), into: &text)
    }

    /// Closes the array and adds the top-level fields.
    mutating func finish(_ fields: [(String, Value)]) -> String {
        text.append("\n]")
        for (key, value) in fields {
            text.append(",")
            Self.write(string: key, into: &text)
            text.append(":")
            Self.write(value, into: &text)
        }
        text.append("}\n")
        return text
    }

    static func write(_ value: Value, into out: inout String) {
        switch value {
        case .string(let string):
            write(string: string, into: &out)
        case .integer(let number):
            out.append(String(number))
        case .micros(let nanos):
            let fraction = String(nanos % 1_000)
            out.append(String(nanos / 1_000))
            out.append(".")
            out.append(String(repeating: "0", count: 3 - fraction.count))
            out.append(fraction)
        case .object(let fields):
            out.append("{")
            for (index, (key, field)) in fields.enumerated() {
                if index > 0 { out.append(",") }
                write(string: key, into: &out)
                out.append(":")
                write(field, into: &out)
            }
            out.append("}")
        }
    }

    /// Writes `string` as a JSON string literal. (Package-wide: LanesAppSupport's report writer escapes the same way.)
    package static func write(string: String, into out: inout String) {
        out.append("\"")
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out.append("\\\"")
            case "\\": out.append("\\\\")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            case "\t": out.append("\\t")
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                // Control characters must be escaped; U+2028/2029 are legal JSON but break JavaScript readers.
                let hex = String(scalar.value, radix: 16)
                out.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        out.append("\"")
    }
}
