import Dispatch
import Foundation
import Lanes
import LanesAppSupport
import Synchronization

/// Shows how a batch is going on stderr: a redrawn progress bar when stderr is a terminal, one
/// line per finished file otherwise. Failures always get a line of their own. Names and reasons come from
/// file names, URLs and servers, so they are shown through ``TerminalText/sanitized(_:)``: a control character
/// in them never reaches the terminal.
///
/// The bar counts the files in flight by how far along they are (``advanced(_:fraction:)``: rows encoded), and its
/// clock is redrawn by ``tick()`` (every `tickInterval` while a batch runs), so neither stands still while a big file
/// is being worked on. ``close()`` ends the bar's line (on an interrupt) and nothing is drawn after it.
final class ProgressReporter: Sendable {
    struct State: Sendable {
        var total = 0
        var done = 0
        var failed = 0
        var running: [(output: URL, name: String, fraction: Double)] = []
        var start = 0.0
        /// When the last frame was drawn (clock seconds); partial progress redraws at most every `minimumRedraw`.
        var lastFrame = -Double.infinity
    }

    let interactive: Bool
    private let state = LockedValue(State())
    /// Serialises writing to the terminal, so frames never interleave and none follows ``close()``'s. Only the write
    /// (one `write(2)` of a finished string) happens under it: no state is read or changed there.
    private let terminal = LockedValue(Terminal())
    private let write: @Sendable (String) -> Void
    private let clock: @Sendable () -> Double
    private let tickInterval: Duration?
    private let ticker = LockedValue<LaneTimer?>(nil)

    /// Shortest time between two frames drawn for partial progress (finished files and ticks always draw).
    static let minimumRedraw = 0.1

    private struct Terminal {
        var sequence = 0
        var closed = false
    }

