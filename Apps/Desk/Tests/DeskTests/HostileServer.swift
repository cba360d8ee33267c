import Foundation
import Synchronization

/// A loopback HTTP server for the hostile URL list, on a thread of its own: each path answers one way a server can
/// stall or lie. `/stall/...` reads the request and never answers; `/short/...` announces 5,000 bytes and closes after
/// 100; `/html/...` sends an error page with status 200; `/ok/...` sends `png`; anything else is a 404.
final class HostileServer: Sendable {
    let port: Int
    private let listener: Int32
    private let png: Data
    /// Connections kept open (the stalled ones), closed by `stop()`.
    private let held = Mutex<[Int32]>([])

    init(png: Data) throws {
        self.png = png
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(listener, socketAddress, length) == 0 && listen(listener, 64) == 0
                    && getsockname(listener, socketAddress, &length) == 0
            }
        }
        guard bound else { throw CocoaError(.fileWriteUnknown) }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in serve() }.start()
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Stops accepting and closes every connection still open.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for connection in held.withLock({ held in defer { held = [] }; return held }) { close(connection) }
    }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            answer(connection)
        }
    }

    private func answer(_ connection: Int32) {
        var request = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return _ = close(connection) }
            request += buffer[..<count]
        }
        let line = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self)
        let path = line.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        func send(_ head: String, _ body: Data) {
            let bytes = Data(head.utf8) + body
            _ = bytes.withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        if path.hasPrefix("/stall/") {
            held.withLock { $0.append(connection) }
            return
        }
        if path.hasPrefix("/short/") {
            send("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 5000\r\n\r\n", png.prefix(100))
        } else if path.hasPrefix("/html/") {
            let page = Data("<!doctype html><html><body>Sorry, not here</body></html>\n".utf8)
            send("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: \(page.count)\r\nConnection: close\r\n\r\n", page)
        } else if path.hasPrefix("/ok/") {
            send("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: \(png.count)\r\nConnection: close\r\n\r\n", png)
        } else {
            send("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", Data())
        }
        close(connection)
    }
}
