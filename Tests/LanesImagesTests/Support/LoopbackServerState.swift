import Foundation
import Lanes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a ``LoopbackServer`` route answers, and how it misbehaves.
///
/// ```swift
/// server.route("/flaky", LoopbackRoute(body: bytes, failFirst: 2))                  // 500, 500, then 200
/// server.route("/cut", LoopbackRoute(body: bytes, ending: .reset(afterBytes: 10)))  // RST mid-body
/// server.route("/slow", LoopbackRoute(body: bytes, latch: "go"))                    // waits for server.open("go")
/// ```
struct LoopbackRoute: Sendable {
    enum Ending: Sendable {
        /// Send the whole body and close.
        case complete
        /// Send this many body bytes, then close with a reset (SO_LINGER 0).
        case reset(afterBytes: Int)
        /// Send this many body bytes, then close gracefully (FIN): a body cut short of what the head announced.
        case close(afterBytes: Int)
        /// Send this many body bytes, then send nothing more until the client closes or the server stops.
        case stall(afterBytes: Int)
        /// Send zeros as fast as the client takes them, past any `Content-Length`, until it closes.
        case endless
        /// Send the body up to each gate's byte offset, then wait for the test to open its latch before going on
        /// (offsets ascending, within the body); the rest after the last gate.
        case gated([(afterBytes: Int, latch: String)])
    }

    var status = 200
    var body: [UInt8] = []
    var headers: [String: String] = [:]
    /// False to omit `Content-Length` (the body then ends when the connection closes).
    var sendsContentLength = true
    /// Hold the response until the test opens this latch (``LoopbackServer/open(_:)``).
    var latch: String?
    /// The first `failFirst` requests to this path get `failStatus` instead.
    var failFirst = 0
    var failStatus = 500
    var ending: Ending = .complete
    /// Send the body with `Transfer-Encoding: chunked`, in chunks of this many bytes, instead of a `Content-Length`
    /// (an ending's `afterBytes` then counts the bytes on the wire, chunk framing included).
    var chunkSize: Int?
    /// Bytes to send instead of an HTTP response (a server that does not speak HTTP), then close.
    var raw: [UInt8]?

    static let notFound = LoopbackRoute(status: 404, body: Array("no such route".utf8))
}

/// What a ``LoopbackServer`` saw, in order. Connections are numbered from 1 in accept order.
enum LoopbackEvent: Sendable, Equatable {
    case accepted(connection: Int)
    case request(connection: Int, path: String)
    /// Over the request limit: reset without an answer.
    case refused(connection: Int)
    case headersSent(connection: Int)
    /// The whole response was written.
    case responded(connection: Int, status: Int)
    /// The connection was reset mid-body, as the route asked.
    case reset(connection: Int)
    /// The route stopped sending mid-body.
    case stalled(connection: Int)
    /// The client closed (or reset) the connection before the server did.
    case clientClosed(connection: Int)
}

extension Array where Element == LoopbackEvent {
    /// The connections that requested `path`, in order.
    func connections(requesting path: String) -> [Int] {
        compactMap { event in
            if case .request(let connection, path) = event { connection } else { nil }
        }
    }

    /// Whether the client closed connection `connection`.
    func clientClosed(_ connection: Int) -> Bool {
        contains(.clientClosed(connection: connection))
    }
}

/// The server's shared state: routes, counters, connection threads and latches under one lock, and a log of events
/// that waiters can wait on.
final class ServerState: Sendable {
    struct Value {
        var routes: [String: LoopbackRoute] = [:]
        var hits: [String: Int] = [:]
        var totalRequests = 0
        var threads: [pthread_t] = []
        var latches: [String: (reader: Int32, writer: Int32)] = [:]
        var stopping = false
    }

    let events = WaitableLog<LoopbackEvent>()
    private let value = LockedValue(Value())

    func locked<T: Sendable>(_ body: (inout Value) throws -> T) rethrows -> T {
        try value.withLock(body)
    }

    /// Records `event` and wakes the waiters it satisfies.
    func record(_ event: LoopbackEvent) {
        events.append(event)
    }

    /// Counts a request to `path`: its route and which hit on that path it is, or nil if over `limit` in all.
    func admit(path: String, limit: Int) -> (LoopbackRoute, Int)? {
        locked { value in
            value.totalRequests += 1
            value.hits[path, default: 0] += 1
            guard value.totalRequests <= limit else { return nil }
            return (value.routes[path] ?? .notFound, value.hits[path]!)
        }
    }

    /// The pipe behind latch `name` (created on first use); readable once the latch is open.
    func latchPipe(_ name: String) -> (reader: Int32, writer: Int32) {
        locked { value in
            if let pipe = value.latches[name] { return pipe }
            let pipe = (try? LoopbackSocket.makePipe()) ?? (-1, -1)
            value.latches[name] = pipe
            return pipe
        }
    }

    func openLatch(_ name: String) {
        LoopbackSocket.poke(latchPipe(name).writer)
    }

    /// Marks the server stopping; false if it already was. (The latch pipes are closed when the state goes away,
    /// after the threads that read them.)
    func beginStopping() -> Bool {
        locked { value in
            defer { value.stopping = true }
            return !value.stopping
        }
    }

    deinit {
        for (reader, writer) in locked({ $0.latches.values.map { ($0.reader, $0.writer) } }) {
            close(reader)
            close(writer)
        }
    }
}
