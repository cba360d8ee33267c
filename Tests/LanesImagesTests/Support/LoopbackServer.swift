import Foundation
import Lanes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for fetch tests, on POSIX sockets and threads of its own. Each connection
/// carries one request and is closed after it (`Connection: close`). Routes say what to answer and how to misbehave:
/// wait for the test to open a latch, fail the first N requests, reset the connection mid-body, or stall after the
/// headers. Every request, response and connection end is recorded as a ``LoopbackEvent``, so a test can wait —
/// with a safety timeout — for "the server saw the client close the connection".
///
/// Bounded: it refuses requests beyond `maxRequests` (reset at once), every wait inside it gives up after
/// `safetyTimeout`, and ``stop()`` (also run by `deinit`) wakes all its threads — a write to a client that stopped
/// reading waits in `poll` too, never in `send` — and returns at once: a thread of its own joins them and closes
/// every socket, so a test's `defer { server.stop() }` never blocks one of Swift's executor threads.
///
/// ```swift
/// let server = try LoopbackServer()
/// defer { server.stop() }
/// server.route("/a.png", LoopbackRoute(body: [1, 2, 3]))
/// let url = server.url("/a.png")   // http://127.0.0.1:PORT/a.png
/// ```
final class LoopbackServer: Sendable {
    private let core: LoopbackServerCore

    init(maxRequests: Int = 32, safetyTimeout: Double = 300) throws {
        core = try LoopbackServerCore(maxRequests: maxRequests, safetyTimeout: safetyTimeout)
    }

    /// Stops the server if the test did not (its threads hold only the core, so this runs).
    deinit { core.stop() }

    var port: Int { core.port }

    /// The URL of `path` on this server.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(core.port)\(path)")!
    }

    /// Serves `route` at `path` (replacing any earlier route there).
    func route(_ path: String, _ route: LoopbackRoute) { core.state.locked { $0.routes[path] = route } }

    /// Opens the latch `name`: responses waiting on it proceed, now and later.
    func open(_ name: String) { core.state.openLatch(name) }

    /// Everything recorded so far, in order.
    var events: [LoopbackEvent] { core.state.events.elements }

    /// How many requests reached `path`.
    func requestCount(_ path: String) -> Int { core.state.locked { $0.hits[path] ?? 0 } }

    /// Suspends until `predicate` holds for the recorded events (true), or `timeout` seconds pass (false).
    func waitUntil(timeout: Double = 180, _ predicate: @escaping @Sendable ([LoopbackEvent]) -> Bool) async -> Bool {
        await core.state.events.waitUntil(timeout: timeout, predicate)
    }

    /// Stops without blocking: wakes every thread (waiting, stalled, writing or accepting); they end within moments,
    /// and a thread of its own joins them and closes every socket. Idempotent.
    func stop() { core.stop() }
}

/// The sockets, threads and state of a ``LoopbackServer``. Its threads capture only this, never the server.
final class LoopbackServerCore: Sendable {
    let port: Int
    let maxRequests: Int
    let safetyTimeout: Double
    private let listener: Int32
    /// Written once by ``stop()`` and never drained: every poll that includes it wakes up for good.
    private let wakeReader: Int32
    private let wakeWriter: Int32
    let state: ServerState
    /// Set once the accept thread runs, taken once to join it.
    private let acceptThread = LockedValue<pthread_t?>(nil)

    init(maxRequests: Int = 32, safetyTimeout: Double = 300) throws {
        (listener, port) = try LoopbackSocket.makeListener()
        (wakeReader, wakeWriter) = try LoopbackSocket.makePipe()
        self.maxRequests = maxRequests
        self.safetyTimeout = safetyTimeout
        self.state = ServerState()
        let thread = try LoopbackSocket.spawn { [self] in acceptLoop() }
        acceptThread.withLock { $0 = thread }
    }

    /// Stops: wakes every thread (waiting, stalled, writing or accepting) and returns; a thread of its own joins
    /// them, then closes every socket. The caller may be a test task on one of Swift's executor threads (a
    /// `defer { server.stop() }`), which must never block. Idempotent.
    func stop() {
        guard state.beginStopping() else { return }
        LoopbackSocket.poke(wakeWriter)
        let acceptThread = acceptThread.withLock { $0.take() }
        let reaper = Thread { [self] in
            if let acceptThread { LoopbackSocket.join(acceptThread) }
            // The accept loop has ended, so no connection thread starts after this snapshot.
            for thread in state.locked({ state in defer { state.threads = [] }; return state.threads }) {
                LoopbackSocket.join(thread)
            }
            close(listener)
            close(wakeReader)
            close(wakeWriter)
        }
        reaper.start()
    }

    // MARK: Threads

    private func acceptLoop() {
        var nextConnection = 0
        while true {
            guard LoopbackSocket.wait(for: listener, wake: [wakeReader], timeout: .infinity) == .readable else { return }
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { continue }
            #if canImport(Darwin)
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            nextConnection += 1
            let connection = nextConnection
            state.record(.accepted(connection: connection))
            do {
                let thread = try LoopbackSocket.spawn { [self] in serve(fd, connection: connection) }
                state.locked { $0.threads.append(thread) }
            } catch {
                LoopbackSocket.reset(fd)
            }
        }
    }

