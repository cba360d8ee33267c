import LanesAppSupport
import Testing

/// The apps' one JSON writer: `lanes-bench --json`, the desk's `--report` and the GLib probe all print through it.
@Suite("JSONObject")
struct JSONObjectTests {
    @Test("numbers: integers as integers, others with their decimals, non-finite as null")
    func numbers() {
        #expect(JSONValue.number(2).json == "2")
        #expect(JSONValue.number(-3_000_000).json == "-3000000")
        #expect(JSONValue.number(1.5, decimals: 2).json == "1.50")
        #expect(JSONValue.number(0.1234567, decimals: 6).json == "0.123457")
        #expect(JSONValue.number(12.3456).json == "12.346")
        #expect(JSONValue.number(1e16).json == "10000000000000000.000")
        #expect(JSONValue.number(.nan).json == "null")
        #expect(JSONValue.number(-.infinity).json == "null")
    }

    @Test("text from outside the program is escaped: quotes, backslashes, control characters, line separators")
    func text() {
        #expect(JSONValue.text("a \"b\" \\ c").json == #""a \"b\" \\ c""#)
        #expect(JSONValue.text("line\nnext\u{1B}[31m\u{2028}").json == #""line\nnext\u001b[31m\u2028""#)
        #expect(JSONValue.text("naïve 📈").json == "\"naïve 📈\"")
    }

    @Test("fields keep their order; a repeated key replaces its value where it stands; nil removes")
    func fields() {
        var object = JSONObject([("scenario", .text("fling")), ("n", .number(3)), ("n", .number(4))])
        #expect(object.json == #"{"scenario": "fling", "n": 4}"#)
        object["p99_ms"] = .number(0.5)
        object["scenario"] = .text("jump")
        #expect(object.json == #"{"scenario": "jump", "n": 4, "p99_ms": 0.500}"#)
        object["n"] = nil
        #expect(object["n"] == nil)
        #expect(object.json == #"{"scenario": "jump", "p99_ms": 0.500}"#)
        object["a \"key\""] = .number(1)
        #expect(object.json.hasSuffix(#", "a \"key\"": 1}"#))
    }
}
