/// An off-screen dot buffer rendered with Unicode braille characters.
///
/// The canvas is `width × height` terminal cells; each cell holds a 2 × 4 grid of dots, so
/// the pixel grid is `2·width × 4·height` with (0, 0) at the top left. A cell renders as
/// U+2800 plus its dot bits:
///
/// ```
/// dot (0,0) 0x01   (1,0) 0x08
/// dot (0,1) 0x02   (1,1) 0x10
/// dot (0,2) 0x04   (1,2) 0x20
/// dot (0,3) 0x40   (1,3) 0x80
/// ```
///
/// Drawing outside the canvas is ignored (lines are clipped), so callers never need to
/// bounds-check.
///
/// ```swift
/// var canvas = BrailleCanvas(width: 2, height: 1)
/// canvas.drawLine(x0: 0, y0: 0, x1: 3, y1: 0)
/// canvas.rows()   // ["⠉⠉"]
/// ```
public struct BrailleCanvas: Sendable, Equatable {
    /// Width in terminal cells.
    public let width: Int
    /// Height in terminal cells.
    public let height: Int
    private var cells: [UInt8]

    /// Width in dots (`2 · width`).
    public var pixelWidth: Int { width * 2 }
    /// Height in dots (`4 · height`).
    public var pixelHeight: Int { height * 4 }

    /// Creates a blank canvas; negative sizes count as 0.
    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = [UInt8](repeating: 0, count: self.width * self.height)
    }

    /// The bit for dot (x mod 2, y mod 4) within its cell.
    @inline(__always)
    static func bit(x: Int, y: Int) -> UInt8 {
        let row = y & 3
        if row == 3 { return x & 1 == 0 ? 0x40 : 0x80 }
        return UInt8(1 << (row + (x & 1) * 3))
    }

    @inline(__always)
    private func contains(x: Int, y: Int) -> Bool {
        x >= 0 && y >= 0 && x < pixelWidth && y < pixelHeight
    }

    /// Turns on the dot at (`x`, `y`); ignored outside the canvas.
    public mutating func set(x: Int, y: Int) {
        guard contains(x: x, y: y) else { return }
        cells[(y >> 2) * width + (x >> 1)] |= Self.bit(x: x, y: y)
    }

    /// Turns off the dot at (`x`, `y`); ignored outside the canvas.
    public mutating func clear(x: Int, y: Int) {
        guard contains(x: x, y: y) else { return }
        cells[(y >> 2) * width + (x >> 1)] &= ~Self.bit(x: x, y: y)
    }

    /// Whether the dot at (`x`, `y`) is on; false outside the canvas.
    public func isSet(x: Int, y: Int) -> Bool {
        guard contains(x: x, y: y) else { return false }
        return cells[(y >> 2) * width + (x >> 1)] & Self.bit(x: x, y: y) != 0
    }

    /// Turns every dot off.
    public mutating func clearAll() {
        for i in cells.indices { cells[i] = 0 }
    }

    /// The dot bits of one cell (0 = blank, 0xFF = all eight dots); 0 outside the canvas.
    public func bits(column: Int, row: Int) -> UInt8 {
        guard column >= 0, row >= 0, column < width, row < height else { return 0 }
        return cells[row * width + column]
    }

    /// The braille character for a cell's dot bits, e.g. `0xFF` → "⣿".
    public static func character(bits: UInt8) -> Character {
        Character(Unicode.Scalar(0x2800 + UInt32(bits))!)
    }

    /// Draws a straight line of dots between two points (Bresenham), clipped to the canvas.
    public mutating func drawLine(x0: Int, y0: Int, x1: Int, y1: Int) {
        guard pixelWidth > 0, pixelHeight > 0,
              let (ax, ay, bx, by) = clip(x0: x0, y0: y0, x1: x1, y1: y1)
        else { return }
        var x = ax, y = ay
        let dx = abs(bx - ax), dy = -abs(by - ay)
        let sx = ax < bx ? 1 : -1, sy = ay < by ? 1 : -1
        var error = dx + dy
        while true {
            set(x: x, y: y)
            if x == bx && y == by { break }
            let doubled = 2 * error
            if doubled >= dy { error += dy; x += sx }
            if doubled <= dx { error += dx; y += sy }
        }
    }

    /// Clips a segment to the pixel rectangle (Liang–Barsky); nil when it misses entirely.
    /// A clipped end lies exactly on the boundary it was clipped against, so even segments
    /// with enormous coordinates keep their on-canvas part.
    private func clip(x0: Int, y0: Int, x1: Int, y1: Int) -> (Int, Int, Int, Int)? {
        let maxX = Double(pixelWidth - 1), maxY = Double(pixelHeight - 1)
        let ax = Double(x0), ay = Double(y0), dx = Double(x1) - ax, dy = Double(y1) - ay
        // Each edge: p, q, and the fixed coordinate a clip against it lands on.
        let edges: [(p: Double, q: Double, x: Double?, y: Double?)] = [
            (-dx, ax, 0, nil), (dx, maxX - ax, maxX, nil), (-dy, ay, nil, 0), (dy, maxY - ay, nil, maxY),
        ]
        var t0 = 0.0, t1 = 1.0
        var enter: (x: Double?, y: Double?) = (nil, nil), exit: (x: Double?, y: Double?) = (nil, nil)
        for edge in edges {
            if edge.p == 0 {
                if edge.q < 0 { return nil }
            } else {
                let r = edge.q / edge.p
                if edge.p < 0 {
                    if r > t1 { return nil }
                    if r > t0 { (t0, enter) = (r, (edge.x, edge.y)) }
                } else {
                    if r < t0 { return nil }
                    if r < t1 { (t1, exit) = (r, (edge.x, edge.y)) }
                }
            }
        }
        func snap(_ v: Double, _ limit: Double) -> Int { Int(min(max(v.rounded(), 0), limit)) }
        func point(_ t: Double, _ fixed: (x: Double?, y: Double?)) -> (Int, Int) {
            let x = fixed.x ?? (dy == 0 || fixed.y == nil ? ax + t * dx : ax + (fixed.y! - ay) * dx / dy)
            let y = fixed.y ?? (dx == 0 || fixed.x == nil ? ay + t * dy : ay + (fixed.x! - ax) * dy / dx)
            return (snap(x, maxX), snap(y, maxY))
        }
        let a = t0 == 0 ? (snap(ax, maxX), snap(ay, maxY)) : point(t0, enter)
        let b = t1 == 1 ? (snap(Double(x1), maxX), snap(Double(y1), maxY)) : point(t1, exit)
        return (a.0, a.1, b.0, b.1)
    }

    /// Merges another canvas's dots into this one (cells outside either canvas are ignored).
    public mutating func formUnion(_ other: BrailleCanvas) {
        for row in 0..<min(height, other.height) {
            for column in 0..<min(width, other.width) {
                cells[row * width + column] |= other.cells[row * other.width + column]
            }
        }
    }

    /// The canvas as one string per cell row; blank cells render as `blank`
    /// (a space by default; pass "\u{2800}" for the empty braille pattern).
    public func rows(blank: Character = " ") -> [String] {
        (0..<height).map { row in
            var line = ""
            line.unicodeScalars.reserveCapacity(width)
            for column in 0..<width {
                let b = cells[row * width + column]
                line.append(b == 0 ? blank : Self.character(bits: b))
            }
            return line
        }
    }

    /// The rows joined with newlines.
    public func render(blank: Character = " ") -> String {
        rows(blank: blank).joined(separator: "\n")
    }
}
