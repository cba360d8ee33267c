/// Text from outside the program (file contents, file names, URLs, error messages) made safe to print on a
/// terminal, and laid out by the width a terminal gives it.
///
/// A terminal obeys control characters: an `ESC ] 0 ; … BEL` in a CSV header renames the window, `ESC [ 2 J`
/// clears the screen, a carriage return overwrites the line, and a right-to-left override reorders what follows.
/// ``sanitized(_:)`` shows every such character as a visible escape instead — `ESC` as `\e`, a newline as `\n`,
/// other C0 controls and DEL as `\xHH`, C1 controls, line separators and bidirectional overrides as `\u{HHHH}` — and
/// leaves all other text alone (a backslash is not escaped). Use it on every piece of untrusted text before it
/// reaches standard output or standard error, or a file name (see ``replacingControls(_:with:)``).
///
/// ``displayWidth(_:)`` counts the terminal columns text takes: 2 for wide (CJK, fullwidth, emoji) characters, 0
/// for combining marks and other zero-width characters, 1 for the rest; ``padded(_:toWidth:alignment:)`` and
/// ``truncated(_:toWidth:ellipsis:)`` lay columns out by it.
///
/// ```swift
/// let header = "date,\u{1B}]0;pwned\u{07}"
/// TerminalText.sanitized(header)                       // #"date,\e]0;pwned\x07"#
/// TerminalText.displayWidth("株式会社")                  // 8
/// TerminalText.displayWidth("e\u{301}")                // 1 (e + combining acute)
/// TerminalText.padded("株式", toWidth: 6)               // "株式  "
/// TerminalText.truncated("株式会社", toWidth: 5)          // "株式…"
/// ```
public enum TerminalText {
    /// How ``padded(_:toWidth:alignment:)`` places text in its column.
    public enum Alignment: Sendable {
        /// Text at the column's start, padding after it.
        case left
        /// Text at the column's end, padding before it.
        case right
    }

