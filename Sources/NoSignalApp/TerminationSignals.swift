import Foundation

/// SIGINT and SIGTERM, delivered to a Swift closure without losing one.
///
/// A dispatch signal source needs the signal ignored first and registers itself later, on the manager queue: a
/// SIGTERM sent in between (systemd stopping a service that has just said `READY=1`) was dropped and the server
/// served on. Here `sigaction` installs a handler at once; the handler writes the signal's number to a pipe (all
/// it may do), and a thread of its own reads the pipe and calls the closure.
enum TerminationSignals {
    /// The pipe between the handler and the reading thread; made before the handler is installed.
    private static let pipe: (read: Int32, write: Int32) = {
        var fds: [Int32] = [-1, -1]
        guard Glibc.pipe(&fds) == 0 else { return (-1, -1) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }()

    /// Calls `body` with the signal's number for every SIGINT and SIGTERM from now on. Once per process.
    static func handle(_ body: @escaping @Sendable (Int32) -> Void) {
        let readEnd = pipe.read
        guard readEnd >= 0 else { return }
        let reader = Thread {
            var number: UInt8 = 0
            while true {
                let count = read(readEnd, &number, 1)
                if count == 1 { body(Int32(number)) } else if count < 0 && errno == EINTR { continue } else { return }
            }
        }
        reader.name = "signals"
        reader.start()
        for signalNumber in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { received in
                let saved = errno
                var number = UInt8(truncatingIfNeeded: received)
                _ = write(TerminationSignals.pipe.write, &number, 1)
                errno = saved
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signalNumber, &action, nil)
        }
    }
}
