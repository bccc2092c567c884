import Glibc
import NIOCore

/// Listening sockets made here rather than by SwiftNIO, for one property: close-on-exec. A process the server
/// starts — a `pipe` output's command, the Swift runtime's crash reporter — would otherwise inherit the listening
/// socket and keep the port bound after the server is gone, so that a restart fails with "Address already in use".
enum ListeningSocket {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let backlog: Int32 = 256

    /// A bound, listening, non-blocking socket for `address`, closed on exec. `dualStack` accepts IPv4 on an
    /// IPv6 socket (`bind_to_address "any"`).
    static func make(_ address: SocketAddress, dualStack: Bool = false) throws -> CInt {
        let family: CInt
        switch address {
        case .v4: family = AF_INET
        case .v6: family = AF_INET6
        case .unixDomainSocket: family = AF_UNIX
        }
        let fd = socket(family, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue) | CInt(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw failure("cannot create a socket for \(address)") }
        do {
            var on: CInt = 1
            if family != AF_UNIX, setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<CInt>.size)) != 0 {
                throw failure("cannot set SO_REUSEADDR on \(address)")
            }
            if family == AF_INET6 {
                var only: CInt = dualStack ? 0 : 1
                _ = setsockopt(fd, CInt(IPPROTO_IPV6), IPV6_V6ONLY, &only, socklen_t(MemoryLayout<CInt>.size))
            }
            let bound = address.withSockAddr { pointer, size in bind(fd, pointer, socklen_t(size)) }
            guard bound == 0 else { throw failure("cannot bind to \(address)") }
            guard listen(fd, backlog) == 0 else { throw failure("cannot listen on \(address)") }
            return fd
        } catch {
            close(fd)
            throw error
        }
    }

    /// A unix socket at `path`, replacing a stale socket file left by an earlier run (never another kind of file).
    static func makeUnix(path: String) throws -> CInt {
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK { unlink(path) }
        return try make(try SocketAddress(unixDomainSocketPath: path))
    }

    private static func failure(_ message: String) -> Failure {
        Failure(description: "\(message): \(String(cString: strerror(errno)))")
    }
}