    /// A reporter writing to `write` (stderr by default); `interactive` draws the bar. `clock` is in seconds (a
    /// monotonic clock by default; tests pass a virtual one); `tickInterval` is how often the bar is redrawn while a
    /// batch runs (nil: only on events and ``tick()``).
    init(interactive: Bool = isatty(STDERR_FILENO) != 0,
         clock: @escaping @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 },
         tickInterval: Duration? = nil,
         write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        self.interactive = interactive
        self.clock = clock
        self.tickInterval = tickInterval
        self.write = write
    }

    func begin(total: Int) {
        let now = clock()
        let frame = state.withLock { state -> Frame? in
            state.total = total
            state.start = now
            return interactive ? Self.frame(&state, now: now) : nil  // the bar is only drawn on a terminal
        }
        draw(frame)
        if interactive, let tickInterval { startTicking(every: tickInterval) }
    }

    func started(_ job: ImageJob) {
        let now = clock()
        let frame = state.withLock { state -> Frame? in
            state.running.append((job.output, TerminalText.sanitized(job.displayName), 0))
            return interactive ? Self.frame(&state, now: now) : nil
        }
        draw(frame)
    }

    /// `job` is `fraction` (0...1) done: the bar fills by it, redrawn at most every ``minimumRedraw`` seconds.
    func advanced(_ job: ImageJob, fraction: Double) {
        guard interactive else { return }
        let now = clock()
        let frame = state.withLock { state -> Frame? in
            guard let index = state.running.firstIndex(where: { $0.output == job.output }) else { return nil }
            state.running[index].fraction = min(max(fraction, 0), 1)
            guard now - state.lastFrame >= Self.minimumRedraw else { return nil }
            return Self.frame(&state, now: now)
        }
        draw(frame)
    }

    /// Redraws the bar (its clock moves); the ticker calls it every `tickInterval`.
    func tick() {
        guard interactive else { return }
        let now = clock()
        draw(state.withLock { Self.frame(&$0, now: now) })
    }

    /// Reports a finished job: `detail` is a success summary or, for a failure, the reason.
    func finished(_ job: ImageJob, failed: Bool, detail: String) {
        let now = clock()
        let text = state.withLock { state -> Frame in
            state.done += 1
            if failed { state.failed += 1 }
            let name = TerminalText.sanitized(job.displayName)
            if let index = state.running.firstIndex(where: { $0.output == job.output }) { state.running.remove(at: index) }
            let counter = "[\(state.done)/\(state.total)]"
            let detail = TerminalText.sanitized(detail)
            let line = failed ? "\(counter) FAILED \(name): \(detail)" : "\(counter) ok \(name) → \(detail)"
            guard interactive else { return Frame(lines: line + "\n") }
            // On a terminal only failures scroll up; successes just move the bar.
            var bar = Self.frame(&state, now: now)
            if failed { bar.lines = Self.clearLine + line + "\n" }
            return bar
        }
        draw(text)
    }

    /// Clears the bar (on a terminal) so the summary starts on a clean line; nothing is drawn after it.
    func end() {
        closeLine(with: Self.clearLine)
    }

    /// Closes the bar's line for good (an interrupt): clears it, resets attributes and shows the cursor, so what
    /// follows starts on a clean line; nothing is drawn after it. Safe from any thread, more than once. Returns
    /// whether it closed a line (the bar is drawn and was open).
    @discardableResult
    func close() -> Bool {
        closeLine(with: Self.clearLine + Self.resetTerminal)
    }

    @discardableResult
    private func closeLine(with text: String) -> Bool {
        stopTicking()
        guard interactive else { return false }
        return terminal.withLock { terminal in
            guard !terminal.closed else { return false }
            terminal.closed = true
            write(text)
            return true
        }
    }

    /// `\r` + erase line.
    static let clearLine = "\r\u{1B}[2K"
    /// Attributes off, cursor shown.
    static let resetTerminal = "\u{1B}[0m\u{1B}[?25h"

    // MARK: drawing

    /// What to write: `lines` that scroll up (always written), then a bar (skipped when a later one was drawn).
    struct Frame {
        var lines = ""
        var bar = ""
        var sequence = 0
    }

    private static let sequence = Atomic(0)

    private func draw(_ frame: Frame?) {
        guard let frame else { return }
        terminal.withLock { terminal in
            guard !terminal.closed else { return }
            let current = frame.sequence > terminal.sequence
            terminal.sequence = max(terminal.sequence, frame.sequence)
            // After lines, a bar is written even if stale: the next frame replaces it.
            let text = frame.lines + (current || !frame.lines.isEmpty ? frame.bar : "")
            if !text.isEmpty { write(text) }
        }
    }

    /// `[██████░░░░░░]  12/40  2 failed  3.1 s  name`, cut to the terminal's width. Files in flight count by their
    /// fraction. Numbered under the state lock, so a frame computed earlier is never drawn over a later one.
    private static func frame(_ state: inout State, now: Double) -> Frame {
        state.lastFrame = now
        let width = 24
        let progress = Double(state.done) + state.running.reduce(0) { $0 + $1.fraction }
        let filled = state.total == 0 ? 0 : min(width, Int(Double(width) * progress / Double(state.total)))
        var text = "[" + String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled) + "]"
        text += " \(state.done)/\(state.total)"
        if state.failed > 0 { text += "  \(state.failed) failed" }
        text += "  " + String(format: "%.1f s", max(0, now - state.start))
        if let current = state.running.last { text += "  " + current.name }
        let line = clearLine + TerminalText.truncated(text, toWidth: max(10, terminalColumns() - 1))
        return Frame(bar: line, sequence: sequence.add(1, ordering: .relaxed).newValue)
    }

    private static func terminalColumns() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return Int(size.ws_col)
        }
        return 80
    }

    // MARK: ticking

    private func startTicking(every interval: Duration) {
        let timer = LaneTimer.every(interval, leeway: interval / 10, on: nil) { [weak self] in self?.tick() }
        ticker.withLock { ticker in defer { ticker = timer }; return ticker }?.cancel()
    }

    private func stopTicking() {
        ticker.withLock { ticker in defer { ticker = nil }; return ticker }?.cancel()
    }
}
