/// A key the app understands, decoded from terminal input bytes by ``KeyDecoder``.
///
/// ```swift
/// var decoder = KeyDecoder()
/// decoder.decode([0x1B, 0x5B, 0x42]) // [.down]
/// ```
enum Key: Sendable, Equatable, Hashable, CustomStringConvertible {
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, backspace, tab
    /// Ctrl-C (byte 0x03: in raw mode the terminal does not turn it into SIGINT).
    case interrupt
    /// A printable character ("q", "j", "k", ...).
    case character(Character)
    /// A byte sequence the decoder does not know (ignored by the app).
    case unknown([UInt8])

    /// The script name of the key ("down", "pagedown", "q", ...).
    var description: String {
        switch self {
        case .up: "up"
        case .down: "down"
        case .left: "left"
        case .right: "right"
        case .pageUp: "pageup"
        case .pageDown: "pagedown"
        case .home: "home"
        case .end: "end"
        case .enter: "enter"
        case .escape: "esc"
        case .backspace: "backspace"
        case .tab: "tab"
        case .interrupt: "ctrl-c"
        case .character(let character): String(character)
        case .unknown(let bytes): "unknown\(bytes)"
        }
    }

    /// Parses a script name (the inverse of ``description``); single characters are ``character(_:)``.
    ///
    /// ```swift
    /// Key(name: "pagedown") // .pageDown
    /// ```
    init?(name: String) {
        switch name.lowercased() {
        case "up": self = .up
        case "down": self = .down
        case "left": self = .left
        case "right": self = .right
        case "pageup", "pgup": self = .pageUp
        case "pagedown", "pgdn": self = .pageDown
        case "home": self = .home
        case "end": self = .end
        case "enter", "return": self = .enter
        case "esc", "escape": self = .escape
        case "backspace": self = .backspace
        case "tab": self = .tab
        case "ctrl-c", "interrupt": self = .interrupt
        default:
            guard name.count == 1, let character = name.first else { return nil }
            self = .character(character)
        }
    }
}
