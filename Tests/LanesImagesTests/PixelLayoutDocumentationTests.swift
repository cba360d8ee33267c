import Foundation
import LanesImages
import LanesTesting
import Testing

// The "Grey, 16-bit and transparent images" article's examples, compiled and run, so the docs cannot rot.

@Suite("Pixel layouts documentation examples", .timeLimit(.minutes(5)), .heavy)
struct PixelLayoutDocumentationTests {
    @Test("Grey, 16-bit and transparent images: decode keeping the layout, encode, flatten")
    func article() throws {
        let greyPNG = try ImageEncoder().encode(Bitmap(width: 8, height: 4, filledWith: RGBA(grey: 90), layout: .grey8),
                                                as: .png())
        let sixteenBitPNG = try ImageEncoder().encode(
            Bitmap(width: 8, height: 4, filledWith: RGBA(red: 10, green: 200, blue: 30), layout: .rgba16), as: .png())
        let logo = Bitmap(width: 16, height: 16, filledWith: RGBA(red: 255, green: 0, blue: 0, alpha: 0))
        // --- 1
        let decoder = ImageDecoder(keepsStoredLayout: true)
        let scan = try decoder.decode(greyPNG)                  // .grey8: a quarter of the memory of RGBA
        let deep = try decoder.decode(sixteenBitPNG)            // .rgba16, samples 0...65535
        let png = try ImageEncoder().encode(deep, as: .png())   // still a 16-bit PNG
        // --- 2
        let onWhite = try ImageEncoder().encode(logo, as: .jpeg(quality: 90))                      // white by default
        let onBlack = try ImageEncoder().encode(logo, as: .jpeg(quality: 90, background: .black))
        let flat = logo.converted(to: .grey8, background: .white)    // the same flattening, as a bitmap
        // ---
        #expect(scan.layout == .grey8 && deep.layout == .rgba16)
        #expect(try ImageDecoder().probe(png).bitDepth == 16)
        #expect(try ImageDecoder().decode(onWhite)[8, 8].red >= 252)
        #expect(try ImageDecoder().decode(onBlack)[8, 8].red <= 3)
        #expect(flat.pixels.allSatisfy { $0 == 255 })
    }
}
