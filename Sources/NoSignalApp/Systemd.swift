import Foundation
import Glibc
import Logging

/// What systemd gives a service and expects of it, without libsystemd (`sd_listen_fds(3)`, `sd_notify(3)`,
/// `systemd.exec(5)`): the listening sockets of a `.socket` unit, readiness and status notifications for
/// `Type=notify`, and a journal that stamps each line itself.
public enum Systemd {
    /// The listening sockets systemd passed (`LISTEN_PID` is this process, `LISTEN_FDS` sockets from descriptor 3),
    /// each made close-on-exec so that no child (a `pipe` output) keeps them; empty when there are none. The
    /// variables are removed, as `sd_listen_fds(1)` does, so children do not take the sockets for theirs.
    public static func listeningSockets(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> [CInt]
    {
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == getpid(),
              let count = environment["LISTEN_FDS"].flatMap(Int32.init), count > 0, count < 1024 else { return [] }
        return (0..<count).map { 3 + $0 }.filter { fd in
            guard fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 else { return false }
            var type: CInt = 0
            var length = socklen_t(MemoryLayout<CInt>.size)
            var listening: CInt = 0
            var listeningLength = socklen_t(MemoryLayout<CInt>.size)
            return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 && type == CInt(SOCK_STREAM.rawValue)
                && getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &listeningLength) == 0 && listening != 0
        }
    }

    /// Whether a socket is a unix-domain one (its clients are local, MPD's `local_permissions`).
    public static func isUnixSocket(_ fd: CInt) -> Bool {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return result == 0 && address.ss_family == sa_family_t(AF_UNIX)
    }

    /// Sends `message` (`READY=1`, `STOPPING=1`, `STATUS=…`, lines joined by `\n`) to `NOTIFY_SOCKET` when systemd
    /// set one (a path, or `@name` in the abstract namespace); nothing otherwise. Never fails the caller.
    public static func notify(_ message: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let target = environment["NOTIFY_SOCKET"], !target.isEmpty,
              target.hasPrefix("/") || target.hasPrefix("@") else { return }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(target.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.enumerated() { bytes[index] = byte }
        }
        let fd = socket(AF_UNIX, CInt(SOCK_DGRAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        var text = Array(message.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                sendto(fd, &text, text.count, CInt(MSG_NOSIGNAL), address, length)
            }
        }
    }

    /// Whether standard error goes to the journal (`JOURNAL_STREAM` names its device and inode): then lines carry
    /// a priority prefix instead of our own timestamp, which the journal adds.
    public static func logsToJournal(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let stream = environment["JOURNAL_STREAM"], let colon = stream.firstIndex(of: ":"),
              let device = UInt64(stream[..<colon]), let inode = UInt64(stream[stream.index(after: colon)...]) else {
            return false
        }
        var info = stat()
        return fstat(STDERR_FILENO, &info) == 0 && UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}

/// Log lines for the journal: `<priority>label: message [metadata]`, no timestamp (the journal has one), the
/// priority as syslog numbers it, so `journalctl -p warning` filters.
public struct JournalLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String
    private let write: @Sendable (String) -> Void

    public init(label: String, write: @escaping @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data(line.utf8))
    }) {
        self.label = label
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let extra = merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            .joined(separator: " ")
        // A message of several lines stays one journal entry per line, each with the priority.
        for line in "\(event.message)\(extra)".split(separator: "\n", omittingEmptySubsequences: false) {
            write("<\(Self.priority(event.level))>\(label): \(line)\n")
        }
    }

    /// syslog's numbers: 2 critical, 3 error, 4 warning, 5 notice, 6 info, 7 debug.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
