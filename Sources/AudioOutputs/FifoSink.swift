#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PlayerCore

/// MPD's `fifo` output: raw PCM into a named pipe, for visualizers (ncmpcpp, cava) and snapcast.
///
/// The output must never wait for the reader, who may come and go or not exist at all. Like MPD it holds a read
/// end of its own: opening the write end then succeeds without a reader, a non-blocking write never blocks, and
/// when the pipe is full (the reader is slow or absent) it reads the stale data back out and writes on, so the
/// reader always sees the newest audio. The engine paces it (`keepsTime` is false), as MPD's timer does.
///
/// The pipe stays open and in place from the first `open` until the sink is released, not just while playing:
/// a visualizer keeps its descriptor across stop and play, and a pipe removed and created again at each play
/// would leave it reading a dead inode. A pipe the sink created is removed when it is released.
public final class FifoSink: AudioSink {
    public let path: String

    private var reader: Int32 = -1
    private var writer: Int32 = -1
    private var created = false

    public init(path: String) {
        self.path = path
    }

    deinit {
        closeFifo()
    }

    /// Closes the pipe and removes it if this sink created it, as MPD does at exit. Also done when the sink is
    /// released; call it at shutdown, when the process may exit before that.
    public func release() {
        closeFifo()
    }

    public var keepsTime: Bool { false }

    public func open(_ format: AudioFormat) throws(OutputError) -> AudioFormat {
        if writer < 0 { try openFifo() }
        return format
    }

    private func openFifo() throws(OutputError) {
        var info = stat()
        if stat(path, &info) != 0 {
            guard errno == ENOENT else { throw OutputError("Failed to stat FIFO \"\(path)\": \(errnoText())") }
            guard mkfifo(path, 0o666) == 0 else { throw OutputError("Couldn't create FIFO \"\(path)\": \(errnoText())") }
            created = true
        } else if info.st_mode & S_IFMT != S_IFIFO {
            throw OutputError("\"\(path)\" already exists, but is not a FIFO")
        }
        reader = sysOpen(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard reader >= 0 else {
            let text = errnoText()
            closeFifo()
            throw OutputError("Could not open FIFO \"\(path)\" for reading: \(text)")
        }
        writer = sysOpen(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard writer >= 0 else {
            let text = errnoText()
            closeFifo()
            throw OutputError("Could not open FIFO \"\(path)\" for writing: \(text)")
        }
    }

    private func closeFifo() {
        if reader >= 0 { sysClose(reader) }
        if writer >= 0 { sysClose(writer) }
        reader = -1
        writer = -1
        if created {
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFIFO { unlink(path) }
            created = false
        }
    }

    public func write(_ data: UnsafeRawBufferPointer) throws(OutputError) {
        guard writer >= 0 else { throw OutputError("FIFO \"\(path)\" is not open") }
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
        guard reader >= 0 else { return }
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

    /// Playback stopped: nothing to release, the pipe stays for the reader (see the type's comment).
    public func close() {}
}
