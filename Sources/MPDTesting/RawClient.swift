#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A deliberately dumb MPD client: one blocking TCP socket, raw bytes in, raw lines out.
///
/// It does not quote, escape or validate anything, so tests can send exactly the bytes a broken
/// client would (CRLF, NUL, overlong lines, invalid UTF-8), and it reports what the server did in
/// protocol terms (a complete response, an ACK, a close, or silence) instead of throwing. Every
/// wait is bounded by a deadline; nothing here can block forever.
public final class RawClient {
    /// How a read ended.
    public enum End: Sendable, Equatable {
        /// A line `OK` (possibly after `list_OK` lines).
        case ok
        /// A line starting with `ACK `.
        case ack
        /// The server closed the connection (EOF or reset) before a complete response.
        case closed
        /// Nothing completed the response before the deadline.
        case timeout
    }

    /// One response as received. `lines` are the raw lines without their `\n`, including the final
    /// `OK` or `ACK …` line. A `binary: N` chunk is kept as its header line followed by one
    /// synthetic line `<N bytes fnv1a=XXXXXXXX>`; an unterminated last line is kept as received.
    public struct Response: Sendable, Equatable {
        public var lines: [[UInt8]]
        public var end: End

        public init(lines: [[UInt8]], end: End) {
            self.lines = lines
            self.end = end
        }
    }

    public struct ConnectError: Error, CustomStringConvertible {
        public let description: String
    }

    public let port: UInt16
    private var fd: Int32
    private var buffer: [UInt8] = []
    private var bufferStart = 0
    /// Set once a read saw EOF or a reset; never set by a failed send, so that the moment a close
    /// is noticed depends only on what the script reads, not on timing.
    public private(set) var isClosed = false

