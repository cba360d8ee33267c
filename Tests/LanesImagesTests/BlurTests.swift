import LanesImages
import LanesTesting
import Testing

/// Gaussian blur and tilt-shift.
@Suite(.timeLimit(.minutes(5)), .heavy) struct BlurTests {
    /// An independent, slow reference: separable Gaussian in Double with clamped edges,
    /// the kernel truncated at ceil(3σ) and normalised.
    static func referenceBlur(_ bitmap: Bitmap, sigma: Double) -> [Double] {
        let radius = Int((3 * sigma).rounded(.up))
        var kernel = (-radius...radius).map { k in exp(-Double(k * k) / (2 * sigma * sigma)) }
        let total = kernel.reduce(0, +)
        kernel = kernel.map { $0 / total }
        let w = bitmap.width, h = bitmap.height
        let input = bitmap.pixels.map(Double.init)
        var horizontal = [Double](repeating: 0, count: input.count)
        for y in 0..<h {
            for x in 0..<w {
                for c in 0..<4 {
                    var sum = 0.0
                    for k in -radius...radius {
                        sum += kernel[k + radius] * input[(y * w + min(max(x + k, 0), w - 1)) * 4 + c]
                    }
                    horizontal[(y * w + x) * 4 + c] = sum
                }
            }
        }
        var output = [Double](repeating: 0, count: input.count)
        for y in 0..<h {
            for x in 0..<w {
                for c in 0..<4 {
                    var sum = 0.0
                    for k in -radius...radius {
                        sum += kernel[k + radius] * horizontal[(min(max(y + k, 0), h - 1) * w + x) * 4 + c]
                    }
                    output[(y * w + x) * 4 + c] = sum
                }
            }
        }
        return output
    }

    @Test(arguments: [(37, 23, 2.5), (300, 12, 1.2), (5, 40, 4.0)])
    func blurMatchesReference(width: Int, height: Int, sigma: Double) throws {
        let input = noiseBitmap(width: width, height: height, opaque: false)
        let output = try GaussianBlur(sigma: sigma).process(input)
        let reference = Self.referenceBlur(input, sigma: sigma)
        var worst = 0.0
        for i in reference.indices {
            worst = max(worst, abs(Double(output.pixels[i]) - reference[i]))
        }
        #expect(worst <= 0.51, "largest difference from the reference: \(worst)")
    }

    @Test(arguments: [(37, 23, 2.5), (300, 12, 1.2), (530, 9, 3.0)])
    func opaqueBlurMatchesReferenceAndStaysOpaque(width: Int, height: Int, sigma: Double) throws {
        let input = noiseBitmap(width: width, height: height, opaque: true)
        let output = try GaussianBlur(sigma: sigma).process(input)
        let reference = Self.referenceBlur(input, sigma: sigma)
        var worst = 0.0
        for i in reference.indices {
            worst = max(worst, abs(Double(output.pixels[i]) - reference[i]))
        }
        #expect(worst <= 0.51, "largest difference from the reference: \(worst)")
        #expect(output.pixels.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 255 })
    }

    /// An opaque image skips its alpha channel; one translucent pixel puts the same image through
    /// the four-channel path. Channels are independent, so red, green and blue must agree exactly.
    @Test func opaqueShortcutGivesTheSameColoursAsTheFullPath() throws {
        for (width, height, sigma) in [(300, 40, 3.0), (7, 5, 1.0), (513, 3, 8.0)] {
            let opaque = noiseBitmap(width: width, height: height, seed: 0xC0FFEE, opaque: true)
            var translucent = opaque
            translucent[width - 1, height - 1] = RGBA(red: opaque[width - 1, height - 1].red,
                                                      green: opaque[width - 1, height - 1].green,
                                                      blue: opaque[width - 1, height - 1].blue, alpha: 0)
            let fast = try GaussianBlur(sigma: sigma).process(opaque)
            let full = try GaussianBlur(sigma: sigma).process(translucent)
            var mismatches = 0
            for i in fast.pixels.indices where i % 4 != 3 && fast.pixels[i] != full.pixels[i] { mismatches += 1 }
            #expect(mismatches == 0, "\(width)x\(height) σ \(sigma)")
            #expect(full[width - 1, height - 1].alpha < 255)   // the translucent one really was blurred as RGBA
            #expect(full[0, 0].alpha == 255)                    // further than 3σ from it
            #expect(fast.pixels.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 255 })
        }
    }

    @Test func tiltShiftOfAnOpaqueImageStaysOpaque() throws {
        let input = noiseBitmap(width: 64, height: 100, opaque: true)
        let output = try TiltShift(focusCenter: 0.5, focusHeight: 0.2, transition: 0.2, sigma: 3).process(input)
        #expect(output.pixels.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 255 })
        #expect(try output[5, 3] == GaussianBlur(sigma: 3).process(input)[5, 3])
    }

    @Test func constantImageStaysConstant() throws {
        let colour = RGBA(red: 13, green: 200, blue: 255, alpha: 77)
        let input = Bitmap(width: 300, height: 31, filledWith: colour)
        for sigma in [0.6, 3.0, 8.0] {
            #expect(try GaussianBlur(sigma: sigma).process(input) == input, "sigma \(sigma)")
        }
    }

    @Test func impulseSpreadsSymmetricallyAndKeepsItsMass() throws {
        let size = 21, centre = 10
        var input = Bitmap(width: size, height: size, filledWith: RGBA(grey: 0, alpha: 0))
        input[centre, centre] = RGBA(grey: 255, alpha: 255)
        let output = try GaussianBlur(sigma: 1.0).process(input)
        var mass = 0
        for y in 0..<size {
            for x in 0..<size {
                let value = Int(output[x, y].red)
                mass += value
                #expect(output[x, y].red == output[2 * centre - x, y].red)  // mirror left-right
                #expect(output[x, y].red == output[x, 2 * centre - y].red)  // mirror top-bottom
                #expect(abs(value - Int(output[y, x].red)) <= 1)            // transpose
            }
        }
        #expect(abs(mass - 255) <= 6, "mass \(mass) should stay ~255 (sum of weights 1)")
        #expect(output[centre, centre].red < 255 && output[centre, centre].red > 30)
        #expect(output[centre + 5, centre].red == 0) // beyond 3σ nothing arrives
    }

    @Test func zeroSigmaIsIdentityAndRadiusFollowsSigma() throws {
        let input = noiseBitmap(width: 9, height: 4)
        #expect(try GaussianBlur(sigma: 0).process(input) == input)
        #expect(GaussianBlur(sigma: 8).radius == 24)
        #expect(GaussianBlur(sigma: 0.2).radius == 1)
    }

    @Test func tiltShiftKeepsTheBandSharpAndBlursTheEdges() throws {
        let input = noiseBitmap(width: 48, height: 100)
        let effect = TiltShift(focusCenter: 0.5, focusHeight: 0.2, transition: 0.2, sigma: 3)
        let output = try effect.process(input)
        // The band (rows 40..<60) is untouched.
        for y in 40..<60 {
            for x in 0..<48 {
                #expect(output[x, y] == input[x, y], "band pixel (\(x), \(y))")
            }
        }
        // Fully blurred edges: far lower variance than the noise they came from.
        func variance(_ bitmap: Bitmap, rows: Range<Int>) -> Double {
            let values = rows.flatMap { y in (0..<48).map { x in Double(bitmap[x, y].green) } }
            let mean = values.reduce(0, +) / Double(values.count)
            return values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)
        }
        #expect(variance(output, rows: 0..<10) < variance(input, rows: 0..<10) / 10)
        #expect(variance(output, rows: 90..<100) < variance(input, rows: 90..<100) / 10)
        // In the transition the blur is partial: between the two.
        let partial = variance(output, rows: 64..<66)
        #expect(partial < variance(input, rows: 64..<66) && partial > variance(output, rows: 90..<100))
        // The top rows are exactly the plain blur.
        let blurred = try GaussianBlur(sigma: 3).process(input)
        #expect(output[5, 3] == blurred[5, 3])
    }

    @Test func tiltShiftMaskIsSmooth() {
        let effect = TiltShift(focusCenter: 0.5, focusHeight: 0.2, transition: 0.2, sigma: 3)
        #expect(effect.blurAmount(row: 50, height: 100) == 0)
        #expect(effect.blurAmount(row: 0, height: 100) == 1)
        let halfway = effect.blurAmount(row: 69, height: 100) // 0.195 past the centre: t = 0.475
        #expect(abs(halfway - 0.475 * 0.475 * (3 - 2 * 0.475)) < 1e-9)
        var previous = 0.0
        for y in 50..<100 {
            let amount = effect.blurAmount(row: y, height: 100)
            #expect(amount >= previous)
            previous = amount
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
