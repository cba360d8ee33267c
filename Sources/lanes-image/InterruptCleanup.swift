import Dispatch
import Foundation
import Lanes
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The temporary files being written right now (`.NAME.png.UUID.tmp` beside each output), so that an interrupted run
/// can remove them before it exits. A file is created and listed at once, under the list's lock, and stays listed until
/// it has been renamed into place or removed; writers open it without `O_CREAT`.
///
/// Once ``removeAll()`` has run (the process is exiting on a signal) the list is closed: a writer that starts after
/// it is refused, so it creates nothing, and one whose file was just removed cannot open it again.
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

    /// Creates `url`, empty, and lists it, in one step under the lock (a file created between ``removeAll()`` and the
    /// exit would be left behind); throws ``Interrupted`` once the process is exiting, or why it cannot be created.
    func add(_ url: URL) throws {
        let created = contents.withLock { contents -> Int32? in // nil: closed; else 0 or errno
            guard !contents.closed else { return nil }
            let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            guard descriptor >= 0 else { return errno }
            close(descriptor)
            contents.paths.insert(url.path)
            return 0
        }
        guard let created else { throw Interrupted() }
        if created != 0 { throw POSIXError(POSIXErrorCode(rawValue: created) ?? .EIO) }
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
            do {
                try add(temporary)
            } catch let error as POSIXError { // the folder is gone or not writable: say so for the output
                throw WriteError(path: url.path, reason: String(cString: strerror(error.code.rawValue)))
            }
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