    /// `text` with every control character, escape sequence introducer, line separator and bidirectional override
    /// shown as a visible escape (see ``TerminalText``); text without them is returned unchanged.
    ///
    /// ```swift
    /// TerminalText.sanitized("a\tb\r\n")     // #"a\tb\r\n"#
    /// TerminalText.sanitized("\u{9B}31m")    // #"\u{9B}31m"# (a C1 CSI)
    /// ```
    public static func sanitized(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return String(text) }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                result += escape(scalar)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `text` with every unsafe character (see ``isUnsafe(_:)``) replaced by `replacement`: for names that must
    /// stay plain, such as an output file name derived from a URL.
    ///
    /// ```swift
    /// TerminalText.replacingControls("x\u{1B}]0;t\u{07}", with: "_")   // "x_]0;t_"
    /// ```
    public static func replacingControls(_ text: some StringProtocol, with replacement: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return String(text) }
        var result = ""
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) { result += replacement } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }

    /// Whether a terminal could act on `scalar` instead of showing it: C0 controls (tab and newline included),
    /// DEL, C1 controls, the line and paragraph separators, and the bidirectional embeddings, overrides and
    /// isolates.
    ///
    /// ```swift
    /// TerminalText.isUnsafe("\u{1B}")   // true
    /// TerminalText.isUnsafe("a")        // false
    /// ```
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x1B: return #"\e"#
        case 0x0A: return #"\n"#
        case 0x0D: return #"\r"#
        case 0x09: return #"\t"#
        case 0x00...0x7F: return #"\x"# + hex(scalar.value, digits: 2)
        default: return #"\u{"# + hex(scalar.value, digits: 2) + "}"
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    // MARK: Width

    /// The terminal columns `text` takes once sanitized: wide characters count 2, combining marks 0.
    ///
    /// ```swift
    /// TerminalText.displayWidth("AAPL")         // 4
    /// TerminalText.displayWidth("e\u{301}東京")  // 5: e with a combining acute (1), then two wide characters
    /// ```
    public static func displayWidth(_ text: some StringProtocol) -> Int {
        var width = 0
        for character in text { width += displayWidth(of: character) }
        return width
    }

    /// The terminal columns one character (a grapheme cluster) takes: 2 when any of its scalars is wide or it asks
    /// for emoji presentation (U+FE0F), 0 when all of them are zero-width, else 1. An unsafe character counts as
    /// the width of its escape.
    public static func displayWidth(of character: Character) -> Int {
        var width = 0
        var emojiPresentation = false
        for scalar in character.unicodeScalars {
            if isUnsafe(scalar) {
                width += escape(scalar).utf8.count
                continue
            }
            if scalar.value == 0xFE0F { emojiPresentation = true }
            width = max(width, scalarWidth(scalar))
        }
        if emojiPresentation && width == 1 { width = 2 }
        return width
    }

    /// `text`, sanitized and cut to at most `width` columns; when it had to be cut, it ends in `ellipsis` (which
    /// counts in the width). A wide character that would straddle the limit is left out.
    ///
    /// ```swift
    /// TerminalText.truncated("Consumer Discretionary", toWidth: 10)   // "Consumer …"
    /// ```
    public static func truncated(_ text: some StringProtocol, toWidth width: Int, ellipsis: String = "…") -> String {
        let safe = sanitized(text)
        guard width > 0 else { return "" }
        if displayWidth(safe) <= width { return safe }
        let room = width - displayWidth(ellipsis)
        guard room >= 0 else { return "" }
        var result = ""
        var used = 0
        for character in safe {
            let w = displayWidth(of: character)
            if used + w > room { break }
            result.append(character)
            used += w
        }
        return result + ellipsis
    }

    /// `text`, sanitized, cut to `width` columns (with an ellipsis) if longer, and padded with spaces to exactly
    /// `width` columns.
    ///
    /// ```swift
    /// TerminalText.padded("12.50", toWidth: 8, alignment: .right)   // "   12.50"
    /// ```
    public static func padded(_ text: some StringProtocol, toWidth width: Int, alignment: Alignment = .left) -> String {
        let fitted = truncated(text, toWidth: width)
        let fill = String(repeating: " ", count: max(0, width - displayWidth(fitted)))
        return alignment == .left ? fitted + fill : fill + fitted
    }

    static func scalarWidth(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x300 { return 1 }
        if (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value) || value == 0x200B { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if scalar.properties.isEmojiPresentation || isWide(value) { return 2 }
        return 1
    }

    /// East Asian Wide and Fullwidth ranges (Unicode's EastAsianWidth W and F), outside emoji presentation.
    private static func isWide(_ value: UInt32) -> Bool {
        var low = 0, high = wideRanges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = wideRanges[middle]
            if value < range.lowerBound { high = middle - 1 } else if value > range.upperBound { low = middle + 1 } else {
                return true
            }
        }
        return false
    }

    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x2E99, 0x2E9B...0x2EF3, 0x2F00...0x2FD5, 0x2FF0...0x2FFF,
        0x3000...0x303E, 0x3041...0x3096, 0x3099...0x30FF, 0x3105...0x312F, 0x3131...0x318E, 0x3190...0x31E3,
        0x31EF...0x321E, 0x3220...0x3247, 0x3250...0x4DBF, 0x4E00...0xA48C, 0xA490...0xA4C6, 0xA960...0xA97C,
        0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE52, 0xFE54...0xFE66, 0xFE68...0xFE6B,
        0xFF01...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x16FF0...0x16FF1, 0x17000...0x187F7,
        0x18800...0x18CD5, 0x18D00...0x18D08, 0x1AFF0...0x1B2FB, 0x1F200...0x1F202, 0x1F210...0x1F23B,
        0x1F240...0x1F248, 0x1F250...0x1F251, 0x1F260...0x1F265, 0x1F300...0x1F64F, 0x1F900...0x1F9FF,
        0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]
}
