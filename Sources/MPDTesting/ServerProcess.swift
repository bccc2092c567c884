import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which server a `ServerProcess` runs.
public enum ServerKind: String, Sendable, CustomStringConvertible {
    /// Real MPD (Debian's `mpd`), the oracle.
    case mpd
    /// NoSignal, the binary built by `swift build`.
    case nosignal

    public var description: String { self == .mpd ? "MPD" : "NoSignal" }
}

public struct ServerStartError: Error, CustomStringConvertible {
    public let description: String
}

/// One server instance on a free loopback port, in its own temporary directory (music, playlists,
/// database, state, HOME), with a generated MPD-syntax configuration.
///
/// `start` returns only once the port answers with `OK MPD ` and no database update is running, so
/// a script never sees the startup scan. `stop` sends SIGTERM, escalates to SIGKILL after a timeout
/// and removes the directory; it runs from `deinit` too, so a failing test cannot leak a server.
public final class ServerProcess: @unchecked Sendable {
    public let kind: ServerKind
    public let port: UInt16
    public let directory: URL
    public let configText: String
    /// The music directory the server was configured with.
    public let musicDirectory: String

    private let lock = NSLock()
    private var pid: pid_t?
    private var exitStatus: Int32?
    private var savedLog: String?

    /// Extra configuration lines are appended after the generated ones; `${dir}` in them stands
    /// for the instance's temporary directory. `musicDirectory` replaces the instance's own empty
    /// music folder (a shared, read-only tree such as `TestLibrary.musicDirectory()`); `start` then
    /// returns once the initial scan of it is over (`update --wait` semantics). With
    /// `copyMusic`, the server gets a private copy of that tree instead (`cp -a`, times kept), which a
    /// script may change (`!sh`).
    public static func start(_ kind: ServerKind, extraConfig: [String] = [], musicDirectory: String? = nil,
                             copyMusic: Bool = false,
                             timeout: Double? = nil) throws -> ServerProcess {
        let timeout = timeout ?? DifferentialRunner.environmentDouble("DIFF_START_TIMEOUT") ?? 20
        let executable = try executablePath(for: kind)
        var lastError: (any Error)?
        // A free port can be taken by someone else between probing and binding; retry then.
        for _ in 0..<3 {
            let server = try ServerProcess(kind: kind, executable: executable, extraConfig: extraConfig,
                                           musicDirectory: musicDirectory, copyMusic: copyMusic)
            do {
                try server.waitUntilReady(timeout: timeout)
                return server
            } catch {
                server.stop()
                lastError = error
                if !server.log.contains("in use") { break }
            }
        }
        throw lastError ?? ServerStartError(description: "\(kind) did not start")
    }

