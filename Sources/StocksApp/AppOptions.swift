import Foundation
import LanesAppSupport

/// The command line of `stocks`, parsed by hand.
///
/// ```swift
/// let options = try AppOptions(arguments: ["--synthetic", "5000", "--naive"])
/// ```
struct AppOptions: Sendable, Equatable {
    enum DataSource: Sendable, Equatable {
        case bundled
        case directory(String)
        case synthetic(count: Int)
    }

    enum ScriptSource: Sendable, Equatable {
        case demo
        case file(String)
    }

    var data: DataSource = .bundled
    var mode: AppMode = .lanes
    var script: ScriptSource?
    var traceFile: String?
    var syntheticDays = 500
    var seed: UInt64 = 2012
    var screenWidth = 100
    var screenHeight = 30
    var printsScreen = false
    var showsHelp = false

    static let usage = """
        usage: stocks [--data DIR | --synthetic N [--days D] [--seed S]] [--naive]
                      [--demo | --script FILE [--size WxH] [--print-screen]] [--trace FILE]

          --data DIR       load the .csv files in DIR: date,price (one series named after the file),
                           Date,Open,High,Low,Close,Adj Close,... (Yahoo; null rows skipped, named after the file),
                           symbol,date,price or date,SYM1,SYM2,...; dates 2023-01-02, 01/02/2023 (US) or Jan 2 2023
          --synthetic N    N generated tickers of daily prices (fixed seed)
          --naive          do the analysis and chart drawing on the main queue (the 'before')
          --demo           play a built-in script without a terminal and print the responsiveness figures
          --script FILE    play FILE (keys with timings, see KeyScript) the same way
          --size WxH       the virtual screen of --demo/--script (default 100x30)
          --print-screen   also print the last screen of --demo/--script
          --trace FILE     write a Chrome trace (chrome://tracing, Perfetto) of the run, with its hitches;
                           FILE's folder must be writable (checked before the app starts)

        keys: ↑↓/jk move · PgUp/PgDn · Home/End · Enter/→ open · Esc/←/Backspace back · q or Ctrl-C quit
        """

    init() {}

    /// Parses the arguments (without the program name).
    init(arguments: [String]) throws(OptionsError) {
        var iterator = arguments.makeIterator()
        func value(_ flag: String) throws(OptionsError) -> String {
            guard let next = iterator.next() else { throw OptionsError(message: "\(flag) needs a value") }
            return next
        }
        func number(_ flag: String) throws(OptionsError) -> Int {
            let text = try value(flag)
            guard let n = Int(text), n >= 0 else { throw OptionsError(message: "\(flag): not a number: \(text)") }
            return n
        }
        while let argument = iterator.next() {
            switch argument {
            case "--data": data = .directory(try value(argument))
            case "--synthetic": data = .synthetic(count: try number(argument))
            case "--days": syntheticDays = try number(argument)
            case "--seed": seed = UInt64(try number(argument))
            case "--naive": mode = .naive
            case "--demo": script = .demo
            case "--script": script = .file(try value(argument))
            case "--trace": traceFile = try value(argument)
            case "--print-screen": printsScreen = true
            case "--size":
                let text = try value(argument)
                let parts = text.split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2, parts[0] >= 20, parts[1] >= 6 else {
                    throw OptionsError(message: "--size: expected WxH (at least 20x6), got \(text)")
                }
                (screenWidth, screenHeight) = (parts[0], parts[1])
            case "-h", "--help": showsHelp = true
            default:
                if argument.hasPrefix("--trace=") {
                    traceFile = String(argument.dropFirst("--trace=".count))
                } else {
                    throw OptionsError(message: "unknown argument: \(argument)")
                }
            }
        }
    }
}

/// A command line that does not parse. Its description is safe to print: the argument it quotes came from the user
/// (or a script), and a control character in it shows escaped (``TerminalText/sanitized(_:)``), never raw.
struct OptionsError: Error, Sendable, Equatable, CustomStringConvertible {
    var message: String
    var description: String { TerminalText.sanitized(message) }
}
