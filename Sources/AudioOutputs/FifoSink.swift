#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PlayerCore
import Synchronization

/// MPD's `fifo` output: raw PCM into a named pipe, for visualizers (ncmpcpp, cava) and snapcast.
///
/// The output must never wait for the reader, who may come and go or not exist at all. Like MPD it holds a read
/// end of its own: opening the write end then succeeds without a reader, a non-blocking write never blocks, and
/// when the pipe is full (the reader is slow or absent) it reads the stale data back out and writes on, so the
/// reader always sees the newest audio. The engine paces it (`keepsTime` is false), as MPD's timer does.
///
/// The pipe stays open and in place for the life of the process, not just while playing: a visualizer keeps its
/// descriptor across stop and play, and a pipe removed and created again (the engine makes a new sink at each
/// open) would leave it reading a dead inode. So the descriptors live in a process-wide table keyed by path, and
/// a pipe this process created is removed by `FifoSink.shutdown(path:)` when the application that plays into it
/// stops, as MPD removes its own (only that application's pipes: others in the process keep theirs).
public final class FifoSink: AudioSink {
    public let path: String

    private var fifo: OpenFifo?

    public init(path: String) {
        self.path = path
    }

    public var keepsTime: Bool { false }

    public func open(_ format: AudioFormat) throws(OutputError) -> AudioFormat {
        fifo = try OpenFifo.acquire(path)
        return format
    }

    /// Closes the pipes (all, or the one at `path`) and removes those this process created. Call at shutdown.
    public static func shutdown(path: String? = nil) {
        OpenFifo.release(path)
    }

    public func write(_ data: UnsafeRawBufferPointer) throws(OutputError) {
        guard let writer = fifo?.writer else { throw OutputError("FIFO \"\(path)\" is not open") }
        guard var next = data.baseAddress else { return }
        var left = data.count
        while left > 0 {
            let written = sysWrite(writer, next, left)
            if written > 0 {
                next += written
                left -= written
                continue
            }
            switch errno {
            case EAGAIN:
                emptyPipe()
            case EINTR:
                continue
            default:
                throw OutputError("Failed to write to FIFO \"\(path)\": \(errnoText())")
            }
        }
    }

    /// Reads back what no reader has taken yet.
    private func emptyPipe() {
        guard let reader = fifo?.reader else { return }
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = buffer.withUnsafeMutableBytes { sysRead(reader, $0.baseAddress, $0.count) }
            if count > 0 { continue }
            if count < 0, errno == EINTR { continue }
            return
        }
    }

    public func drain() {}

    /// Seek, skip, stop: what is still in the pipe belongs to the old position.
    public func cancel() {
        emptyPipe()
    }

    public func pause() {}

    /// Playback stopped: the pipe stays open for the reader (see the type's comment).
    public func close() {
        fifo = nil
    }
}

/// A named pipe held open by the process: its own read end and the write end.
private final class OpenFifo: Sendable {
    let path: String
    let reader: Int32
    let writer: Int32
    let created: Bool
    let inode: (dev_t, ino_t)

    private static let table = Mutex<[String: OpenFifo]>([:])

    private init(path: String, reader: Int32, writer: Int32, created: Bool, inode: (dev_t, ino_t)) {
        self.path = path
        self.reader = reader
        self.writer = writer
        self.created = created
        self.inode = inode
    }

    /// The open pipe at `path`, opening (and creating) it when needed. A pipe that was removed or replaced
    /// behind our back is opened afresh.
    static func acquire(_ path: String) throws(OutputError) -> OpenFifo {
        try table.withLock { (table: inout [String: OpenFifo]) throws(OutputError) -> OpenFifo in
            if let fifo = table[path] {
                var info = stat()
                if stat(path, &info) == 0, info.st_dev == fifo.inode.0, info.st_ino == fifo.inode.1 { return fifo }
                fifo.close(removing: false)
                table[path] = nil
            }
            let fifo = try open(path)
            table[path] = fifo
            return fifo
        }
    }

    static func release(_ path: String?) {
        table.withLock { table in
            for (key, fifo) in table where path == nil || key == path {
                fifo.close(removing: true)
                table[key] = nil
            }
        }
    }

    private static func open(_ path: String) throws(OutputError) -> OpenFifo {
        var info = stat()
        var created = false
        if stat(path, &info) != 0 {
            guard errno == ENOENT else { throw OutputError("Failed to stat FIFO \"\(path)\": \(errnoText())") }
            guard mkfifo(path, 0o666) == 0 else { throw OutputError("Couldn't create FIFO \"\(path)\": \(errnoText())") }
            created = true
        } else if info.st_mode & S_IFMT != S_IFIFO {
            throw OutputError("\"\(path)\" already exists, but is not a FIFO")
        }
        let reader = sysOpen(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard reader >= 0 else {
            let text = errnoText()
            if created { unlink(path) }
            throw OutputError("Could not open FIFO \"\(path)\" for reading: \(text)")
        }
        let writer = sysOpen(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard writer >= 0, fstat(writer, &info) == 0 else {
            let text = errnoText()
            sysClose(reader)
            if writer >= 0 { sysClose(writer) }
            if created { unlink(path) }
            throw OutputError("Could not open FIFO \"\(path)\" for writing: \(text)")
        }
        return OpenFifo(path: path, reader: reader, writer: writer, created: created, inode: (info.st_dev, info.st_ino))
    }

    private func close(removing: Bool) {
        sysClose(reader)
        sysClose(writer)
        guard removing, created else { return }
        var info = stat()
        if stat(path, &info) == 0, info.st_dev == inode.0, info.st_ino == inode.1 { unlink(path) }
    }
}