    private init(kind: ServerKind, executable: String, extraConfig: [String], musicDirectory: String?,
                 copyMusic: Bool) throws {
        self.kind = kind
        self.port = try ServerProcess.freePort()
        let base = FileManager.default.temporaryDirectory
            .appendingPathComponent("nosignal-diff-\(kind.rawValue)-\(UUID().uuidString.prefix(8))")
        self.directory = base
        for sub in ["music", "playlists", "home", "data", "cache", "xdg"] {
            try FileManager.default.createDirectory(at: base.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        let path = base.path
        if let source = musicDirectory, copyMusic {
            try ServerProcess.copyTree(source, to: path + "/music")
            self.musicDirectory = path + "/music"
        } else {
            self.musicDirectory = musicDirectory ?? path + "/music"
        }
        var lines = [
            "music_directory \"\(self.musicDirectory)\"",
            "playlist_directory \"\(path)/playlists\"",
            "db_file \"\(path)/database\"",
            "state_file \"\(path)/state\"",
            "bind_to_address \"127.0.0.1\"",
            "port \"\(port)\"",
        ]
        switch kind {
        case .mpd:
            lines += ["zeroconf_enabled \"no\"", "log_level \"verbose\""]
            // MP3 as MPD 0.24 scans it (libmpg123 first: 16-bit format, gapless length), also when the oracle is
            // Debian's 0.23, which lists libmad first; without libmad, 0.23 reads MP3 with libmpg123 as well.
            lines += ["decoder {", "    plugin \"mad\"", "    enabled \"no\"", "}"]
            // NoSignal always has a cache directory; MPD 0.24 offers `mount`/`unmount` only when its database has one.
            lines.removeAll { $0.hasPrefix("db_file ") }
            lines += ["database {", "    plugin \"simple\"", "    path \"\(path)/database\"",
                      "    cache_directory \"\(path)/cache\"", "}"]
        case .nosignal:
            // MPD has no NetEase directory; the differential scripts compare the local library only.
            lines += ["data_directory \"\(path)/data\"", "cache_directory \"\(path)/cache\"",
                      "netease {", "    enabled \"no\"", "}"]
        }
        lines += [
            "audio_output {",
            "    type \"null\"",
            "    name \"null\"",
            "    mixer_type \"software\"",
            "}",
        ]
        lines += extraConfig.map { $0.replacingOccurrences(of: "${dir}", with: path) }
        // With passwords, a fresh client may not read `status`; the startup probe then uses a
        // password of its own, which scripts do not know.
        if extraConfig.contains(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("password") }) {
            lines.append("password \"\(ServerProcess.probePassword)@read\"")
        }
        configText = lines.joined(separator: "\n") + "\n"
        let configPath = base.appendingPathComponent("server.conf").path
        try configText.write(toFile: configPath, atomically: true, encoding: .utf8)

        let arguments: [String]
        switch kind {
        case .mpd: arguments = [executable, "--no-daemon", "--stderr", configPath]
        case .nosignal: arguments = [executable, "--config", configPath]
        }
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = "\(path)/home"
        environment["XDG_CONFIG_HOME"] = "\(path)/xdg/config"
        environment["XDG_CACHE_HOME"] = "\(path)/xdg/cache"
        environment["XDG_DATA_HOME"] = "\(path)/xdg/data"
        environment["XDG_RUNTIME_DIR"] = "\(path)/xdg"
        environment.removeValue(forKey: "MPD_HOST")
        environment.removeValue(forKey: "MPD_PORT")
        pid = try ServerProcess.spawn(arguments: arguments, environment: environment,
                                      stdout: "\(path)/stdout.log", stderr: "\(path)/stderr.log")
    }

    deinit { stop() }

    static let probePassword = "nosignal-harness-probe"

    // MARK: - Paths

    /// `MPD_BIN`, else `mpd` on PATH (or /usr/bin/mpd, /usr/sbin/mpd). Nil if MPD is not installed.
    public static func mpdExecutable() -> String? {
        if let explicit = ProcessInfo.processInfo.environment["MPD_BIN"], !explicit.isEmpty {
            return FileManager.default.isExecutableFile(atPath: explicit) ? explicit : nil
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/mpd" } + ["/usr/bin/mpd", "/usr/sbin/mpd", "/usr/local/bin/mpd"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// `NOSIGNAL_BIN`, else `<package root>/.build/debug/nosignal` (package root from this file's path).
    public static func nosignalExecutable() -> String {
        if let explicit = ProcessInfo.processInfo.environment["NOSIGNAL_BIN"], !explicit.isEmpty {
            return explicit
        }
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/nosignal").path
    }

    static func executablePath(for kind: ServerKind) throws -> String {
        switch kind {
        case .mpd:
            guard let path = mpdExecutable() else {
                throw ServerStartError(description: "MPD is not installed: the differential tests need Debian's mpd 0.23 (apt-get install -y mpd), or MPD_BIN")
            }
            return path
        case .nosignal:
            let path = nosignalExecutable()
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw ServerStartError(description: "NoSignal binary not found at \(path): run `swift build` first, or set NOSIGNAL_BIN")
            }
            return path
        }
    }

    // MARK: - State

    /// Whether the process is still alive (reaps it if it exited).
    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return reapLocked(block: false) == nil && pid != nil
    }

    /// "exited with status N" / "killed by signal N", or nil while running.
    public var exitDescription: String? {
        lock.lock()
        defer { lock.unlock() }
        _ = reapLocked(block: false)
        guard let status = exitStatus else { return nil }
        return ServerProcess.describe(status: status)
    }

    /// The server's stderr (all of it while running; the saved copy after `stop`).
    public var log: String {
        lock.lock()
        defer { lock.unlock() }
        if let savedLog { return savedLog }
        return readLogLocked()
    }

    /// The last `maxLines` lines of stderr, for failure messages.
    public func logTail(maxLines: Int = 40) -> String {
        let lines = log.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.suffix(maxLines).joined(separator: "\n")
    }

    /// SIGTERM, then SIGKILL (to the whole process group) after `timeout`; reaps the process,
    /// keeps its log in memory and deletes its directory (unless `DIFF_KEEP=1`). Idempotent.
    public func stop(timeout: Double = 5) {
        lock.lock()
        defer { lock.unlock() }
        if let pid, reapLocked(block: false) == nil {
            kill(pid, SIGTERM)
            let deadline = Deadline(seconds: timeout)
            while reapLocked(block: false) == nil && !deadline.hasPassed {
                usleep(10_000)
            }
            if exitStatus == nil {
                kill(-pid, SIGKILL)
                kill(pid, SIGKILL)
                _ = reapLocked(block: true)
            }
        }
        pid = nil
        if savedLog == nil {
            savedLog = readLogLocked()
            if ProcessInfo.processInfo.environment["DIFF_KEEP"] != "1" {
                try? FileManager.default.removeItem(at: directory)
            }
        }
    }

    // MARK: - Internals

    private func readLogLocked() -> String {
        let path = directory.appendingPathComponent("stderr.log").path
        guard let data = FileManager.default.contents(atPath: path) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Returns the exit status once the process has exited (reaping it), nil while it runs.
    private func reapLocked(block: Bool) -> Int32? {
        if let exitStatus { return exitStatus }
        guard let pid else { return nil }
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, block ? 0 : WNOHANG)
            if result == pid {
                exitStatus = status
                return status
            }
            if result < 0 && errno == EINTR { continue }
            if result < 0 {
                exitStatus = -1
                return -1
            }
            return nil
        }
    }

