import Glibc
import NIOCore
import Testing
@testable import MPDServer

/// The listening sockets are closed on exec, so that a process the server starts (a `pipe` output's command, the
/// crash reporter) never keeps the port after the server has gone.
@Suite struct ListeningSocketTests {
    @Test func tcpAndUnixListenersAreClosedOnExec() throws {
        let tcp = try ListeningSocket.make(try SocketAddress(ipAddress: "127.0.0.1", port: 0))
        defer { close(tcp) }
        #expect(fcntl(tcp, F_GETFD) & FD_CLOEXEC != 0)
        let path = "/tmp/nosignal-listen-\(getpid())-\(UInt32.random(in: 0 ... .max)).sock"
        let unix = try ListeningSocket.makeUnix(path: path)
        #expect(fcntl(unix, F_GETFD) & FD_CLOEXEC != 0)
        close(unix)
        // A stale socket file from an earlier run is replaced; a file of another kind is not touched.
        let again = try ListeningSocket.makeUnix(path: path)
        close(again)
        unlink(path)
        let file = creat(path, 0o600)
        #expect(file >= 0)
        close(file)
        #expect(throws: ListeningSocket.Failure.self) { _ = try ListeningSocket.makeUnix(path: path) }
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
        unlink(path)
    }
}
