/// A scripted session: keys with timings, to drive the app without a terminal (`--script FILE`, `--demo`).
///
/// One step per line; `#` starts a comment:
///
/// ```
/// wait 300            # pause 300 ms
/// enter               # a key (up down pageup pagedown home end enter esc q ctrl-c, or one character)
/// pagedown x20 @15    # 20 times, 15 ms apart
/// idle                # wait (at most 10 s) until no work is in flight
/// resize 120x40       # the virtual screen changes size
/// ```
///
/// ```swift
/// let script = try KeyScript(parsing: "enter\nwait 200\ndown x10 @20\nq")
/// ```
struct KeyScript: Sendable, Equatable {
    /// One step.
    enum Step: Sendable, Equatable {
        case key(Key)
        case wait(milliseconds: Int)
        case idle
        case resize(width: Int, height: Int)
    }

    /// A script line that does not parse.
    struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        var line: Int
        var text: String
        var description: String { "line \(line): cannot parse \"\(text)\"" }
    }

    var steps: [Step]

    /// Parses a script.
    init(parsing text: String) throws(ParseError) {
        var steps: [Step] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
            guard let first = words.first else { continue }
            let error = ParseError(line: index + 1, text: String(raw))
            switch first {
            case "wait":
                guard words.count == 2, let ms = Int(words[1]), ms >= 0 else { throw error }
                steps.append(.wait(milliseconds: ms))
            case "idle":
                steps.append(.idle)
            case "resize":
                let size = words.count == 2 ? words[1].split(separator: "x").compactMap { Int($0) } : []
                guard size.count == 2, size[0] > 0, size[1] > 0 else { throw error }
                steps.append(.resize(width: size[0], height: size[1]))
            default:
                guard let key = Key(name: first) else { throw error }
                var count = 1, gap = 0
                for word in words.dropFirst() {
                    if word.hasPrefix("x"), let n = Int(word.dropFirst()), n > 0 {
                        count = n
                    } else if word.hasPrefix("@"), let ms = Int(word.dropFirst()), ms >= 0 {
                        gap = ms
                    } else {
                        throw error
                    }
                }
                for repetition in 0..<count {
                    if repetition > 0 && gap > 0 { steps.append(.wait(milliseconds: gap)) }
                    steps.append(.key(key))
                }
            }
        }
        self.steps = steps
    }

    /// The built-in `--demo`: open a category, fling through it, open a stock, go back, open another category,
    /// fling again, quit.
    static let demo: KeyScript = {
        let text = """
            wait 300
            down x2 @80
            enter
            idle
            pagedown x12 @25      # fling: rows leave the screen before their charts finish
            wait 200
            pageup x4 @40
            down x3 @60
            idle
            enter                 # the detail chart
            idle
            wait 300
            esc
            end
            wait 200
            esc
            down @80
            enter
            idle
            pagedown x20 @15
            idle
            wait 300
            """
        // The demo script is a constant; it parses.
        return (try? KeyScript(parsing: text)) ?? KeyScript(steps: [])
    }()

    /// A script of steps.
    init(steps: [Step]) {
        self.steps = steps
    }
}
