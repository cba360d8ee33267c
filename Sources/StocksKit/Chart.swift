/// What a chart cell shows, so an app can colour it. When several layers meet in a
/// cell, the one with the highest raw value wins (smoothed over raw over forecast over band).
///
/// ```swift
/// func colour(_ layer: ChartLayer) -> String {
///     switch layer {
///     case .smoothed: "\u{1B}[33m"
///     case .raw: "\u{1B}[37m"
///     case .forecast, .band: "\u{1B}[36m"
///     case .axis, .empty: "\u{1B}[90m"
///     }
/// }
/// ```
public enum ChartLayer: UInt8, Sendable, Equatable, Comparable, CaseIterable {
    /// Nothing drawn.
    case empty
    /// Axis lines and labels.
    case axis
    /// The forecast band (edges and shading).
    case band
    /// The forecast line.
    case forecast
    /// The raw prices.
    case raw
    /// The smoothed prices.
    case smoothed

    /// Orders layers by drawing priority.
    public static func < (lhs: ChartLayer, rhs: ChartLayer) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A run of adjacent characters in one row that share a layer.
///
/// ```swift
/// let line = row.runs.map { colour($0.layer) + $0.text }.joined() + "\u{1B}[0m"
/// ```
public struct ChartRun: Sendable, Equatable {
    /// The layer of every character in the run.
    public var layer: ChartLayer
    /// The characters.
    public var text: String

    /// Creates a run.
    public init(layer: ChartLayer, text: String) {
        self.layer = layer
        self.text = text
    }
}

/// One text row of a rendered chart, with the layer of each character.
///
/// ```swift
/// for run in row.runs {
///     print(colour(run.layer) + run.text, terminator: "")
/// }
/// ```
public struct ChartRow: Sendable, Equatable {
    /// The characters of the row, one per terminal cell.
    public let characters: [Character]
    /// The layer of each character (same count as `characters`).
    public let layers: [ChartLayer]

    /// Creates a row.
    /// - Precondition: `characters.count == layers.count`.
    public init(characters: [Character], layers: [ChartLayer]) {
        precondition(characters.count == layers.count, "ChartRow needs one layer per character")
        self.characters = characters
        self.layers = layers
    }

    /// The row as a string.
    public var text: String { String(characters) }

    /// Adjacent characters grouped by layer, left to right.
    public var runs: [ChartRun] {
        var result: [ChartRun] = []
        for (character, layer) in zip(characters, layers) {
            if let lastLayer = result.last?.layer, lastLayer == layer {
                result[result.count - 1].text.append(character)
            } else {
                result.append(ChartRun(layer: layer, text: String(character)))
            }
        }
        return result
    }
}

/// A rendered chart: `height` rows of exactly `width` cells each.
///
/// ```swift
/// let chart = ChartRenderer(width: 60, height: 12).render(prices: prices)
/// print(chart.text)
/// ```
public struct Chart: Sendable, Equatable {
    /// The rows, top to bottom.
    public let rows: [ChartRow]
    /// Width in terminal cells.
    public let width: Int
    /// Height in terminal cells.
    public let height: Int
    /// The y-axis ticks used, or nil when axes were off or there was no data.
    public let ticks: AxisTicks?
    /// The column where the plot area starts (after the y-axis labels).
    public let plotColumn: Int

    /// All rows joined with newlines (no colour).
    public var text: String { rows.map(\.text).joined(separator: "\n") }
}