    /// Answers one request on `fd` as its route says, then closes `fd`.
    private func serve(_ fd: Int32, connection: Int) {
        var socketOpen = true
        defer { if socketOpen { close(fd) } }
        guard let path = readRequestPath(fd, connection: connection) else { return }
        let admission = state.admit(path: path, limit: maxRequests)
        state.record(.request(connection: connection, path: path))
        guard let (route, hit) = admission else {
            state.record(.refused(connection: connection))
            LoopbackSocket.reset(fd)
            socketOpen = false
            return
        }
        if let latch = route.latch, !awaitLatch(latch, fd: fd, connection: connection) { return }
        if hit <= route.failFirst {
            let body = Array("failure \(hit) of \(route.failFirst)".utf8)
            write(fd, Self.head(status: route.failStatus, length: body.count, headers: [:]) + body)
            state.record(.responded(connection: connection, status: route.failStatus))
            return
        }
        if let raw = route.raw {
            write(fd, raw)
            state.record(.responded(connection: connection, status: 0))
            return
        }
        var headers = route.headers
        var wire = route.body
        if let chunkSize = route.chunkSize {
            headers["Transfer-Encoding"] = "chunked"
            wire = Self.chunked(route.body, size: chunkSize)
        }
        let length = route.sendsContentLength && route.chunkSize == nil ? route.body.count : nil
        guard write(fd, Self.head(status: route.status, length: length, headers: headers)) else {
            state.record(.clientClosed(connection: connection))
            return
        }
        state.record(.headersSent(connection: connection))
        switch route.ending {
        case .complete:
            let delivered = write(fd, wire)
            state.record(delivered ? .responded(connection: connection, status: route.status)
                                   : .clientClosed(connection: connection))
        case .reset(let afterBytes):
            write(fd, Array(wire.prefix(afterBytes)))
            LoopbackSocket.reset(fd)
            socketOpen = false
            state.record(.reset(connection: connection))
        case .close(let afterBytes):
            write(fd, Array(wire.prefix(afterBytes)))
            state.record(.responded(connection: connection, status: route.status))
        case .gated(let gates):
            var sent = 0
            for gate in gates {
                guard write(fd, Array(wire[sent..<gate.afterBytes])) else {
                    return state.record(.clientClosed(connection: connection))
                }
                sent = gate.afterBytes
                guard awaitLatch(gate.latch, fd: fd, connection: connection) else { return }
            }
            let delivered = write(fd, Array(wire[sent...]))
            state.record(delivered ? .responded(connection: connection, status: route.status)
                                   : .clientClosed(connection: connection))
        case .endless:
            let zeros = [UInt8](repeating: 0, count: 64 * 1024)
            while write(fd, zeros) {}
            state.record(.clientClosed(connection: connection))
        case .stall(let afterBytes):
            write(fd, Array(wire.prefix(afterBytes)))
            state.record(.stalled(connection: connection))
            // Until the client closes, or the server stops (no safety timeout here: stop() always ends it).
            awaitClientEnd(fd, connection: connection, timeout: .infinity)
        }
    }

    /// Reads the request head and returns its path, or nil if the client closed (or stalled) first.
    private func readRequestPath(_ fd: Int32, connection: Int) -> String? {
        var received: [UInt8] = []
        let end = Array("\r\n\r\n".utf8)
        while received.count < 64 * 1024 {
            guard LoopbackSocket.wait(for: fd, wake: [wakeReader], timeout: safetyTimeout) == .readable else {
                return nil
            }
            guard let chunk = LoopbackSocket.read(fd) else {
                state.record(.clientClosed(connection: connection))
                return nil
            }
            received += chunk
            if received.count >= end.count, received.indices.dropLast(end.count - 1).contains(where: {
                received[$0..<($0 + end.count)].elementsEqual(end)
            }) {
                let requestLine = String(decoding: received.prefix { $0 != 13 }, as: UTF8.self)
                let parts = requestLine.split(separator: " ")
                return parts.count >= 2 ? String(parts[1]) : "/"
            }
        }
        return nil
    }

    /// Waits until the client closes its end (end of file or reset: recorded), the server stops, or `timeout` passes.
    /// Waits until the test opens `latch`: true then; false when the server is stopping, the client gave up (or went
    /// away) meanwhile, or the safety timeout passed.
    private func awaitLatch(_ latch: String, fd: Int32, connection: Int) -> Bool {
        let (latchReader, _) = state.latchPipe(latch)
        switch LoopbackSocket.wait(for: latchReader, wake: [wakeReader, fd], timeout: safetyTimeout) {
        case .readable:
            return true
        case .woken:
            awaitClientEnd(fd, connection: connection, timeout: safetyTimeout)
            return false
        case .timedOut:
            return false
        }
    }

    private func awaitClientEnd(_ fd: Int32, connection: Int, timeout: Double) {
        while LoopbackSocket.wait(for: fd, wake: [wakeReader], timeout: timeout) == .readable {
            if LoopbackSocket.read(fd) == nil {
                state.record(.clientClosed(connection: connection))
                return
            }
        }
    }

    /// Writes `bytes` to the client; false if it went away, stopped reading for the safety timeout, or the server
    /// is stopping.
    @discardableResult
    private func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        LoopbackSocket.write(fd, bytes, wake: [wakeReader], timeout: safetyTimeout)
    }

    /// `body` framed as a chunked transfer: hex sizes, chunks of `size` bytes, the last (empty) chunk.
    private static func chunked(_ body: [UInt8], size: Int) -> [UInt8] {
        var wire: [UInt8] = []
        var offset = 0
        while offset < body.count {
            let end = min(body.count, offset + max(1, size))
            wire += Array("\(String(end - offset, radix: 16))\r\n".utf8) + body[offset..<end] + Array("\r\n".utf8)
            offset = end
        }
        return wire + Array("0\r\n\r\n".utf8)
    }

    private static func head(status: Int, length: Int?, headers: [String: String]) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(status < 400 ? "OK" : "Error")\r\nConnection: close\r\n"
        if let length { text += "Content-Length: \(length)\r\n" }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        return Array((text + "\r\n").utf8)
    }
}
