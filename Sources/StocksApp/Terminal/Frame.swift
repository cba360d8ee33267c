import Lanes
import LanesAppSupport
import StocksKit

/// How a ``Frame`` cell is drawn: the terminal layer maps each style to ANSI colours.
enum CellStyle: UInt8, Sendable, Equatable {
    case plain, dim, bold, title, selected, gain, loss, hud, raw, smoothed, forecast, band, axis

    /// The style of a chart cell's layer.
    init(_ layer: ChartLayer) {
        switch layer {
        case .empty: self = .plain
        case .axis: self = .axis
        case .band: self = .band
        case .forecast: self = .forecast
        case .raw: self = .raw
        case .smoothed: self = .smoothed
        }
    }

    /// The SGR escape that selects the style (after a reset).
    var sgr: String {
        switch self {
        case .plain: "\u{1B}[0m"
        case .dim, .axis: "\u{1B}[0;90m"
        case .bold: "\u{1B}[0;1m"
        case .title: "\u{1B}[0;1;36m"
        case .selected: "\u{1B}[0;7m"
        case .gain: "\u{1B}[0;32m"
        case .loss: "\u{1B}[0;31m"
        case .hud: "\u{1B}[0;30;46m"
        case .raw: "\u{1B}[0;37m"
        case .smoothed: "\u{1B}[0;1;33m"
        case .forecast: "\u{1B}[0;36m"
        case .band: "\u{1B}[0;34m"
        }
    }
}

/// An off-screen screen: `height` rows of `width` cells, each a character and a style. Screens draw into a frame;
/// the terminal writes only the rows that changed since the last frame, and tests read ``text``.
///
/// ```swift
/// var frame = Frame(width: 20, height: 2)
/// frame.put("AAPL", row: 0, column: 0, style: .bold)
/// frame.line(0) // "AAPL                "
/// ```
struct Frame: Sendable, Equatable {
    let width: Int
    let height: Int
    private(set) var characters: [Character]
    private(set) var styles: [CellStyle]

    /// A blank frame.
    init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        characters = Array(repeating: " ", count: self.width * self.height)
        styles = Array(repeating: .plain, count: self.width * self.height)
    }

    /// Writes `text` from (`row`, `column`), clipped to the frame; returns the column after the text.
    ///
    /// The text is sanitized first (``TerminalText/sanitized(_:)``: a control character from data shows as `\e`,
    /// `\x07`…, never reaches the terminal) and laid out by display width: a wide character takes two cells (one
    /// that would straddle the right edge is left out), a combining mark joins the cell before it.
    @discardableResult
    mutating func put(_ text: String, row: Int, column: Int, style: CellStyle = .plain) -> Int {
        guard row >= 0, row < height else { return column }
        var x = column
        for character in TerminalText.sanitized(text) {
            let cells = TerminalText.displayWidth(of: character)
            if cells == 0 {
                if x > column, x - 1 >= 0, x - 1 < width { joinMark(character, at: row * width + x - 1) }
                continue
            }
            if x + cells > width {
                if x >= 0, x < width { setCell(row: row, x: x, " ", style) }
                x += cells
                break
            }
            if x >= 0 {
                setCell(row: row, x: x, character, style)
                if cells == 2 { setCell(row: row, x: x + 1, Frame.continuation, style) }
            }
            x += cells
        }
        return x
    }

    /// Marks the second cell of a wide character (never drawn; sanitized text cannot hold a NUL).
    static let continuation: Character = "\u{0}"

    /// Stores one cell, blanking the other half of any wide character it overwrites.
    private mutating func setCell(row: Int, x: Int, _ character: Character, _ style: CellStyle) {
        guard x >= 0, x < width else { return }
        let index = row * width + x
        if characters[index] == Frame.continuation, x > 0 { characters[index - 1] = " " }
        if x + 1 < width, characters[index + 1] == Frame.continuation { characters[index + 1] = " " }
        characters[index] = character
        styles[index] = style
    }

    /// Joins a zero-width character (a lone combining mark) to the cell before it, or to the wide character whose
    /// second half that cell is.
    private mutating func joinMark(_ mark: Character, at cell: Int) {
        var index = cell
        if characters[index] == Frame.continuation, index % width > 0 { index -= 1 }
        let joined = String(characters[index]) + String(mark)
        if joined.count == 1 { characters[index] = Character(joined) }
    }

    /// Sets the style of `count` cells from (`row`, `column`) (for a selection bar).
    mutating func paint(row: Int, column: Int = 0, count: Int? = nil, style: CellStyle) {
        guard row >= 0, row < height else { return }
        let end = min(width, column + (count ?? width))
        for x in max(0, column)..<max(max(0, column), end) { styles[row * width + x] = style }
    }

    /// Copies a chart row in, one style per cell from the chart's layers.
    mutating func put(_ chartRow: ChartRow, row: Int, column: Int) {
        guard row >= 0, row < height else { return }
        for (offset, character) in chartRow.characters.enumerated() {
            setCell(row: row, x: column + offset, character, CellStyle(chartRow.layers[offset]))
        }
    }

    /// The text of one row (no styles); a wide character stands for both of its cells.
    func line(_ row: Int) -> String {
        String(characters[row * width..<(row + 1) * width].filter { $0 != Frame.continuation })
    }

    /// The style of one cell.
    func style(row: Int, column: Int) -> CellStyle { styles[row * width + column] }

    /// The whole frame as text, one line per row, trailing blanks trimmed.
    var text: String {
        (0..<height).map { row in
            var line = line(row)
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }

    /// One row as terminal output: styled runs, ending in a reset.
    func ansiLine(_ row: Int) -> String {
        var output = ""
        var current: CellStyle?
        for x in 0..<width {
            let style = styles[row * width + x]
            if characters[row * width + x] == Frame.continuation { continue }
            if style != current {
                output += style.sgr
                current = style
            }
            output.append(characters[row * width + x])
        }
        return output + CellStyle.plain.sgr
    }

    /// Whether row `row` differs from the same row of `other` (a frame of another size always differs).
    func rowDiffers(_ row: Int, from other: Frame?) -> Bool {
        guard let other, other.width == width, other.height == height else { return true }
        let range = row * width..<(row + 1) * width
        return characters[range] != other.characters[range] || styles[range] != other.styles[range]
    }
}
