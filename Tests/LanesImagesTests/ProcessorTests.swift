import LanesImages
import LanesTesting
import Synchronization
import Testing

/// Resize, greyscale, chains, identifiers and cancellation.
@Suite(.timeLimit(.minutes(5)), .heavy) struct ProcessorTests {
    @Test func resizeAveragesAreasExactly() throws {
        // p(x, y) = 10x + 30y + 5: each 2 x 2 block averages to 20i + 60j + 25.
        let input = makeBitmap(width: 6, height: 4) { x, y in
            let v = UInt8(10 * x + 30 * y + 5)
            return RGBA(red: v, green: 255 - v, blue: 7)
        }
        let output = try Resize(width: 3, height: 2).process(input)
        #expect(output.width == 3 && output.height == 2)
        for j in 0..<2 {
            for i in 0..<3 {
                let v = UInt8(20 * i + 60 * j + 25)
                #expect(output[i, j] == RGBA(red: v, green: 255 - v, blue: 7), "block (\(i), \(j))")
            }
        }
    }

    @Test func resizeHandlesFractionalAreas() throws {
        let input = makeBitmap(width: 5, height: 1) { x, _ in RGBA(grey: UInt8(10 * (x + 1))) }
        let output = try Resize(width: 2, height: 1).process(input)
        // [10 20 30 40 50] over 2.5-pixel windows: (10+20+15)/2.5 and (15+40+50)/2.5.
        #expect(output[0, 0] == RGBA(grey: 18))
        #expect(output[1, 0] == RGBA(grey: 42))
    }

    @Test func resizeEnlargesBilinearly() throws {
        let input = makeBitmap(width: 2, height: 1) { x, _ in RGBA(grey: x == 0 ? 0 : 200) }
        let output = try Resize(width: 4, height: 1).process(input)
        #expect((0..<4).map { output[$0, 0].red } == [0, 50, 150, 200])
    }

    @Test func resizeUsesPremultipliedAlpha() throws {
        let input = makeBitmap(width: 2, height: 1) { x, _ in
            x == 0 ? RGBA(red: 255, green: 0, blue: 0) : RGBA(red: 0, green: 255, blue: 0, alpha: 0)
        }
        let output = try Resize(width: 1, height: 1).process(input)
        #expect(output[0, 0] == RGBA(red: 255, green: 0, blue: 0, alpha: 128)) // no green bleeds in
    }

    @Test func resizeKeepsAspectForOneSide() throws {
        let input = Bitmap(width: 451, height: 300, filledWith: .white)
        let byWidth = try Resize(width: 100).process(input)
        #expect(byWidth.width == 100 && byWidth.height == 67)
        let byHeight = try Resize(height: 30).process(input)
        #expect(byHeight.width == 45 && byHeight.height == 30)
        let fitted = try Resize(fitting: TargetSize(maxWidth: 50, maxHeight: 50)).process(input)
        #expect(fitted.width == 50 && fitted.height == 33)
        #expect(byWidth[50, 30] == .white)
    }

    @Test func greyscaleUsesLuma() throws {
        let colours = [RGBA(red: 255, green: 0, blue: 0), RGBA(red: 0, green: 255, blue: 0),
                       RGBA(red: 0, green: 0, blue: 255), RGBA(red: 100, green: 150, blue: 200, alpha: 9), .white]
        let input = makeBitmap(width: colours.count, height: 1) { x, _ in colours[x] }
        let rec601 = try Greyscale().process(input)
        // round(0.299 R + 0.587 G + 0.114 B)
        #expect((0..<5).map { rec601[$0, 0].red } == [76, 150, 29, 141, 255])
        #expect(rec601[3, 0] == RGBA(grey: 141, alpha: 9))
        let rec709 = try Greyscale(coefficients: .rec709).process(input)
        // round(0.2126 R + 0.7152 G + 0.0722 B)
        #expect((0..<5).map { rec709[$0, 0].green } == [54, 182, 18, 143, 255])
    }

    @Test func identifiersAreStableAndIncludeParameters() {
        #expect(GaussianBlur(sigma: 8).identifier == "gaussianBlur(sigma=8.0)")
        #expect(GaussianBlur(sigma: 8).identifier != GaussianBlur(sigma: 8.5).identifier)
        #expect(Resize(width: 200).identifier == "resize(width=200,height=auto)")
        #expect(Resize(width: 200).identifier != Resize(height: 200).identifier)
        #expect(Resize(width: 200, height: 100).identifier != Resize(width: 200, height: 101).identifier)
        #expect(Resize(fitting: TargetSize(maxWidth: 64, maxHeight: 48)).identifier == "resize(fit=64x48)")
        #expect(TiltShift().identifier == "tiltShift(center=0.5,height=0.2,transition=0.25,sigma=6.0)")
        #expect(TiltShift(focusCenter: 0.4).identifier != TiltShift().identifier)
        #expect(TiltShift(sigma: 4).identifier != TiltShift().identifier)
        #expect(Greyscale().identifier != Greyscale(coefficients: .rec709).identifier)
    }

    @Test func chainAppliesInOrderWithCombinedIdentifier() throws {
        let chain = ProcessorChain(Resize(width: 10), Greyscale())
        #expect(chain.identifier == "resize(width=10,height=auto)|greyscale(rec601)")
        #expect(chain.appending(GaussianBlur(sigma: 1)).identifier
            == "resize(width=10,height=auto)|greyscale(rec601)|gaussianBlur(sigma=1.0)")
        #expect(ProcessorChain([]).identifier == "identity")
        let input = noiseBitmap(width: 40, height: 20)
        let expected = try Greyscale().process(Resize(width: 10).process(input))
        #expect(try chain.process(input) == expected)
    }

    static let processors: [any ImageProcessor] = [
        Resize(width: 20), Resize(width: 200), GaussianBlur(sigma: 2), TiltShift(), Greyscale(),
        ProcessorChain(Greyscale(), GaussianBlur(sigma: 1)),
    ]

    @Test(arguments: 0..<6)
    func processorsThrowCancelledWhenAskedUpFront(index: Int) {
        let processor = Self.processors[index]
        #expect(throws: ImageError.cancelled) {
            try processor.process(noiseBitmap(width: 64, height: 64), isCancelled: { true })
        }
    }

    @Test(arguments: 0..<6)
    func processorsCheckCancellationBetweenBands(index: Int) throws {
        let processor = Self.processors[index]
        let checks = CheckCounter(cancelAfter: 2)
        #expect(throws: ImageError.cancelled) {
            try processor.process(noiseBitmap(width: 64, height: 256), isCancelled: { checks.check() })
        }
        #expect(checks.count == 3) // stopped at the first check after cancellation, not at the end
        // And without cancellation the same work completes.
        let done = CheckCounter(cancelAfter: .max)
        _ = try processor.process(noiseBitmap(width: 64, height: 256), isCancelled: { done.check() })
        #expect(done.count > 3)
    }
}

/// Counts `isCancelled` calls and reports cancellation after `cancelAfter` of them.
final class CheckCounter: Sendable {
    private let calls = Mutex(0)
    private let cancelAfter: Int

    init(cancelAfter: Int) {
        self.cancelAfter = cancelAfter
    }

    var count: Int { calls.withLock { $0 } }

    func check() -> Bool {
        calls.withLock { calls in
            calls += 1
            return calls > cancelAfter
        }
    }
}
