import Foundation

/// A small HTTP server on 127.0.0.1 for the libcurl tests: a thread per connection, one request per connection
/// (`Connection: close`), a handler closure per server. The canned responses below cover what the tests need and
/// `python3 -m http.server` lacks: range requests, ICY framing, connections that drop or stall, redirects.
final class TestHTTPServer: @unchecked Sendable {
    struct Request: Sendable {
        var method: String
        var path: String
        /// Names lower-cased.
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.name == name.lowercased() }?.value
        }

        /// N of `Range: bytes=N-`.
        var rangeStart: Int? {
            guard let range = header("range"), range.hasPrefix("bytes="), range.hasSuffix("-") else { return nil }
            return Int(range.dropFirst(6).dropLast())
        }
    }

    /// The client side of one accepted connection.
    final class Connection: @unchecked Sendable {
        let socket: Int32
        fileprivate let shared: Shared

        fileprivate init(socket: Int32, shared: Shared) {
            self.socket = socket
            self.shared = shared
        }

        @discardableResult
        func send(_ bytes: some Collection<UInt8>) -> Bool {
            let data = Array(bytes)
            var sent = 0
            while sent < data.count {
                let count = data[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count <= 0 { return false }
                sent += count
            }
            return true
        }

        @discardableResult
        func sendHead(_ status: String, _ headers: [(String, String)], version: String = "HTTP/1.1") -> Bool {
            var text = "\(version) \(status)\r\n"
            for (name, value) in headers { text += "\(name): \(value)\r\n" }
            text += "Connection: close\r\n\r\n"
            return send(Array(text.utf8))
        }

        /// Waits (without answering) until the server stops or `seconds` pass.
        func stall(_ seconds: Double = 30) {
            let until = Date().addingTimeInterval(seconds)
            while Date() < until && !shared.isStopped { usleep(20_000) }
        }

        /// Ends the connection with a TCP reset rather than a clean close.
        func reset() {
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        }
    }

    typealias Handler = @Sendable (Request, Connection) -> Void

    /// What the connection threads share with the server object (not the server itself, so it can go away).
    fileprivate final class Shared: @unchecked Sendable {
        private let lock = NSLock()
        private var requests: [Request] = []
        private var stopped = false

        func record(_ request: Request) { lock.withLock { requests.append(request) } }
        var log: [Request] { lock.withLock { requests } }
        var isStopped: Bool { lock.withLock { stopped } }
        func stop() { lock.withLock { stopped = true } }
    }

    let port: UInt16
    private let listener: Int32
    private let shared = Shared()

    init(handler: @escaping Handler) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            close(listener)
            throw ServerError.cannotListen
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        let shared = shared
        Thread.detachNewThread {
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 {
                    if errno == EINTR { continue }
                    return
                }
                Thread.detachNewThread {
                    defer { close(client) }
                    guard let request = Self.receive(client) else { return }
                    shared.record(request)
                    handler(request, Connection(socket: client, shared: shared))
                }
            }
        }
    }

    deinit {
        shared.stop()
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    enum ServerError: Error { case cannotListen }

    /// Every request received so far.
    var requests: [Request] { shared.log }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    private static func receive(_ client: Int32) -> Request? {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let separator = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            let count = recv(client, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            received += chunk[0..<count]
            headEnd = received.firstRange(of: separator)?.upperBound
        }
        let lines = String(decoding: received[..<(headEnd! - 4)], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((line[..<colon].lowercased(),
                            line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var body = Array(received[headEnd!...])
        let length = headers.first { $0.name == "content-length" }.flatMap { Int($0.value) } ?? 0
        while body.count < length {
            let count = recv(client, &chunk, chunk.count, 0)
            if count <= 0 { break }
            body += chunk[0..<count]
        }
        return Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: body)
    }
}

// MARK: Canned responses

extension TestHTTPServer.Connection {
    /// A static file: `Content-Length`, and `Range: bytes=N-` answered with 206 when `ranges` (otherwise the
    /// whole file with 200, as servers that ignore ranges do). With `dropAfter`, the connection ends after that
    /// many body bytes (reset when `hard`).
    func serveFile(_ body: [UInt8], for request: TestHTTPServer.Request, type: String = "application/octet-stream",
                   ranges: Bool = true, dropAfter: Int? = nil, hard: Bool = false) {
        var start = 0
        var headers: [(String, String)] = [("Content-Type", type)]
        if ranges { headers.append(("Accept-Ranges", "bytes")) }
        let status: String
        if ranges, let from = request.rangeStart {
            guard from < body.count else {
                sendHead("416 Range Not Satisfiable", [("Content-Range", "bytes */\(body.count)")])
                return
            }
            start = from
            status = "206 Partial Content"
            headers.append(("Content-Range", "bytes \(from)-\(body.count - 1)/\(body.count)"))
        } else {
            status = "200 OK"
        }
        headers.append(("Content-Length", "\(body.count - start)"))
        guard sendHead(status, headers) else { return }
        let end = dropAfter.map { min(body.count, start + $0) } ?? body.count
        // In pieces, so a client that stops reading is not a problem and a drop happens mid-stream.
        var offset = start
        while offset < end {
            let next = min(end, offset + 16 * 1024)
            guard send(body[offset..<next]) else { return }
            offset = next
        }
        if dropAfter != nil && hard { reset() }
    }

    /// A Shoutcast-style live stream: no length, `icy-name`, and when the client asked (`Icy-MetaData: 1`) a
    /// metadata block after every `interval` audio bytes, carrying `titleAt(offset)` when it changed.
    func serveIcy(_ body: [UInt8], for request: TestHTTPServer.Request, interval: Int, name: String,
                  dropAfter: Int? = nil, version: String = "HTTP/1.1", titleAt: (Int) -> String?) {
        let wantsMetadata = request.header("icy-metadata") == "1"
        var headers: [(String, String)] = [("Content-Type", "audio/mpeg"), ("icy-name", name)]
        if wantsMetadata { headers.append(("icy-metaint", "\(interval)")) }
        guard sendHead("200 OK", headers, version: version) else { return }
        let end = dropAfter.map { min($0, body.count) } ?? body.count
        var offset = 0
        var lastTitle: String?
        while offset < end {
            let next = min(end, offset + interval)
            guard send(body[offset..<next]) else { return }
            offset = next
            guard wantsMetadata, offset % interval == 0 else { continue }
            var block: [UInt8] = []
            if let title = titleAt(offset), title != lastTitle {
                lastTitle = title
                block = Array("StreamTitle='\(title)';StreamUrl='';".utf8)
                block += [UInt8](repeating: 0, count: (16 - block.count % 16) % 16)
            }
            guard send([UInt8(block.count / 16)] + block) else { return }
        }
    }
}
