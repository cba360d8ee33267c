@testable import lanes_image
import Testing

@Suite("lanes-image --resize", .timeLimit(.minutes(5)))
struct ResizeSpecTests {
    @Test("800x600, 800x and x600 parse; nonsense does not")
    func parsing() {
        let both = ResizeSpec(parsing: "800x600")
        #expect(both?.width == 800 && both?.height == 600)
        let width = ResizeSpec(parsing: "800x")
        #expect(width?.width == 800 && width?.height == nil)
        let height = ResizeSpec(parsing: "X600")
        #expect(height?.width == nil && height?.height == 600)
        for bad in ["", "x", "800", "0x10", "-5x", "axb", "800x600x2"] {
            #expect(ResizeSpec(parsing: bad) == nil, "\(bad)")
        }
    }
}
