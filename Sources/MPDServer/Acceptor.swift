import CSocket
import Glibc
import Logging
import NIOCore

/// Accepts the connections of a listening socket on a thread of its own and hands each one's descriptor on (to one
/// of the server's own loops, `SocketLoop`).
///
/// The thread waits in `poll` for the listening socket and an `eventfd` that `stop` writes; it accepts until the
/// socket has nothing more, then waits again. Out of descriptors it waits a tenth of a second before it tries again,
/// as MPD's `ServerSocket` does (the pending connection stays in the backlog meanwhile).
final class Acceptor: Sendable {
    /// The listening socket's address, for the log and systemd's status line.
    let address: SocketAddress?
    private let socket: CInt
    private let wake: CInt
    private let finished: EventLoopPromise<Void>

    /// Starts accepting on `socket` (listening, non-blocking; closed when the acceptor stops). `serve` takes each
    /// accepted socket (connected, non-blocking, closed on exec); it runs on the accepting thread.
    init(socket: CInt, group: any EventLoopGroup, logger: Logger,
         serve: @escaping @Sendable (CInt) -> Void) throws {
        // Non-blocking whoever made it (systemd passes blocking ones): `accept4` runs until the backlog is empty.
        let flags = fcntl(socket, F_GETFL)
        if flags >= 0, flags & O_NONBLOCK == 0 { _ = fcntl(socket, F_SETFL, flags | O_NONBLOCK) }
        let wake = eventfd(0, O_CLOEXEC) // EFD_CLOEXEC is O_CLOEXEC
        guard wake >= 0 else { throw ListeningSocket.Failure(description: "cannot make an eventfd: \(errno)") }
        self.socket = socket
        self.wake = wake
        self.address = Self.localAddress(of: socket)
        finished = group.next().makePromise()
        let finished = finished
        let loop = Loop(socket: socket, wake: wake, logger: logger, serve: serve)
        _ = try startThread("the thread that accepts connections") {
            loop.run()
            close(socket)
            close(wake)
            finished.succeed()
        }
    }

    /// Stops accepting; `done` completes once the thread has closed the socket.
    func stop() {
        var one: UInt64 = 1
        _ = write(wake, &one, MemoryLayout<UInt64>.size)
    }

    var done: EventLoopFuture<Void> { finished.futureResult }

    /// What the accepting thread does.
    private struct Loop: Sendable {
        let socket: CInt
        let wake: CInt
        let logger: Logger
        let serve: @Sendable (CInt) -> Void

        func run() {
            var fds = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            var failing = false
            while true {
                guard poll(&fds, 2, -1) >= 0 else {
                    if errno == EINTR { continue }
                    logger.error("cannot wait for connections: \(String(cString: strerror(errno)))")
                    return
                }
                if fds[1].revents != 0 { return }
                if fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                    logger.error("the listening socket failed; no more connections are accepted on it")
                    return
                }
                acceptWaiting(failing: &failing)
            }
        }

        /// Accepts until the backlog is empty. `failing`: the last accept failed (and was logged).
        private func acceptWaiting(failing: inout Bool) {
            while true {
                let fd = accept4(socket, nil, nil, CInt(SOCK_CLOEXEC.rawValue) | CInt(SOCK_NONBLOCK.rawValue))
                if fd >= 0 {
                    failing = false
                    hand(fd)
                    continue
                }
                switch errno {
                case EAGAIN, EWOULDBLOCK:
                    return
                case EINTR, ECONNABORTED, EPROTO:
                    continue
                default:
                    // EMFILE, ENFILE, ENOBUFS, ENOMEM: the connection waits in the backlog. Said once a spell.
                    if !failing { logger.warning("cannot accept a connection: \(String(cString: strerror(errno)))") }
                    failing = true
                    usleep(100_000)
                    return
                }
            }
        }

        private func hand(_ fd: CInt) {
            // As SwiftNIO did: no Nagle delay for a TCP connection (the call fails harmlessly on a unix socket).
            var on: CInt = 1
            _ = setsockopt(fd, CInt(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<CInt>.size))
            serve(fd)
        }
    }

    private static func localAddress(of socket: CInt) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        guard got == 0 else { return nil }
        func read<Address>(_ type: Address.Type) -> Address {
            withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: type, capacity: 1) { $0.pointee } }
        }
        switch CInt(storage.ss_family) {
        case AF_INET:
            return SocketAddress(read(sockaddr_in.self), host: "")
        case AF_INET6:
            return SocketAddress(read(sockaddr_in6.self), host: "")
        case AF_UNIX:
            let path = withUnsafeBytes(of: read(sockaddr_un.self).sun_path) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            return try? SocketAddress(unixDomainSocketPath: path)
        default:
            return nil
        }
    }
}

/// Runs `body` on a new detached thread (a `pthread`: this module does without Foundation) and returns it; `what` names
/// the thread in the error.
func startThread(_ what: String, _ body: @escaping @Sendable () -> Void) throws -> pthread_t {
    final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    var thread = pthread_t()
    let argument = Unmanaged.passRetained(Body(body)).toOpaque()
    let created = pthread_create(&thread, nil, { argument in
        Unmanaged<Body>.fromOpaque(argument!).takeRetainedValue().run()
        return nil
    }, argument)
    guard created == 0 else {
        Unmanaged<Body>.fromOpaque(argument).release()
        throw ListeningSocket.Failure(description: "cannot start \(what): \(created)")
    }
    pthread_detach(thread)
    return thread
}
