import Foundation
import LanesTesting
import Testing

/// Drives the real `stocks` binary in a detached tmux session. Skips when tmux or the binary is missing.
@Suite(.timeLimit(.minutes(5)), .heavy) struct TerminalEndToEndTests {
    static let binary: URL? = {
        if let path = ProcessInfo.processInfo.environment["STOCKS_BIN"] { return URL(fileURLWithPath: path) }
        // The test bundle sits in the build's bin directory, next to the products.
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("stocks")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    static let tmux: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    static var available: Bool { binary != nil && tmux != nil }

    @Test(.enabled(if: TerminalEndToEndTests.available, "needs tmux and a built stocks binary"),
          .timeLimit(.minutes(5)))
    func browseAndQuitRestoresTheTerminal() throws {
        let tmux = Tmux(executable: Self.tmux!, socket: "stocks-e2e-\(getpid())")
        try tmux.run(["new-session", "-d", "-x", "100", "-y", "30", "-s", "e2e", "env PS1='e2e$ ' sh"])
        let serverPID = Int32(try tmux.run(["display-message", "-p", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines))
        defer { tmux.shutDown(serverPID: serverPID) }
        try tmux.waitFor("e2e$")
        try tmux.keys([Self.binary!.path + " --synthetic 600 --days 120", "Enter"])
        try tmux.waitFor("Technology")
        #expect(try tmux.run(["display-message", "-p", "-t", "e2e", "#{alternate_on}"]).hasPrefix("1"))
        try tmux.keys(["Enter"])
        try tmux.waitFor("Smoothed + forecast")
        try tmux.waitFor("%")  // rows loaded
        for _ in 0..<6 { try tmux.keys(["PageDown"]) }
        try tmux.keys(["Down", "Enter"])
        let detail = try tmux.waitFor("smoothed (LOESS)")
        #expect(detail.contains("forecast"))
        try tmux.keys(["Escape"])
        // The list's footer is drawn with the rest of the list: wait for it rather than for the header, which a
        // redraw in progress may already show above the old screen's remains.
        let list = try tmux.waitFor("PgUp PgDn")
        #expect(list.contains("Smoothed + forecast"))
        try tmux.keys(["q"])
        // Wait for the app to leave the alternate screen and the shell to prompt again before typing (the app
        // flushes pending input when it restores the terminal).
        try tmux.waitUntil("the shell prompts again") { screen in
            screen.components(separatedBy: "e2e$").count >= 3
                && (try? tmux.run(["display-message", "-p", "-t", "e2e", "#{alternate_on}"]).hasPrefix("0")) == true
        }
        // The shell is back, echoing and running commands: raw mode and the alternate screen were left.
        try tmux.keys(["echo restored-$((20+22))", "Enter"])
        let shell = try tmux.waitFor("restored-42")
        #expect(!shell.contains("PgUp PgDn"))
        #expect(try tmux.run(["display-message", "-p", "-t", "e2e", "#{alternate_on}"]).hasPrefix("0"))
    }
}

/// A tmux server on a private socket.
struct Tmux {
    var executable: String
    var socket: String

    struct Timeout: Error, CustomStringConvertible {
        var expected: String
        var screen: String
        var description: String { "\"\(expected)\" did not appear; screen:\n\(screen)" }
    }

    /// Runs tmux with an empty signal mask (test threads block signals, and a tmux server inheriting that mask
    /// never notices its children) and returns its standard output, read from a temporary file (a pipe would be
    /// held open by the forked server).
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let outputPath = NSTemporaryDirectory() + "stocks-e2e-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).out"
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable, "-L", socket] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard status == 0 else { throw SpawnError(code: status) }
        var exitStatus: Int32 = 0
        while waitpid(pid, &exitStatus, 0) < 0 && errno == EINTR {}
        return (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    struct SpawnError: Error { var code: Int32 }

    func keys(_ keys: [String]) throws {
        try run(["send-keys", "-t", "e2e"] + keys)
    }

    func capture() throws -> String { try run(["capture-pane", "-p", "-t", "e2e"]) }

    /// Polls the pane until `text` shows, for at most `seconds`.
    @discardableResult
    func waitFor(_ text: String, seconds: Double = 20) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var screen = ""
        while Date() < deadline {
            screen = try capture()
            if screen.contains(text) { return screen }
            usleep(20_000)  // polling interval of the capture loop, not a wait for an event
        }
        throw Timeout(expected: text, screen: screen)
    }

    /// Polls the pane until `condition` holds, for at most `seconds`.
    func waitUntil(_ what: String, seconds: Double = 20, _ condition: (String) -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        var screen = ""
        while Date() < deadline {
            screen = try capture()
            if condition(screen) { return }
            usleep(20_000)  // polling interval of the capture loop, not a wait for an event
        }
        throw Timeout(expected: what, screen: screen)
    }

    /// Stops the server; if it does not go (a sanitizer build may hand it a blocked signal mask), kills it.
    func shutDown(serverPID: Int32?) {
        _ = try? run(["kill-server"])
        if let serverPID, serverPID > 0, kill(serverPID, 0) == 0 { _ = kill(serverPID, SIGKILL) }
    }
}
