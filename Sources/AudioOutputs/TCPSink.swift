#if canImport(Glibc)
import Glibc
#endif
import PlayerCore

/// The `tcp` output: raw PCM to a TCP server, for Snapcast (`snapserver`'s `tcp` source in `mode=server` listens;
/// NoSignal connects as its client). The format is fixed by the output's `format` (default 48000:16:2, what the
/// source is told); the engine converts to it and paces the output, as it does the fifo's (`keepsTime` is false).
///
/// It never holds up the other outputs: the socket is non-blocking, audio that does not fit when snapserver reads
/// slowly is dropped, and when snapserver is not there (not started, restarting) the output stays open and connects
/// again at most once every `retryInterval`, so playing goes on and the stream resumes when it is back.
public final class TCPSink: AudioSink {
    public struct Settings: Sendable, Equatable {
        public var host: String
        public var port: Int
        public var retryInterval: Double

        public init(host: String, port: Int, retryInterval: Double = 1.0) {
            self.host = host
            self.port = port
            self.retryInterval = retryInterval
        }
    }

    private let settings: Settings
    private var socket: CInt = -1
    private var connecting = false
    private var lastAttempt: Double = -.infinity
    /// Bytes of a frame, so that a partly sent frame is finished before anything is dropped (the receiver must
    /// never lose its place in the sample stream).
    private var frameSize = 4
    private var pending: [UInt8] = []

    public init(_ settings: Settings) {
        self.settings = settings
    }

    deinit { close() }

    public var keepsTime: Bool { false }

    /// Whether the socket is connected (for tests).
    public var isConnected: Bool { socket >= 0 && !connecting }

    public func open(_ format: AudioFormat) throws(OutputError) -> AudioFormat {
        frameSize = max(1, format.bytesPerFrame)
        pending = []
        connectIfDue()
        return format
    }

    public func write(_ data: UnsafeRawBufferPointer) throws(OutputError) {
        connectIfDue()
        guard socket >= 0, !connecting || finishConnect() else { return }
        if !pending.isEmpty {
            let sent = pending.withUnsafeBytes { send($0) }
            pending.removeFirst(sent)
            guard pending.isEmpty else { return }  // still full: this chunk is dropped whole
        }
        let sent = send(data)
        // A frame cut in the middle is finished first next time; the rest of the chunk is dropped.
        let partial = sent % frameSize
        if partial != 0 { pending = Array(data[sent..<(sent + frameSize - partial)]) }
    }

    /// Sends what the socket takes now; on a broken connection closes it (a reconnect follows).
    private func send(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let base = bytes.baseAddress, socket >= 0 else { return 0 }
        var offset = 0
        while offset < bytes.count {
            let result = Glibc.send(socket, base + offset, bytes.count - offset, CInt(MSG_NOSIGNAL))
            if result > 0 {
                offset += result
                continue
            }
            if result < 0, errno == EINTR { continue }
            if result < 0, errno == EAGAIN || errno == EWOULDBLOCK { break }
            disconnect()
            break
        }
        return offset
    }

    private func connectIfDue() {
        guard socket < 0 else { return }
        let now = Self.now()
        guard now - lastAttempt >= settings.retryInterval else { return }
        lastAttempt = now
        var hints = addrinfo()
        hints.ai_socktype = CInt(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(settings.host, String(settings.port), &hints, &list) == 0, let first = list else { return }
        defer { freeaddrinfo(list) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            let fd = Glibc.socket(info.pointee.ai_family,
                                  info.pointee.ai_socktype | CInt(SOCK_NONBLOCK.rawValue) | CInt(SOCK_CLOEXEC.rawValue),
                                  info.pointee.ai_protocol)
            if fd >= 0 {
                var on: CInt = 1
                setsockopt(fd, CInt(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<CInt>.size))
                let result = Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen)
                if result == 0 || errno == EINPROGRESS {
                    socket = fd
                    connecting = result != 0
                    return
                }
                Glibc.close(fd)
            }
            entry = info.pointee.ai_next
        }
    }

    /// A non-blocking connect in progress: true once it has succeeded; false while it waits or when it failed.
    private func finishConnect() -> Bool {
        var poller = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
        guard poll(&poller, 1, 0) == 1 else { return false }
        var error: CInt = 0
        var length = socklen_t(MemoryLayout<CInt>.size)
        getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length)
        guard error == 0 else {
            disconnect()
            return false
        }
        connecting = false
        return true
    }

    private func disconnect() {
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
        connecting = false
        pending = []
    }

    public func drain() {}

    /// Seek, skip, stop: a partly sent frame is still finished, so that the receiver keeps its alignment.
    public func cancel() {}

    public func pause() {}

    public func close() {
        disconnect()
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
