import Dispatch
import Foundation
import Lanes
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The temporary files being written right now (`.NAME.png.UUID.tmp` beside each output), so that an interrupted run
/// can remove them before it exits. A file is listed from just before it is created until it has been renamed into
/// place or removed.
///
/// Once ``removeAll()`` has run (the process is exiting on a signal) the list is closed: a writer that starts after
/// it is refused, so it creates nothing.
final class LiveTemporaryFiles: Sendable {
    static let shared = LiveTemporaryFiles()

    private struct Contents {
        var paths: Set<String> = []
        var closed = false
    }

    private let contents = LockedValue(Contents())

    /// The run was interrupted: no new temporary file may be started.
    struct Interrupted: Error, CustomStringConvertible {
        var description: String { "interrupted" }
    }

    /// Lists `url` before it is created; throws ``Interrupted`` once the process is exiting.
    func add(_ url: URL) throws {
        let added = contents.withLock { contents -> Bool in
            guard !contents.closed else { return false }
            contents.paths.insert(url.path)
            return true
        }
        if !added { throw Interrupted() }
    }

    /// `url` was renamed into place or removed.
    func remove(_ url: URL) {
        _ = contents.withLock { $0.paths.remove(url.path) }
    }

    /// The paths listed now (tests).
    var paths: Set<String> { contents.withLock { $0.paths } }

    /// Closes the list and removes every file on it; returns how many existed.
    @discardableResult
    func removeAll() -> Int {
        let paths = contents.withLock { contents -> Set<String> in
            contents.closed = true
            return contents.paths
        }
        return paths.filter { unlink($0) == 0 }.count
    }

    /// Writes through ``AtomicFile`` with the temporary file listed while it exists.
    func write<Result>(to url: URL, _ fill: (URL) throws -> Result) throws -> Result {
        var listed: URL?
        defer { if let listed { remove(listed) } }  // after the rename or the removal, never before
        return try AtomicFile.write(to: url) { temporary in
            try add(temporary)
            listed = temporary
            return try fill(temporary)
        }
    }
}

/// SIGINT and SIGTERM during a run: remove the temporary files being written, say so, and exit with 128 + the signal
/// (130, 143), as a shell expects. The signals are handled on a dispatch queue (not in a signal handler), so the
/// cleanup may take locks and allocate.
enum InterruptCleanup {
    private static let installed = LockedValue(false)
    private static let closers = LockedValue<[@Sendable () -> Bool]>([])

    /// Runs `close` on an interrupt, before the message is written: the progress bar closes its line there. It
    /// returns whether it ended a line on the terminal (then the message needs no newline of its own).
    static func onInterrupt(_ close: @escaping @Sendable () -> Bool) {
        closers.withLock { $0.append(close) }
    }

    static func install(files: LiveTemporaryFiles = .shared) {
        guard installed.withLock({ installed in defer { installed = true }; return !installed }) else { return }
        let queue = DispatchQueue(label: "lanes-image signals")
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)  // delivered to the source instead of ending the process
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            // The handler holds its source: it stays installed for the life of the process.
            source.setEventHandler { [source] in
                _ = source
                let removed = files.removeAll()
                let closedALine = closers.withLock { $0 }.map { $0() }.contains(true)
                let name = signalNumber == SIGINT ? "interrupted" : "terminated"
                let note = removed == 0 ? "" : "; removed \(removed) unfinished output\(removed == 1 ? "" : "s")"
                FileHandle.standardError.write(Data("\(closedALine ? "" : "\n")lanes-image: \(name)\(note)\n".utf8))
                _exit(128 + signalNumber)
            }
            source.resume()
        }
    }
}