    /// Connects to `127.0.0.1:port`. Does not read the greeting (see `readLine`).
    public init(port: UInt16, timeout: Double = 3) throws {
        self.port = port
        let fd = socket(AF_INET, streamSocketType, 0)
        guard fd >= 0 else { throw ConnectError(description: "socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        // Loopback connects complete or fail at once, but bound it anyway.
        var sendTimeout = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            posixClose(fd)
            throw ConnectError(description: "connect to 127.0.0.1:\(port) failed: errno \(code)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        self.fd = fd
    }

    deinit { close() }

    /// Closes the client side. Safe to call more than once.
    public func close() {
        if fd >= 0 {
            posixClose(fd)
            fd = -1
        }
        isClosed = true
    }

    /// Sends the bytes as they are. A failure (the server already closed) is ignored on purpose:
    /// the next read reports `<closed>`, which keeps transcripts independent of send timing.
    public func send(_ bytes: [UInt8]) {
        guard fd >= 0 else { return }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { raw in
                posixSend(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += sent
        }
    }

    /// Sends `line` followed by `\n`.
    public func send(line: String) {
        send(Array(line.utf8) + [0x0A])
    }

    /// Reads one line (without its `\n`). Returns nil on EOF or timeout; `isClosed` tells which.
    public func readLine(timeout: Double) -> [UInt8]? {
        let deadline = Deadline(seconds: timeout)
        switch nextLine(deadline: deadline) {
        case .line(let line): return line
        default: return nil
        }
    }

    /// Reads one full response: lines up to `OK` or an `ACK …` line, honouring `binary: N` chunks.
    public func readResponse(timeout: Double) -> Response {
        let deadline = Deadline(seconds: timeout)
        var lines: [[UInt8]] = []
        while true {
            switch nextLine(deadline: deadline) {
            case .line(let line):
                lines.append(line)
                if line == RawClient.okLine { return Response(lines: lines, end: .ok) }
                if line.starts(with: RawClient.ackPrefix) { return Response(lines: lines, end: .ack) }
                if let count = RawClient.binaryLength(line) {
                    guard let chunk = readBytes(count + 1, deadline: deadline) else {
                        return Response(lines: lines, end: isClosed ? .closed : .timeout)
                    }
                    let payload = chunk.prefix(count)
                    lines.append(Array("<\(count) bytes fnv1a=\(RawClient.fnv1a(payload))>".utf8))
                    if chunk.last != 0x0A {
                        lines.append(Array("<missing newline after binary chunk>".utf8))
                    }
                }
            case .partial(let bytes):
                lines.append(bytes)
                return Response(lines: lines, end: .closed)
            case .closed:
                return Response(lines: lines, end: .closed)
            case .timeout:
                return Response(lines: lines, end: .timeout)
            }
        }
    }

    /// Collects whatever arrives within `timeout` (for "the server must stay silent" checks).
    /// Stops early when the server closes. Returns the complete lines plus any unterminated rest.
    public func readAvailable(timeout: Double) -> (lines: [[UInt8]], closed: Bool) {
        let deadline = Deadline(seconds: timeout)
        var lines: [[UInt8]] = []
        while true {
            switch nextLine(deadline: deadline) {
            case .line(let line): lines.append(line)
            case .partial(let bytes): return (lines + [bytes], true)
            case .closed: return (lines, true)
            case .timeout:
                if bufferStart < buffer.count {
                    lines.append(Array(buffer[bufferStart...]))
                    bufferStart = buffer.count
                }
                return (lines, false)
            }
        }
    }

    // MARK: - Reading

    static let okLine: [UInt8] = Array("OK".utf8)
    static let ackPrefix: [UInt8] = Array("ACK ".utf8)
    static let binaryPrefix: [UInt8] = Array("binary: ".utf8)

    static func binaryLength(_ line: [UInt8]) -> Int? {
        guard line.starts(with: binaryPrefix) else { return nil }
        let digits = line.dropFirst(binaryPrefix.count)
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), digits.count < 12 else { return nil }
        return Int(String(decoding: digits, as: UTF8.self))
    }

    static func fnv1a<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var hash: UInt32 = 2_166_136_261
        for byte in bytes {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }

    private enum LineResult {
        case line([UInt8])
        case partial([UInt8])
        case closed
        case timeout
    }

    private func nextLine(deadline: Deadline) -> LineResult {
        var searchFrom = bufferStart
        while true {
            if let newline = buffer[searchFrom...].firstIndex(of: 0x0A) {
                let line = Array(buffer[bufferStart..<newline])
                bufferStart = newline + 1
                compact()
                return .line(line)
            }
            searchFrom = buffer.count
            switch fill(deadline: deadline) {
            case .data: continue
            case .eof:
                if bufferStart < buffer.count {
                    let rest = Array(buffer[bufferStart...])
                    bufferStart = buffer.count
                    return .partial(rest)
                }
                return .closed
            case .timeout: return .timeout
            }
        }
    }

    private func readBytes(_ count: Int, deadline: Deadline) -> [UInt8]? {
        while buffer.count - bufferStart < count {
            switch fill(deadline: deadline) {
            case .data: continue
            case .eof, .timeout: return nil
            }
        }
        let bytes = Array(buffer[bufferStart..<(bufferStart + count)])
        bufferStart += count
        compact()
        return bytes
    }

    private func compact() {
        if bufferStart > 65_536 || bufferStart == buffer.count {
            buffer.removeFirst(bufferStart)
            bufferStart = 0
        }
    }

    private enum FillResult { case data, eof, timeout }

    private func fill(deadline: Deadline) -> FillResult {
        guard fd >= 0, !isClosed else { return .eof }
        while true {
            let remaining = deadline.remainingMilliseconds
            var pollDescriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pollDescriptor, 1, Int32(max(0, remaining)))
            if ready < 0 {
                if errno == EINTR { continue }
                isClosed = true
                return .eof
            }
            if ready == 0 { return .timeout }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                return .data
            }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            isClosed = true
            return .eof
        }
    }
}

/// A monotonic deadline.
struct Deadline {
    let end: UInt64

    init(seconds: Double) {
        end = Deadline.now() + UInt64(max(0, seconds) * 1_000_000_000)
    }

    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    var remainingMilliseconds: Int {
        let now = Deadline.now()
        return now >= end ? 0 : Int((end - now + 999_999) / 1_000_000)
    }

    var hasPassed: Bool { Deadline.now() >= end }
}

// MARK: - Small portability shims (the harness targets Linux; these keep the names unambiguous).

#if canImport(Glibc)
let streamSocketType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
func posixClose(_ fd: Int32) { _ = Glibc.close(fd) }
func posixSend(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
    Glibc.send(fd, buffer, count, flags)
}
#elseif canImport(Darwin)
let streamSocketType = SOCK_STREAM
let MSG_NOSIGNAL: Int32 = 0
func posixClose(_ fd: Int32) { _ = Darwin.close(fd) }
func posixSend(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
    Darwin.send(fd, buffer, count, flags)
}
#endif
