import Testing
@testable import StocksApp

@Suite(.timeLimit(.minutes(5))) struct KeyDecoderTests {
    private func keys(_ bytes: [UInt8]) -> [Key] {
        var decoder = KeyDecoder()
        return decoder.decode(bytes)
    }

    @Test func arrowsInCSIAndSS3Forms() {
        #expect(keys([0x1B, 0x5B, 0x41, 0x1B, 0x5B, 0x42, 0x1B, 0x5B, 0x43, 0x1B, 0x5B, 0x44]) == [.up, .down, .right, .left])
        #expect(keys([0x1B, 0x4F, 0x41, 0x1B, 0x4F, 0x42]) == [.up, .down])
    }

    @Test func pageKeysHomeEnd() {
        #expect(keys(Array("\u{1B}[5~\u{1B}[6~\u{1B}[H\u{1B}[F\u{1B}[1~\u{1B}[4~".utf8))
                == [.pageUp, .pageDown, .home, .end, .home, .end])
    }

    @Test func enterEscQuitAndCtrlC() {
        #expect(keys([0x0D]) == [.enter])
        #expect(keys([0x0A]) == [.enter])
        #expect(keys([0x1B]) == [.escape])
        #expect(keys([0x71]) == [.character("q")])
        #expect(keys([0x03]) == [.interrupt])
        #expect(keys([0x1B, 0x71]) == [.escape, .character("q")])
    }

    @Test func sequenceSplitAcrossReadsIsKept() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B, 0x5B, 0x36]) == [])
        #expect(decoder.decode([0x7E, 0x6A]) == [.pageDown, .character("j")])
    }

    @Test func unknownSequencesAndUTF8() {
        #expect(keys(Array("\u{1B}[99~".utf8)) == [.unknown(Array("\u{1B}[99~".utf8))])
        #expect(keys(Array("é".utf8)) == [.character("é")])
    }

    @Test func scriptNamesRoundTrip() {
        for key in [Key.up, .down, .pageUp, .pageDown, .home, .end, .enter, .escape, .interrupt, .character("q")] {
            #expect(Key(name: key.description) == key)
        }
        #expect(Key(name: "nonsense") == nil)
    }
}
