import Foundation
import Glibc

/// A small blocking MPD client (one command at a time, `key: value` answers), for tools that run beside the server.
/// It finds the server as `mpc` does: `MPD_HOST` (`password@host`, a host, or a socket path) and `MPD_PORT`.
final class MPDLineClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    struct Target: Equatable {
        var host: String
        var port: Int
        var password: String?

        /// `MPD_HOST`/`MPD_PORT` as mpc reads them; localhost:6600 by default.
        static func from(environment: [String: String], host: String? = nil, port: Int? = nil) -> Target {
            var name = host ?? environment["MPD_HOST"] ?? "localhost"
            var password: String?
            if let at = name.lastIndex(of: "@"), !name.hasPrefix("@") {
                password = String(name[..<at])
                name = String(name[name.index(after: at)...])
            }
            return Target(host: name, port: port ?? environment["MPD_PORT"].flatMap(Int.init) ?? 6600,
                          password: password)
        }
    }

    private let fd: CInt
    private var buffer: [UInt8] = []

    init(_ target: Target) throws {
        if target.host.hasPrefix("/") {
            fd = socket(AF_UNIX, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let path = Array(target.host.utf8)
            guard path.count < MemoryLayout.size(ofValue: address.sun_path) else {
                close(fd)
                throw Failure(description: "socket path too long")
            }
            withUnsafeMutableBytes(of: &address.sun_path) { bytes in
                for (index, byte) in path.enumerated() { bytes[index] = byte }
            }
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard result == 0 else {
                close(fd)
                throw Failure(description: "cannot connect to \(target.host): \(String(cString: strerror(errno)))")
            }
        } else {
            var hints = addrinfo()
            hints.ai_socktype = CInt(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(target.host, String(target.port), &hints, &list) == 0, let first = list else {
                throw Failure(description: "cannot resolve \(target.host)")
            }
            defer { freeaddrinfo(list) }
            var entry: UnsafeMutablePointer<addrinfo>? = first
            var connected: CInt = -1
            while let info = entry, connected < 0 {
                let candidate = socket(info.pointee.ai_family, info.pointee.ai_socktype | CInt(SOCK_CLOEXEC.rawValue),
                                       info.pointee.ai_protocol)
                if candidate >= 0 {
                    if connect(candidate, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 {
                        connected = candidate
                    } else {
                        close(candidate)
                    }
                }
                entry = info.pointee.ai_next
            }
            guard connected >= 0 else {
                throw Failure(description: "cannot connect to \(target.host):\(target.port)")
            }
            fd = connected
        }
        let greeting = try line()
        guard greeting.hasPrefix("OK MPD ") else {
            close(fd)
            throw Failure(description: "not an MPD server: \(greeting)")
        }
        if let password = target.password { _ = try command("password \(Self.quote(password))") }
    }

    deinit { close(fd) }

    /// Sends one command line and returns its `key: value` pairs; an ACK becomes a `Failure`.
    func command(_ text: String) throws -> [(key: String, value: String)] {
        try send(text + "\n")
        var pairs: [(key: String, value: String)] = []
        while true {
            let answer = try line()
            if answer == "OK" { return pairs }
            if answer.hasPrefix("ACK ") { throw Failure(description: answer) }
            if answer.hasPrefix("binary: "), let count = Int(answer.dropFirst(8)) {
                pairs.append(("binary", ""))
                let bytes = try read(count + 1)
                pairs[pairs.count - 1].value = Data(bytes.dropLast()).base64EncodedString()
                continue
            }
            guard let colon = answer.range(of: ": ") else { continue }
            pairs.append((String(answer[..<colon.lowerBound]), String(answer[colon.upperBound...])))
        }
    }

    static func quote(_ argument: String) -> String {
        "\"" + argument.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private func send(_ text: String) throws {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, CInt(MSG_NOSIGNAL)) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw Failure(description: "connection lost") }
            offset += written
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw Failure(description: "connection lost") }
            buffer += chunk[..<count]
            return
        }
    }

    private func line() throws -> String {
        while true {
            if let end = buffer.firstIndex(of: 0x0A) {
                let text = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeSubrange(...end)
                return text
            }
            try fill()
        }
    }

    private func read(_ count: Int) throws -> [UInt8] {
        while buffer.count < count { try fill() }
        let bytes = Array(buffer[..<count])
        buffer.removeSubrange(..<count)
        return bytes
    }
}
