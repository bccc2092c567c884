#if canImport(Glibc)
// For `__environ`, a C global Swift 6 otherwise refuses to read (the child gets the server's environment).
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PlayerCore

/// MPD's `pipe` output: raw PCM into the standard input of `command`, run by `/bin/sh -c` as MPD's `popen` does.
///
/// The pipe blocks when the command does not read, so the command sets the pace (`keepsTime` is true; MPD's pipe
/// output has no timer either). A command that exits closes the pipe: the write fails with EPIPE, reported as an
/// `OutputError` so the engine disables the output, instead of SIGPIPE killing the server.
public final class PipeSink: AudioSink {
    public let command: String
    /// How long `close` waits for the command to finish after its input ends before terminating it.
    public var exitTimeout: Double = 5

    private var child: pid_t = 0
    private var input: Int32 = -1

    public init(command: String) {
        self.command = command
    }

    deinit { close() }

    public var keepsTime: Bool { true }

    /// The process id of the running command, for tests and diagnostics.
    public var processID: pid_t? { child > 0 ? child : nil }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34): Swift does not see its declaration, so it is
    /// looked up by name; nil where the C library has none.
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, CInt) -> CInt
    private static let closeFrom: CloseFrom? = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }

    public func open(_ format: AudioFormat) throws(OutputError) -> AudioFormat {
        close()
        // The server ignores SIGPIPE globally; make sure of it, since a reader that dies must not take us along.
        signal(SIGPIPE, SIG_IGN)
        // Close-on-exec, so that no other child of the server holds the write end and keeps the command from
        // seeing the end of its input. (Glibc's pipe2 is not visible to Swift; the gap before fcntl is tiny.)
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw OutputError("Error opening pipe \"\(command)\": \(errnoText())")
        }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0], STDIN_FILENO)
        // Nothing else of the server's: a client connection or a socket systemd passed, even one not marked
        // close-on-exec, must not stay open in the command.
        _ = Self.closeFrom?(&actions, 3)

        // The child must not inherit the ignored SIGPIPE (nor a blocked signal mask of the calling thread): a
        // `cat` whose own output is closed should die as it would from a shell.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let arguments = ["/bin/sh", "-c", command].map { (text: String) in strdup(text) }
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let result = (arguments + [nil]).withUnsafeBufferPointer { argv in
            posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv.baseAddress!, __environ)
        }
        sysClose(ends[0])
        guard result == 0 else {
            sysClose(ends[1])
            throw OutputError("Error opening pipe \"\(command)\": \(errnoText(result))")
        }
        child = pid
        input = ends[1]
        return format
    }

    public func write(_ data: UnsafeRawBufferPointer) throws(OutputError) {
        guard input >= 0 else { throw OutputError("Pipe \"\(command)\" is not open") }
        guard var next = data.baseAddress else { return }
        var left = data.count
        while left > 0 {
            let written = sysWrite(input, next, left)
            if written > 0 {
                next += written
                left -= written
                continue
            }
            if written < 0, errno == EINTR { continue }
            let code = written < 0 ? errno : EIO
            if code == EPIPE {
                throw OutputError("Write error on pipe \"\(command)\": the command "
                                  + (reap().map { "has \($0)" } ?? "closed its input"))
            }
            throw OutputError("Write error on pipe \"\(command)\": \(errnoText(code))")
        }
    }

    /// Data in a pipe cannot be taken back; what the command buffers is its own business.
    public func drain() {}
    public func cancel() {}
    public func pause() {}

    /// Ends the command's input and waits for it to finish (an encoder writes its last frames, a player plays out
    /// its buffer), terminating it when it does not within `exitTimeout`.
    public func close() {
        if input >= 0 { sysClose(input) }
        input = -1
        guard child > 0 else { return }
        var waited = 0.0
        while reap() == nil {
            if waited >= exitTimeout {
                kill(child, SIGTERM)
                if waited >= exitTimeout + 2 { kill(child, SIGKILL) }
            }
            usleep(10_000)
            waited += 0.01
        }
    }

    /// Collects the command's exit status if it has ended: a description such as "exited with status 1", nil
    /// while it runs.
    @discardableResult
    private func reap() -> String? {
        guard child > 0 else { return "exited" }
        var status: Int32 = 0
        let result = waitpid(child, &status, WNOHANG)
        if result == 0 { return nil }
        if result < 0, errno == EINTR { return nil }
        child = 0
        guard result > 0 else { return "exited" }
        let signal = status & 0x7f
        return signal == 0 ? "exited with status \((status >> 8) & 0xff)" : "been killed by signal \(signal)"
    }
}
