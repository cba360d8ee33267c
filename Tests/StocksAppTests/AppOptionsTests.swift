import LanesAppSupport
@testable import StocksApp
import Testing

/// The command line: what parses, and what a bad argument prints.
@Suite struct AppOptionsTests {
    @Test func theFlagsParse() throws {
        let options = try AppOptions(arguments: ["--synthetic", "50", "--days", "90", "--naive", "--demo", "--size", "80x24"])
        #expect(options.data == .synthetic(count: 50))
        #expect(options.syntheticDays == 90)
        #expect(options.mode == .naive)
        #expect(options.script == .demo)
        #expect(options.screenWidth == 80 && options.screenHeight == 24)
    }

    @Test("a control character in a bad argument is printed escaped, never raw", arguments: [
        ["--colour\u{1B}[31m"], ["--synthetic", "5\u{1B}]0;PWNED\u{07}"], ["--size", "80x\u{9B}2J"],
    ])
    func badArgumentsPrintSafely(_ arguments: [String]) {
        #expect(throws: OptionsError.self) { try AppOptions(arguments: arguments) }
        do {
            _ = try AppOptions(arguments: arguments)
        } catch {
            let printed = "\(error)"
            #expect(!printed.unicodeScalars.contains { TerminalText.isUnsafe($0) }, "\(printed.debugDescription)")
            #expect(printed.contains(#"\e"#) || printed.contains(#"\u{9B}"#), "\(printed.debugDescription)")
        }
    }
}
