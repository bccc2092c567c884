import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a helper program and waits for it with `posix_spawn` and `waitpid`. Foundation's `Process.waitUntilExit`
/// was seen to hang on a loaded machine (waiting on a `cp` that had finished), so the harness does not use it.
enum Subprocess {
    struct Outcome {
        var status: Int32
        var standardError: String
    }

    /// Runs `arguments[0]` (an absolute path) with standard input and output on /dev/null; standard error is
    /// collected.
    static func run(_ arguments: [String]) throws -> Outcome {
        var pipeEnds: [Int32] = [0, 0]
        // Created close-on-exec in one step (a socket pair: Glibc's module does not export `pipe2`): scripts run in
        // parallel, and a server another thread starts meanwhile must not inherit the write end (this `read` would
        // then never see the end of the output: a differential run hung on `cp`). The child's fd 2 comes from
        // `dup2`, which clears the flag.
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &pipeEnds) == 0 else {
            throw ServerStartError(description: "socketpair() failed: errno \(errno)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])

        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        close(pipeEnds[1])
        guard spawned == 0 else {
            close(pipeEnds[0])
            throw ServerStartError(description: "cannot run \(arguments[0]): error \(spawned)")
        }
        var collected = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(pipeEnds[0], &buffer, buffer.count)
            if count > 0 {
                collected += buffer[0..<count]
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        close(pipeEnds[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Outcome(status: exitStatus, standardError: String(decoding: collected, as: UTF8.self))
    }
}
