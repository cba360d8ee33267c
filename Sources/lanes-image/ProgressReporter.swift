import Foundation
import Lanes

/// Shows how a batch is going on stderr: a redrawn progress bar when stderr is a terminal, one
/// line per finished file otherwise. Failures always get a line of their own. Names and reasons come from
/// file names, URLs and servers, so they are shown through ``TerminalText/sanitized(_:)``: a control character
/// in them never reaches the terminal.
final class ProgressReporter: Sendable {
    struct State: Sendable {
        var total = 0
        var done = 0
        var failed = 0
        var running: [String] = []
        var start = Date()
    }

    let interactive: Bool
    private let state = LockedValue(State())
    private let write: @Sendable (String) -> Void

    /// A reporter writing to `write` (stderr by default); `interactive` draws the bar.
    init(interactive: Bool = isatty(STDERR_FILENO) != 0,
         write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        self.interactive = interactive
        self.write = write
    }

    func begin(total: Int) {
        let frame = state.withLock { state -> String? in
            state.total = total
            state.start = Date()
            return interactive ? bar(state) : nil  // the bar is only drawn on a terminal
        }
        if let frame { write(frame) }
    }

    func started(_ job: ImageJob) {
        let frame = state.withLock { state -> String? in
            state.running.append(TerminalText.sanitized(job.displayName))
            return interactive ? bar(state) : nil
        }
        if let frame { write(frame) }
    }

    /// Reports a finished job: `detail` is a success summary or, for a failure, the reason.
    func finished(_ job: ImageJob, failed: Bool, detail: String) {
        let text = state.withLock { state -> String in
            state.done += 1
            if failed { state.failed += 1 }
            let name = TerminalText.sanitized(job.displayName)
            if let index = state.running.firstIndex(of: name) { state.running.remove(at: index) }
            let counter = "[\(state.done)/\(state.total)]"
            let detail = TerminalText.sanitized(detail)
            let line = failed ? "\(counter) FAILED \(name): \(detail)" : "\(counter) ok \(name) → \(detail)"
            guard interactive else { return line + "\n" }
            // On a terminal only failures scroll up; successes just move the bar.
            return failed ? "\r\u{1B}[2K" + line + "\n" + bar(state) : bar(state)
        }
        write(text)
    }

    /// Clears the bar (on a terminal) so the summary starts on a clean line.
    func end() {
        if interactive { write("\r\u{1B}[2K") }
    }

    /// `[██████░░░░░░]  12/40  2 failed  3.1 s  name`, cut to the terminal's width.
    private func bar(_ state: State) -> String {
        let width = 24
        let filled = state.total == 0 ? 0 : width * state.done / state.total
        var text = "[" + String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled) + "]"
        text += " \(state.done)/\(state.total)"
        if state.failed > 0 { text += "  \(state.failed) failed" }
        text += "  " + String(format: "%.1f s", Date().timeIntervalSince(state.start))
        if let current = state.running.last { text += "  " + current }
        return "\r\u{1B}[2K" + TerminalText.truncated(text, toWidth: max(10, Self.terminalColumns() - 1))
    }

    private static func terminalColumns() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return Int(size.ws_col)
        }
        return 80
    }
}
