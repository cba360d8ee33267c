import StocksKit
import Testing

@Suite("Braille canvas", .timeLimit(.minutes(5)))
struct BrailleCanvasTests {
    private func single(_ x: Int, _ y: Int) -> String {
        var canvas = BrailleCanvas(width: 1, height: 1)
        canvas.set(x: x, y: y)
        return canvas.render()
    }

    @Test func eachDotMapsToItsBrailleBit() {
        #expect(single(0, 0) == "\u{2801}")  // ⠁ dot 1
        #expect(single(0, 1) == "\u{2802}")  // ⠂ dot 2
        #expect(single(0, 2) == "\u{2804}")  // ⠄ dot 3
        #expect(single(1, 0) == "\u{2808}")  // ⠈ dot 4
        #expect(single(1, 1) == "\u{2810}")  // ⠐ dot 5
        #expect(single(1, 2) == "\u{2820}")  // ⠠ dot 6
        #expect(single(0, 3) == "\u{2840}")  // ⡀ dot 7
        #expect(single(1, 3) == "\u{2880}")  // ⢀ dot 8
    }

    @Test func dotsLandInTheRightCell() {
        var canvas = BrailleCanvas(width: 3, height: 2)
        canvas.set(x: 5, y: 7)  // last column, last row, bottom-right dot
        #expect(canvas.rows() == ["   ", "  ⢀"])
        #expect(canvas.bits(column: 2, row: 1) == 0x80)
        #expect(canvas.isSet(x: 5, y: 7))
        #expect(!canvas.isSet(x: 4, y: 7))
    }

    @Test func horizontalLinesAcrossATwoCellCanvas() {
        var top = BrailleCanvas(width: 2, height: 1)
        top.drawLine(x0: 0, y0: 0, x1: 3, y1: 0)
        #expect(top.render() == "⠉⠉")
        var bottom = BrailleCanvas(width: 2, height: 1)
        bottom.drawLine(x0: 3, y0: 3, x1: 0, y1: 3)  // drawn right to left
        #expect(bottom.render() == "⣀⣀")
    }

    @Test func fullCellAndVerticalAndDiagonalLines() {
        var full = BrailleCanvas(width: 1, height: 1)
        full.drawLine(x0: 0, y0: 0, x1: 0, y1: 3)
        #expect(full.render() == "⡇")
        full.drawLine(x0: 1, y0: 3, x1: 1, y1: 0)
        #expect(full.render() == "⣿")
        #expect(full.bits(column: 0, row: 0) == 0xFF)

        var diagonal = BrailleCanvas(width: 2, height: 1)
        diagonal.drawLine(x0: 0, y0: 0, x1: 3, y1: 3)
        #expect(diagonal.render() == "⠑⢄")
    }

    @Test func linesAreClippedToTheCanvas() {
        var clipped = BrailleCanvas(width: 2, height: 1)
        clipped.drawLine(x0: -100, y0: -100, x1: 100, y1: 100)
        #expect(clipped.render() == "⠑⢄")
        var missed = BrailleCanvas(width: 2, height: 1)
        missed.drawLine(x0: -10, y0: 5, x1: 10, y1: 50)
        missed.drawLine(x0: Int.min / 2, y0: 0, x1: Int.max / 2, y1: 0)
        #expect(missed.render() == "⠉⠉")
    }

    @Test func clearingOutOfBoundsAndBlankCells() {
        var canvas = BrailleCanvas(width: 2, height: 1)
        canvas.set(x: -1, y: 0)
        canvas.set(x: 4, y: 0)
        canvas.set(x: 0, y: 4)
        #expect(canvas.render() == "  ")
        #expect(canvas.render(blank: "\u{2800}") == "\u{2800}\u{2800}")
        canvas.set(x: 0, y: 0)
        canvas.set(x: 1, y: 0)
        canvas.clear(x: 0, y: 0)
        #expect(canvas.render() == "⠈ ")
        canvas.clearAll()
        #expect(canvas.render() == "  ")
        #expect(BrailleCanvas(width: 0, height: 3).rows() == ["", "", ""])
        #expect(BrailleCanvas(width: -2, height: -1).rows().isEmpty)
    }

    @Test func unionMergesDots() {
        var a = BrailleCanvas(width: 1, height: 1)
        var b = BrailleCanvas(width: 1, height: 1)
        a.set(x: 0, y: 0)
        b.set(x: 1, y: 3)
        a.formUnion(b)
        #expect(a.render() == "\u{2881}")
    }
}
