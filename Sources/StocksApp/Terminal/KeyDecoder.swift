/// Turns raw terminal input bytes into ``Key``s: arrows and Home/End in both CSI (`ESC [ A`) and SS3 (`ESC O A`)
/// forms, PageUp/PageDown (`ESC [ 5 ~` / `ESC [ 6 ~`), Enter (CR or LF), a lone Esc, Ctrl-C, Backspace and UTF-8
/// characters. A sequence cut at the end of a read is kept until the next read, except a lone ESC, which is the
/// Esc key (terminals send a whole sequence in one write).
///
/// ```swift
/// var decoder = KeyDecoder()
/// decoder.decode(Array("\u{1B}[6~q".utf8)) // [.pageDown, .character("q")]
/// ```
struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    /// A decoder with nothing pending.
    init() {}

    /// Decodes `bytes` (one read's worth) into keys.
    mutating func decode(_ bytes: [UInt8]) -> [Key] {
        pending.append(contentsOf: bytes)
        var keys: [Key] = []
        var index = 0
        while index < pending.count {
            switch Self.decodeOne(pending, at: index) {
            case .key(let key, let length):
                keys.append(key)
                index += length
            case .incomplete:
                pending.removeFirst(index)
                return keys
            }
        }
        pending.removeAll(keepingCapacity: true)
        return keys
    }

    private enum Step {
        case key(Key, Int)
        case incomplete
    }

    private static func decodeOne(_ bytes: [UInt8], at start: Int) -> Step {
        let byte = bytes[start]
        switch byte {
        case 0x03: return .key(.interrupt, 1)
        case 0x0D, 0x0A: return .key(.enter, 1)
        case 0x09: return .key(.tab, 1)
        case 0x7F, 0x08: return .key(.backspace, 1)
        case 0x1B: return escapeSequence(bytes, at: start)
        case 0x20...0x7E: return .key(.character(Character(Unicode.Scalar(byte))), 1)
        case 0xC0...0xF7: return utf8(bytes, at: start)
        default: return .key(.unknown([byte]), 1)
        }
    }

    private static func escapeSequence(_ bytes: [UInt8], at start: Int) -> Step {
        guard start + 1 < bytes.count else { return .key(.escape, 1) }
        let introducer = bytes[start + 1]
        if introducer == 0x4F {  // SS3: ESC O A
            guard start + 2 < bytes.count else { return .incomplete }
            return .key(final(bytes[start + 2], parameter: nil) ?? .unknown(Array(bytes[start...start + 2])), 3)
        }
        guard introducer == 0x5B else { return .key(.escape, 1) }  // ESC then another key: Esc first
        // CSI: ESC [ parameters (0x30–0x3F)* intermediates (0x20–0x2F)* final (0x40–0x7E)
        var index = start + 2
        var parameter = ""
        while index < bytes.count, (0x20...0x3F).contains(bytes[index]) {
            parameter.append(Character(Unicode.Scalar(bytes[index])))
            index += 1
        }
        guard index < bytes.count else { return .incomplete }
        let length = index - start + 1
        let key = final(bytes[index], parameter: parameter) ?? .unknown(Array(bytes[start..<start + length]))
        return .key(key, length)
    }

    private static func final(_ byte: UInt8, parameter: String?) -> Key? {
        switch byte {
        case 0x41: return .up
        case 0x42: return .down
        case 0x43: return .right
        case 0x44: return .left
        case 0x48: return .home
        case 0x46: return .end
        case 0x7E:
            switch parameter?.split(separator: ";").first {
            case "1", "7": return .home
            case "4", "8": return .end
            case "5": return .pageUp
            case "6": return .pageDown
            default: return nil
            }
        default: return nil
        }
    }

    private static func utf8(_ bytes: [UInt8], at start: Int) -> Step {
        let lead = bytes[start]
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
        guard start + length <= bytes.count else { return .incomplete }
        let slice = Array(bytes[start..<start + length])
        if let character = String(validating: slice, as: UTF8.self)?.first {
            return .key(.character(character), length)
        }
        return .key(.unknown(slice), length)
    }
}
