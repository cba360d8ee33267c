import Foundation
import Testing
import ScrollOracle

/// The wheel burst's and the Page Down run's glides (`lanes-bench scroll-wheel`, `scroll-pages`).
@Suite struct GlideTests {
    @Test func aGlideReaches99PercentAtItsDurationThenSnapsToItsTarget() {
        let glide = Glide(rows: 18, duration: 0.2, lasting: 0.3)
        #expect(abs(glide.distance(at: 0.2 - 1e-9) - 18 * 0.99) < 1e-6)
        #expect(glide.distance(at: 0.2) == 18)
        #expect(glide.distance(at: 0.25) == 18)
        #expect(glide.distance(at: 0) == 0)
        // Monotone toward the target.
        let samples = stride(from: 0.0, through: 0.2, by: 0.01).map(glide.distance(at:))
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0 < $1 || $1 == 18 })
    }

    @Test func pressesFurtherApartThanTheGlideEachTravelTheirStep() {
        let glides = Glide.run(steps: Array(repeating: 18, count: 5), interval: 0.25, duration: 0.2)
        #expect(glides.count == 5)
        #expect(glides.allSatisfy { $0.rows == 18 })
        #expect(glides.dropLast().allSatisfy { $0.lasting == 0.25 })
        #expect(glides.last?.lasting == 0.2)
    }

    @Test func aBurstReAimsFromWhereTheListIsAndLandsOnTheSumOfItsSteps() {
        let steps: [Double] = Array(repeating: 3, count: 12) + Array(repeating: -3, count: 4)
        let glides = Glide.run(steps: steps, interval: 0.03, duration: 0.2)
        var position = 0.0
        var target = 0.0
        for (glide, step) in zip(glides, steps) {
            target += step
            // Each glide aims at the target as it is after its click, from where the previous one left the list.
            #expect(abs(position + glide.rows - target) < 1e-9)
            position += glide.distance(at: glide.lasting)
        }
        #expect(abs(position - 24) < 1e-9)
        // Cut short, a glide leaves part of its way to the next one (which so goes further than its own click).
        #expect(glides[1].rows > 3)
        // The reversal's first glide has the forward clicks' remainder to take off its own step.
        #expect(glides[12].rows > -3 && glides[12].rows < glides[11].rows - 2)
    }
}