    private static func describe(status: Int32) -> String {
        if status == -1 { return "exited (status unknown)" }
        let signal = status & 0x7f
        if signal == 0 { return "exited with status \((status >> 8) & 0xff)" }
        return "killed by signal \(signal)"
    }

    private func waitUntilReady(timeout: Double) throws {
        let deadline = Deadline(seconds: timeout)
        var lastProblem = "no answer"
        while !deadline.hasPassed {
            if let exit = exitDescription {
                throw ServerStartError(description: "\(kind) \(exit) during startup on port \(port); stderr:\n\(logTail())")
            }
            if let client = try? RawClient(port: port, timeout: 1) {
                if let greeting = client.readLine(timeout: 2) {
                    guard greeting.starts(with: Array("OK MPD ".utf8)) else {
                        throw ServerStartError(description: "\(kind) greeted with \(String(decoding: greeting, as: UTF8.self)) instead of OK MPD …")
                    }
                    try waitForStartupUpdate(client, deadline: deadline)
                    client.close()
                    return
                }
                lastProblem = "connected, but no greeting"
            }
            usleep(30_000)
        }
        throw ServerStartError(description: "\(kind) did not answer on port \(port) within \(timeout) s (\(lastProblem)); stderr:\n\(logTail())")
    }

    /// MPD scans its music directory at startup; wait for that job so that no script sees
    /// `updating_db:` or the `update`/`database` idle events it causes. (A server must therefore show
    /// `updating_db:` in `status` from its first answer until its initial scan is over, or finish
    /// the scan before it accepts connections.)
    private func waitForStartupUpdate(_ client: RawClient, deadline: Deadline) throws {
        if configText.contains(ServerProcess.probePassword) {
            client.send(line: "password \(ServerProcess.probePassword)")
            _ = client.readResponse(timeout: 2)
        }
        while !deadline.hasPassed {
            client.send(line: "status")
            // A server busy with its first scan on a loaded machine may take longer than one read's timeout to
            // answer: read on (keeping what came) until the startup deadline.
            var response = client.readResponse(timeout: 2)
            var lines = response.lines
            while response.end == .timeout, !deadline.hasPassed {
                response = client.readResponse(timeout: 2)
                lines += response.lines
            }
            guard response.end == .ok else {
                throw ServerStartError(description: "\(kind) answered `status` during startup with \(lines.map { String(decoding: $0, as: UTF8.self) })")
            }
            if !lines.contains(where: { $0.starts(with: Array("updating_db:".utf8)) }) { return }
            usleep(20_000)
        }
    }

