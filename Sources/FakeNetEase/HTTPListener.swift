import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One parsed HTTP/1.1 request as the fake server sees it.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The request target without the query string.
    public var path: String
    public var query: [String: String]
    /// Header names lower-cased; a repeated header keeps its last value.
    public var headers: [String: String]
    public var body: [UInt8]

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// What a handler answers. `hold` makes the connection stall without answering (the timeout fault).
struct HTTPResponse: Sendable {
    var status: Int
    var headers: [(String, String)] = []
    var body: [UInt8] = []
    var hold = false
    /// Seconds to wait before answering.
    var delay: TimeInterval = 0
    /// Close the connection without answering.
    var disconnect = false
    /// Send the head and only this many body bytes, then close (a download dropped mid-stream).
    var dropAfter: Int?

    static func json(_ text: String, status: Int = 200, headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json;charset=UTF-8")] + headers,
                     body: Array(text.utf8))
    }

    static let reasons: [Int: String] = [
        200: "OK", 206: "Partial Content", 301: "Moved Permanently", 400: "Bad Request", 403: "Forbidden",
        404: "Not Found", 405: "Method Not Allowed", 406: "Not Acceptable", 416: "Range Not Satisfiable",
        500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
    ]
}

/// A small HTTP/1.1 server on 127.0.0.1: plain POSIX sockets, one thread per connection, keep-alive with
/// `Content-Length` bodies. Deliberately not NIO: the fake must stay simple, dependency-free and independent of the
/// code it tests.
final class HTTPListener: @unchecked Sendable {
    typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var stopped = false
    private var clients: Set<Int32> = []

    init(port requested: UInt16, handler: @escaping Handler) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw FakeNetEaseError("socket() failed") }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = requested.bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, 64) == 0 else {
            close(listener)
            throw FakeNetEaseError("cannot listen on 127.0.0.1:\(requested)")
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop(handler) }
    }

    var isStopped: Bool { lock.withLock { stopped } }

    /// Closes the listener and every open connection; stalled handlers notice through `isStopped`.
    ///
    /// The connections are shut down under the lock: a connection thread removes its descriptor under the same
    /// lock before closing it, so every descriptor in `clients` is still this listener's. Outside the lock, a
    /// descriptor closed meanwhile could already be reused by another socket of the process (another test's
    /// server or client), which would then be cut. For the same reason the listening descriptor is only shut
    /// down here (which wakes `accept`) and closed by the accept loop once it no longer uses it.
    func stop() {
        lock.withLock {
            stopped = true
            for client in clients { shutdown(client, Int32(SHUT_RDWR)) }
        }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop(_ handler: @escaping Handler) {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR && !isStopped { continue }
                return
            }
            let accepted: Bool = lock.withLock {
                guard !stopped else { return false }
                clients.insert(client)
                return true
            }
            guard accepted else {
                close(client)
                return
            }
            var yes: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            Thread.detachNewThread { [self] in
                serve(client, handler)
                lock.withLock { _ = clients.remove(client) }
                close(client)
            }
        }
    }

    /// Requests on one connection until the client closes, asks for `Connection: close`, or a fault holds it.
    private func serve(_ client: Int32, _ handler: Handler) {
        var buffer: [UInt8] = []
        while !isStopped {
            guard let request = Self.receive(client, &buffer) else { return }
            let response = handler(request)
            if response.hold {
                let until = Date().addingTimeInterval(120)
                while Date() < until && !isStopped { usleep(20_000) }
                return
            }
            if response.disconnect { return }
            if response.delay > 0 {
                let until = Date().addingTimeInterval(response.delay)
                while Date() < until && !isStopped { usleep(10_000) }
            }
            let close = request.header("connection")?.lowercased() == "close"
            var head = "HTTP/1.1 \(response.status) \(HTTPResponse.reasons[response.status] ?? "Status")\r\n"
            var headers = response.headers
            headers.append(("Content-Length", "\(response.body.count)"))
            headers.append(("Connection", close ? "close" : "keep-alive"))
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            head += "\r\n"
            if let dropAfter = response.dropAfter {
                // The head promises the whole body (Content-Length above); only `dropAfter` bytes of it follow,
                // then a FIN, so the client sees a transfer cut short rather than a complete one.
                let body = request.method == "HEAD" ? [] : Array(response.body.prefix(dropAfter))
                _ = send(client, Array(head.utf8)) && send(client, body)
                shutdown(client, Int32(SHUT_WR))
                return
            }
            guard send(client, Array(head.utf8)),
                  request.method == "HEAD" || send(client, response.body) else { return }
            if close { return }
        }
    }

    private func send(_ client: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count <= 0 { return false }
            sent += count
        }
        return true
    }

    /// Reads one request; `buffer` carries bytes of the next pipelined request over.
    private static func receive(_ client: Int32, _ buffer: inout [UInt8]) -> HTTPRequest? {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let separator = Array("\r\n\r\n".utf8)
        var headEnd = buffer.firstRange(of: separator)?.upperBound
        while headEnd == nil {
            let count = recv(client, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            buffer += chunk[0..<count]
            headEnd = buffer.firstRange(of: separator)?.upperBound
            if buffer.count > 1 << 20 { return nil }
        }
        let lines = String(decoding: buffer[..<(headEnd! - 4)], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = headers["content-length"].flatMap { Int($0) } ?? 0
        // libcurl asks before sending bodies over 1 KiB and would otherwise wait a second for this.
        if headers["expect"]?.lowercased() == "100-continue", buffer.count < headEnd! + length {
            let interim = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
            _ = interim.withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        while buffer.count < headEnd! + length {
            let count = recv(client, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            buffer += chunk[0..<count]
        }
        let body = Array(buffer[headEnd!..<(headEnd! + length)])
        buffer.removeFirst(headEnd! + length)
        let target = String(requestLine[1])
        let pathPart = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(pathPart[0]).removingPercentEncoding ?? String(pathPart[0])
        let query = pathPart.count > 1 ? FormCoding.decode(String(pathPart[1])) : [:]
        return HTTPRequest(method: String(requestLine[0]), path: path, query: query, headers: headers, body: body)
    }
}

/// `application/x-www-form-urlencoded`, as NetEase's clients send it (`+` is a space, so base64 must arrive
/// percent-encoded).
public enum FormCoding {
    public static func decode(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func unescape(_ s: Substring) -> String {
                (String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding) ?? String(s)
            }
            fields[unescape(parts[0])] = parts.count > 1 ? unescape(parts[1]) : ""
        }
        return fields
    }

    /// Percent-encodes everything outside RFC 3986's unreserved set.
    public static func encode(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        func escape(_ s: String) -> String {
            s.unicodeScalars.map { scalar in
                scalar.isASCII && allowed.contains(scalar)
                    ? String(scalar)
                    : String(scalar).utf8.map { String(format: "%%%02X", $0) }.joined()
            }.joined()
        }
        return fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }
}

public struct FakeNetEaseError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
