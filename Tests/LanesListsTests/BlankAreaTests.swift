import LanesLists
import Testing

/// `BlankArea`: FlashList's cumulative and maximum blank area and React Native's any/mostly-blank time, each frame
/// lasting until the next.
@Suite("Blank area", .timeLimit(.minutes(5)))
struct BlankAreaTests {
    @Test("cumulative and worst share of blank row-frames; time with any and with most rows blank")
    func figures() {
        var blank = BlankArea()
        blank.frame(at: 0.000, blank: 10, visible: 10)   // lasts 10 ms: all blank
        blank.frame(at: 0.010, blank: 3, visible: 10)    // lasts 20 ms: some blank
        blank.frame(at: 0.030, blank: 0, visible: 10)    // lasts 40 ms: none
        blank.frame(at: 0.070, blank: 6, visible: 10)    // the last: lasts what it is told, 16 ms
        let figures = blank.figures(lastFrameLasting: 0.016)
        #expect(figures.frames == 4)
        #expect(abs(figures.percent - 47.5) < 1e-9)   // 19 of 40 row-frames
        #expect(abs(figures.maxPercent - 100) < 1e-9)
        #expect(abs(figures.anyBlankMilliseconds - 46) < 1e-9)     // 10 + 20 + 16
        #expect(abs(figures.mostlyBlankMilliseconds - 26) < 1e-9)  // 10 + 16
    }

    @Test("nothing counted: zeros; a frame with no rows is counted but never blank; figures do not consume the last frame")
    func empty() {
        var blank = BlankArea()
        let none = blank.figures(lastFrameLasting: 0.016)
        #expect(none.percent == 0 && none.maxPercent == 0 && none.anyBlankMilliseconds == 0 && none.frames == 0)
        blank.frame(at: 1, blank: 0, visible: 0)
        blank.frame(at: 2, blank: 5, visible: 3)   // clamped: no more blank rows than visible ones
        let once = blank.figures(lastFrameLasting: 0.5)
        #expect(once == blank.figures(lastFrameLasting: 0.5))
        #expect(once.percent == 100 && once.anyBlankMilliseconds == 500 && once.frames == 2)
    }
}
