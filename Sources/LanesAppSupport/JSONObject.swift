import Foundation
import Lanes

/// A value in a ``JSONObject``: a number or a string.
public enum JSONValue: Sendable, Equatable {
    /// A number: written as an integer when it is one (below 10^15), with `decimals` digits after the point
    /// otherwise, and as `null` when it is not finite (JSON has no NaN or infinity).
    case number(Double, decimals: Int = 3)
    /// A string, escaped (quotes, backslashes, control characters, U+2028/2029).
    case text(String)

    /// The value as JSON text.
    ///
    /// ```swift
    /// JSONValue.number(2).json               // 2
    /// JSONValue.number(1.5, decimals: 2).json    // 1.50
    /// JSONValue.text("a \"b\"").json         // "a \"b\""
    /// ```
    public var json: String {
        switch self {
        case .number(let value, let decimals):
            guard value.isFinite else { return "null" }
            if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
            return String(format: "%.\(max(0, min(decimals, 17)))f", value)
        case .text(let text):
            var out = ""
            TraceJSON.write(string: text, into: &out)
            return out
        }
    }
}

/// One flat JSON object whose fields keep the order they were added in: how the apps write `--json` lines and
/// `--report` files, so every report formats numbers and escapes text the same way.
///
/// ```swift
/// var report = JSONObject()
/// report["scenario"] = .text("fling")
/// report["frames_over_25ms"] = .number(0)
/// report["p99_ms"] = .number(12.3456)
/// print(report.json)   // {"scenario": "fling", "frames_over_25ms": 0, "p99_ms": 12.346}
/// ```
public struct JSONObject: Sendable, Equatable {
    /// The fields, in order.
    public private(set) var fields: [(key: String, value: JSONValue)]

    /// An object with `fields`, in their order (a later field with a key already present replaces its value).
    ///
    /// ```swift
    /// let line = JSONObject([("n", .number(3)), ("note", .text("warm"))]).json
    /// ```
    public init(_ fields: [(String, JSONValue)] = []) {
        self.fields = []
        for (key, value) in fields { self[key] = value }
    }

    /// The value of `key`; setting adds the field at the end, or replaces its value where it stands (nil removes it).
    ///
    /// ```swift
    /// var object = JSONObject()
    /// object["cores"] = .number(2)
    /// object["cores"] = nil
    /// ```
    public subscript(key: String) -> JSONValue? {
        get { fields.first { $0.key == key }?.value }
        set {
            let index = fields.firstIndex { $0.key == key }
            switch (index, newValue) {
            case (let index?, let value?): fields[index].value = value
            case (let index?, nil): fields.remove(at: index)
            case (nil, let value?): fields.append((key, value))
            case (nil, nil): break
            }
        }
    }

    /// The object on one line.
    public var json: String {
        "{" + fields.map { JSONValue.text($0.key).json + ": " + $0.value.json }.joined(separator: ", ") + "}"
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.key == $1.key && $0.value == $1.value }
    }
}
