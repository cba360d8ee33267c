import Foundation
import Lanes
import LanesAppSupport
import LanesTesting
import Testing

/// Drives the real `stocks` binary in tmux on data whose folder name carries an OSC "set title" sequence and whose
/// symbols are CJK: the title must not change and the columns must hold. Skips when tmux or the binary is missing.
@Suite(.timeLimit(.minutes(5)), .heavy) struct HostileDataEndToEndTests {
    @Test(.enabled(if: TerminalEndToEndTests.available, "needs tmux and a built stocks binary"),
          .timeLimit(.minutes(5)))
    func escapeSequencesInDataNeverReachTheTerminal() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("stocks-hostile-\(UUID().uuidString)")
        let data = root.appendingPathComponent("d\u{1B}]0;PWNED\u{07}x")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("date,price\n2023-01-02,10\n2023-01-03,3000\n".utf8).write(to: data.appendingPathComponent("株式会社.csv"))
        try Data("date,price\n2023-01-02,10\n2023-01-03,11\n".utf8).write(to: data.appendingPathComponent("zz.csv"))
        let script = root.appendingPathComponent("run.sh")
        // The script finds the folder itself, so no escape sequence has to be typed into the shell.
        try Data("exec '\(TerminalEndToEndTests.binary!.path)' --data \"$(dirname \"$0\")\"/d*\n".utf8).write(to: script)

        let tmux = Tmux(executable: TerminalEndToEndTests.tmux!, socket: "stocks-hostile-\(getpid())")
        try tmux.run(["new-session", "-d", "-x", "80", "-y", "24", "-s", "e2e", "env PS1='e2e$ ' sh"])
        let serverPID = Int32(try tmux.run(["display-message", "-p", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines))
        defer { tmux.shutDown(serverPID: serverPID) }
        try tmux.waitFor("e2e$")
        let title = try tmux.run(["display-message", "-p", "-t", "e2e", "#{pane_title}"])
        try tmux.keys(["sh '\(script.path)'", "Enter"])
        let categories = try tmux.waitFor("series from")
        #expect(categories.contains(#"from d\e]0;PWNED\x07x"#))
        try tmux.keys(["Enter"])
        let list = try tmux.waitFor("ZZ ")
        #expect(try tmux.run(["display-message", "-p", "-t", "e2e", "#{pane_title}"]) == title)
        #expect(!title.contains("PWNED"))
        // The wide symbol takes two cells per character: its row's price sits in the same column as ZZ's.
        let lines = list.components(separatedBy: "\n")
        func priceColumn(_ symbol: String) -> Int? {
            guard let line = lines.first(where: { $0.contains(symbol) }), let end = line.range(of: ".00 ")
            else { return nil }
            return TerminalText.displayWidth(line[..<end.upperBound])
        }
        #expect(priceColumn("株式会社") != nil && priceColumn("株式会社") == priceColumn("ZZ "))
        try tmux.keys(["q"])
    }
}
