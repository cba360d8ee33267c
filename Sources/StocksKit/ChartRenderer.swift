import Foundation

/// Draws a price chart into braille cells: raw prices, a smoothed line, and a forecast
/// line with its band, with y-axis labels on the left and date labels underneath.
///
/// The x axis spans the data and then the forecast; the y axis spans all finite values
/// rounded out to ``AxisTicks``. Degenerate input never traps: an empty or all-NaN series
/// draws "no data", one point draws a dot, a constant series a flat line, and NaN
/// values break lines.
///
/// ```swift
/// let result = try Analysis.run(series)
/// let chart = ChartRenderer(width: 80, height: 20).render(result)
/// print(chart.text)                     // or colour chart.rows[i].runs by layer
/// ```
public struct ChartRenderer: Sendable, Equatable {
    /// Total width in terminal cells, labels included.
    public var width: Int
    /// Total height in terminal cells, labels included.
    public var height: Int
    /// Whether to draw y-axis labels and date labels (dropped automatically when too small).
    public var showsAxes: Bool
    /// Whether to shade the band between its edges with sparse dots.
    public var fillsBand: Bool

    /// Creates a renderer for a `width × height` cell area.
    public init(width: Int, height: Int, showsAxes: Bool = true, fillsBand: Bool = true) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.showsAxes = showsAxes
        self.fillsBand = fillsBand
    }

    /// Renders an analysis: prices, smoothed line, forecast and band, with its dates.
    public func render(_ result: AnalysisResult) -> Chart {
        render(prices: result.prices, smoothed: result.smoothed, forecast: result.forecast.points,
               dates: result.dates, forecastDates: result.forecastDates)
    }

    /// Renders arbitrary data. `smoothed` (if not empty) should have one value per price;
    /// `forecast` continues after the last price. Dates are used for labels only.
    public func render(
        prices: [Double], smoothed: [Double] = [], forecast: [ForecastPoint] = [],
        dates: [Date] = [], forecastDates: [Date] = []
    ) -> Chart {
        let values = prices + smoothed + forecast.flatMap { [$0.value, $0.lower, $0.upper] }
        let finite = values.filter(\.isFinite)
        guard let low = finite.min(), let high = finite.max(), width > 0, height > 0 else {
            return emptyChart()
        }
        // Layout: optional date row at the bottom, optional label gutter on the left.
        let dateRow = showsAxes && height >= 3 && !dates.isEmpty
        let plotHeight = dateRow ? height - 1 : height
        let ticks = AxisTicks(lower: low, upper: high, maximumCount: min(8, max(2, plotHeight / 2 + 1)))
        let gutter = showsAxes ? (ticks.labels.map(\.count).max() ?? 0) + 1 : 0
        let axes = showsAxes && width - gutter >= 4
        let plotColumn = axes ? gutter : 0
        let plotWidth = width - plotColumn

        var layers = LayerCanvases(width: plotWidth, height: plotHeight)
        let mapper = Mapper(ticks: ticks, count: max(prices.count, smoothed.count) + forecast.count,
                            pixelWidth: plotWidth * 2, pixelHeight: plotHeight * 4)
        drawForecast(forecast, anchorIndex: prices.count - 1, anchor: prices.last, into: &layers, mapper)
        drawPolyline(prices, into: &layers.raw, mapper)
        drawPolyline(smoothed, into: &layers.smoothed, mapper)

        var rows: [ChartRow] = []
        let tickRows = axes ? tickRowLabels(ticks, mapper) : [:]
        for row in 0..<plotHeight {
            var characters: [Character] = [], rowLayers: [ChartLayer] = []
            if axes {
                let label = tickRows[row].map { String(repeating: " ", count: gutter - 1 - $0.count) + $0 + "┤" }
                    ?? String(repeating: " ", count: gutter - 1) + "│"
                characters += label
                rowLayers += Array(repeating: .axis, count: gutter)
            }
            for column in 0..<plotWidth {
                let (character, layer) = layers.cell(column: column, row: row)
                characters.append(character)
                rowLayers.append(layer)
            }
            rows.append(ChartRow(characters: characters, layers: rowLayers))
        }
        if dateRow {
            rows.append(dateLabelRow(dates: dates, forecastDates: forecastDates, dataCount: prices.count,
                                     plotColumn: plotColumn, mapper: mapper))
        }
        return Chart(rows: rows, width: width, height: height, ticks: axes ? ticks : nil, plotColumn: plotColumn)
    }

    // MARK: - Drawing

    /// Maps data indices and values to dot coordinates.
    struct Mapper {
        let ticks: AxisTicks
        let count: Int
        let pixelWidth: Int
        let pixelHeight: Int

        func x(_ index: Int) -> Int {
            guard count > 1 else { return pixelWidth / 2 }
            return Int((Double(index) * Double(pixelWidth - 1) / Double(count - 1)).rounded())
        }

        func y(_ value: Double) -> Int {
            let fraction = (ticks.upper - value) / (ticks.upper - ticks.lower)
            guard !fraction.isNaN else { return pixelHeight / 2 }
            let clamped = min(max(fraction, -1), 2)  // far-off values still clip cleanly
            return Int((clamped * Double(pixelHeight - 1)).rounded())
        }
    }

    private func drawPolyline(_ values: [Double], into canvas: inout BrailleCanvas, _ mapper: Mapper) {
        var previous: (x: Int, y: Int)?
        for (index, value) in values.enumerated() {
            guard value.isFinite else { previous = nil; continue }
            let point = (x: mapper.x(index), y: mapper.y(value))
            if let previous {
                canvas.drawLine(x0: previous.x, y0: previous.y, x1: point.x, y1: point.y)
            } else {
                canvas.set(x: point.x, y: point.y)
            }
            previous = point
        }
    }

    private func drawForecast(
        _ forecast: [ForecastPoint], anchorIndex: Int, anchor: Double?, into layers: inout LayerCanvases,
        _ mapper: Mapper
    ) {
        guard !forecast.isEmpty else { return }
        // Step h sits at index anchorIndex + h; lines start at the last price when there is one.
        func placed(_ values: [Double]) -> [Double] {
            guard anchorIndex >= 0 else { return values }
            return Array(repeating: .nan, count: anchorIndex) + [anchor ?? .nan] + values
        }
        drawPolyline(placed(forecast.map(\.upper)), into: &layers.bandEdges, mapper)
        drawPolyline(placed(forecast.map(\.lower)), into: &layers.bandEdges, mapper)
        drawPolyline(placed(forecast.map(\.value)), into: &layers.forecast, mapper)
        guard fillsBand else { return }
        for point in forecast where point.lower.isFinite && point.upper.isFinite {
            let index = anchorIndex + point.step
            let previous = index - 1
            let x0 = mapper.x(previous) + 1, x1 = mapper.x(index)
            for x in stride(from: x0, through: x1, by: 1) where x % 2 == 0 {
                let top = mapper.y(point.upper), bottom = mapper.y(point.lower)
                for y in stride(from: top + 1, to: bottom, by: 1) where y % 2 == 0 {
                    layers.bandFill.set(x: x, y: y)
                }
            }
        }
    }

    private func tickRowLabels(_ ticks: AxisTicks, _ mapper: Mapper) -> [Int: String] {
        var result: [Int: String] = [:]
        for (value, label) in zip(ticks.values, ticks.labels) {
            let row = mapper.y(value) / 4
            if result[row] == nil { result[row] = label }
        }
        return result
    }

    private func dateLabelRow(
        dates: [Date], forecastDates: [Date], dataCount: Int, plotColumn: Int, mapper: Mapper
    ) -> ChartRow {
        var characters = [Character](repeating: " ", count: width)
        var layers = [ChartLayer](repeating: .empty, count: width)
        guard let first = dates.first, let last = dates.last else {
            return ChartRow(characters: characters, layers: layers)
        }
        let end = forecastDates.last ?? last
        let monthly = end.timeIntervalSince(first) > 2 * 365 * StockDates.secondsPerDay
        func label(_ date: Date) -> String { monthly ? StockDates.formatMonth(date) : StockDates.format(date) }
        // Candidates: start (left-aligned), end (right-aligned), last data point (centred).
        var occupied: [ClosedRange<Int>] = []
        func place(_ text: String, at start: Int) {
            let range = start...(start + text.count - 1)
            guard start >= plotColumn, range.upperBound < width,
                  !occupied.contains(where: { $0.lowerBound - 1 <= range.upperBound && range.lowerBound <= $0.upperBound + 1 })
            else { return }
            occupied.append(range)
            for (k, character) in text.enumerated() {
                characters[start + k] = character
                layers[start + k] = .axis
            }
        }
        place(label(first), at: plotColumn)
        let endText = label(end)
        place(endText, at: width - endText.count)
        if !forecastDates.isEmpty {
            let lastText = label(last)
            place(lastText, at: plotColumn + mapper.x(dataCount - 1) / 2 - lastText.count / 2)
        }
        return ChartRow(characters: characters, layers: layers)
    }

    private func emptyChart() -> Chart {
        var rows = (0..<height).map { _ in
            ChartRow(characters: Array(repeating: " ", count: width), layers: Array(repeating: .empty, count: width))
        }
        let message = Array("no data")
        if height > 0, width >= message.count {
            let start = (width - message.count) / 2
            var characters = rows[height / 2].characters, layers = rows[height / 2].layers
            for (k, character) in message.enumerated() {
                characters[start + k] = character
                layers[start + k] = .axis
            }
            rows[height / 2] = ChartRow(characters: characters, layers: layers)
        }
        return Chart(rows: rows, width: width, height: height, ticks: nil, plotColumn: 0)
    }
}

/// One canvas per layer, composited cell by cell.
private struct LayerCanvases {
    var bandFill, bandEdges, forecast, raw, smoothed: BrailleCanvas

    init(width: Int, height: Int) {
        let blank = BrailleCanvas(width: width, height: height)
        (bandFill, bandEdges, forecast, raw, smoothed) = (blank, blank, blank, blank, blank)
    }

    /// Line layers are OR-ed together; band shading shows only in cells without lines.
    func cell(column: Int, row: Int) -> (Character, ChartLayer) {
        let s = smoothed.bits(column: column, row: row), r = raw.bits(column: column, row: row)
        let f = forecast.bits(column: column, row: row), e = bandEdges.bits(column: column, row: row)
        let lines = s | r | f | e
        let layer: ChartLayer = s != 0 ? .smoothed : r != 0 ? .raw : f != 0 ? .forecast : e != 0 ? .band : .empty
        if lines != 0 { return (BrailleCanvas.character(bits: lines), layer) }
        let fill = bandFill.bits(column: column, row: row)
        return fill != 0 ? (BrailleCanvas.character(bits: fill), .band) : (" ", .empty)
    }
}