    /// `cp -a SOURCE/. DESTINATION`: contents, modes and modification times.
    static func copyTree(_ source: String, to destination: String) throws {
        let outcome = try Subprocess.run(["/bin/cp", "-a", source + "/.", destination])
        guard outcome.status == 0 else {
            throw ServerStartError(description: "cannot copy \(source) to \(destination): \(outcome.standardError)")
        }
    }

    /// Ports this process has handed out: the kernel may give the same free port to two probes in a row, and two
    /// servers started side by side (MPD and NoSignal for one script) would then race for it; the loser's start-up
    /// probe would greet the winner.
    private static let portsLock = NSLock()
    nonisolated(unsafe) private static var portsGiven: Set<UInt16> = []

    static func freePort() throws -> UInt16 {
        for _ in 0..<64 {
            let port = try probeFreePort()
            let fresh = portsLock.withLock { portsGiven.insert(port).inserted }
            if fresh { return port }
        }
        throw ServerStartError(description: "no free port that this process has not handed out already")
    }

    private static func probeFreePort() throws -> UInt16 {
        let fd = socket(AF_INET, streamSocketType, 0)
        guard fd >= 0 else { throw ServerStartError(description: "socket() failed: errno \(errno)") }
        defer { posixClose(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw ServerStartError(description: "bind() failed: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw ServerStartError(description: "getsockname() failed: errno \(errno)") }
        return UInt16(bigEndian: address.sin_port)
    }

    /// posix_spawn in a new process group, stdin from /dev/null, stdout and stderr to files,
    /// default signal dispositions and an empty signal mask.
    private static func spawn(arguments: [String], environment: [String: String], stdout: String, stderr: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        let (result, pid) = SpawningThread.shared.perform { () -> (Int32, pid_t) in
            var pid: pid_t = 0
            let result = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
            return (result, pid)
        }
        guard result == 0 else {
            throw ServerStartError(description: "cannot start \(arguments[0]): \(String(cString: strerror(result)))")
        }
        return pid
    }
}

/// The one thread that starts every server. MPD 0.24 run with `--no-daemon` asks the kernel for SIGTERM when its
/// parent dies (`prctl(PR_SET_PDEATHSIG)` in `SignalHandlersInit`), and the kernel means the parent *thread*: a
/// server started from a short-lived thread shut down as soon as that thread ended. This thread never ends.
final class SpawningThread: @unchecked Sendable {
    static let shared = SpawningThread()

    private let condition = NSCondition()
    private var work: [() -> Void] = []

    private init() {
        let thread = Thread { [self] in
            while true {
                condition.lock()
                while work.isEmpty { condition.wait() }
                let next = work.removeFirst()
                condition.unlock()
                next()
            }
        }
        thread.name = "server spawner"
        thread.start()
    }

    /// Runs `body` on the spawning thread and waits for its result.
    func perform<T>(_ body: @escaping () -> T) -> T {
        var result: T?
        let done = DispatchSemaphore(value: 0)
        condition.lock()
        work.append {
            result = body()
            done.signal()
        }
        condition.signal()
        condition.unlock()
        done.wait()
        return result!
    }
}
