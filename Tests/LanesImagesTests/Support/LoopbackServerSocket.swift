import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin POSIX helpers for ``LoopbackServer``: a listening socket on 127.0.0.1, polling with a wake-up descriptor,
/// reads and writes that never raise SIGPIPE nor block in `send`, an abortive close, and joinable threads.
enum LoopbackSocket {
    enum Failure: Error, CustomStringConvertible {
        case call(String, Int32)
        var description: String {
            if case .call(let name, let code) = self { return "\(name) failed: \(String(cString: strerror(code)))" }
            return "socket failure"
        }
    }

    /// A TCP socket (closed on exec where the platform can say so at creation).
    private static func makeSocket() throws -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure.call("socket", errno) }
        return fd
    }

    /// A TCP socket listening on 127.0.0.1 at a port the kernel picks: (descriptor, port).
    static func makeListener() throws -> (Int32, Int) {
        let fd = try makeSocket()
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { close(fd); throw Failure.call("bind", errno) }
        guard listen(fd, 64) == 0 else { close(fd); throw Failure.call("listen", errno) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { close(fd); throw Failure.call("getsockname", errno) }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A client socket connected to 127.0.0.1:`port` (tests that play a client which misbehaves).
    static func connect(port: Int) throws -> Int32 {
        let fd = try makeSocket()
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Glibc)
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #else
                Darwin.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #endif
            }
        }
        guard connected == 0 else { close(fd); throw Failure.call("connect", errno) }
        return fd
    }

    /// A pipe: (read end, write end).
    static func makePipe() throws -> (Int32, Int32) {
        var ends: [Int32] = [0, 0]
        let status = ends.withUnsafeMutableBufferPointer { pipe($0.baseAddress!) }
        guard status == 0 else { throw Failure.call("pipe", errno) }
        return (ends[0], ends[1])
    }

    enum Readiness { case readable, woken, timedOut }

    /// Waits until `fd` is readable (or hung up) — or, with `events: POLLOUT`, has room to write — any of `wake` is
    /// readable, or `timeout` seconds pass. (`.readable` stands for "ready" either way.)
    static func wait(for fd: Int32, events: Int32 = Int32(POLLIN), wake: [Int32], timeout: Double) -> Readiness {
        var fds = [pollfd(fd: fd, events: Int16(events), revents: 0)]
        fds += wake.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let deadline = Date().addingTimeInterval(timeout.isFinite ? timeout : 0)
        while true {
            let remaining = timeout.isFinite ? Int32(max(0, deadline.timeIntervalSinceNow * 1000).rounded(.up)) : -1
            let count = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), remaining) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return .timedOut }
            if fds.dropFirst().contains(where: { $0.revents != 0 }) { return .woken }
            return .readable
        }
    }

    /// Reads what is there (at most `limit` bytes): nil at end of file or on error (a reset).
    static func read(_ fd: Int32, limit: Int = 4096) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: limit)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            return Array(buffer[0..<count])
        }
    }

    #if os(Linux)
    private static let noSignal = Int32(MSG_NOSIGNAL)
    #else
    private static let noSignal: Int32 = 0  // Darwin: SO_NOSIGPIPE is set on accepted sockets instead
    #endif
    private static let dontWait = Int32(MSG_DONTWAIT)

    /// Writes all of `bytes` without ever blocking in `send`: when the socket's buffer is full it waits (poll) for
    /// room, so a client that stops reading holds the thread only until any of `wake` is readable (the server stops)
    /// or `timeout` seconds pass. False if the peer went away, or the wait ended either way.
    @discardableResult
    static func write(_ fd: Int32, _ bytes: [UInt8], wake: [Int32], timeout: Double) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, noSignal | dontWait) }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                let room = wait(for: fd, events: Int32(POLLOUT), wake: wake, timeout: timeout)
                guard room == .readable else { return false }
                continue
            }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    /// Writes one byte to a pipe (`send` works on sockets only).
    static func poke(_ fd: Int32) {
        var byte: UInt8 = 1
        #if canImport(Glibc)
        while Glibc.write(fd, &byte, 1) < 0, errno == EINTR {}
        #else
        while Darwin.write(fd, &byte, 1) < 0, errno == EINTR {}
        #endif
    }

    /// Closes with SO_LINGER 0: the peer gets a reset (RST) instead of an orderly end of stream.
    static func reset(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        close(fd)
    }

    /// Starts a thread running `body`; join it with ``join(_:)``.
    static func spawn(_ body: @escaping @Sendable () -> Void) throws -> pthread_t {
        final class Box: Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Box>.fromOpaque(context).release()
            throw Failure.call("pthread_create", status)
        }
        return thread
    }

    static func join(_ thread: pthread_t) {
        pthread_join(thread, nil)
    }
}
