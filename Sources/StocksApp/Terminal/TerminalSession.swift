import Dispatch
import Foundation
import Lanes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The saved terminal settings, restored on every exit path (quit, Ctrl-C, SIGTERM, errors, `exit`).
private let savedTerminal = LockedValue<termios?>(nil)

/// Restores the terminal if it is in raw mode: leaves the alternate screen, shows the cursor, resets colours and
/// the termios settings. Safe to call more than once, and from `atexit`.
func restoreTerminal() {
    guard let saved = savedTerminal.withLock({ value -> termios? in
        defer { value = nil }
        return value
    }) else { return }
    writeAll("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
    var settings = saved
    _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings)
}

/// Writes every byte of `text` to standard output.
func writeAll(_ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeMutableBytes { raw in
            write(STDOUT_FILENO, raw.baseAddress! + offset, raw.count - offset)
        }
        if written <= 0 {
            if written < 0 && errno == EINTR { continue }
            return
        }
        offset += written
    }
}

/// The full-screen terminal: raw mode through termios, the alternate screen, a hidden cursor, the window size,
/// and writing frames (only the rows that changed).
///
/// ```swift
/// let terminal = try TerminalSession.enter()
/// terminal.show(frame)
/// terminal.leave()
/// ```
final class TerminalSession {
    private var previous: Frame?

    /// Whether standard input and output are terminals.
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    /// The terminal's size in cells (80×24 if it cannot be read).
    static var size: (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    private init() {}

    /// Enters raw mode and the alternate screen, and registers the restore for `exit`.
    static func enter() throws -> TerminalSession {
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else {
            throw TerminalError(message: "cannot read the terminal settings (errno \(errno))")
        }
        var raw = original
        // cfmakeraw: no echo, no canonical mode, no signals from keys, no CR/NL translation, 8-bit characters.
        raw.c_iflag &= ~tcflag_t(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
        raw.c_cflag &= ~tcflag_t(CSIZE | PARENB)
        raw.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        savedTerminal.withLock { $0 = original }
        atexit { restoreTerminal() }
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else {
            restoreTerminal()
            throw TerminalError(message: "cannot enter raw mode (errno \(errno))")
        }
        writeAll("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
        return TerminalSession()
    }

    /// Writes the rows of `frame` that differ from the previous frame.
    func show(_ frame: Frame) {
        var output = ""
        for row in 0..<frame.height where frame.rowDiffers(row, from: previous) {
            output += "\u{1B}[\(row + 1);1H" + frame.ansiLine(row)
        }
        previous = frame
        if !output.isEmpty { writeAll(output) }
    }

    /// Forgets the screen's contents so the next frame is written whole (after a resize).
    func invalidate() {
        previous = nil
        writeAll("\u{1B}[0m\u{1B}[2J")
    }

    /// Restores the terminal.
    func leave() { restoreTerminal() }
}

/// A terminal that could not be set up.
struct TerminalError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
