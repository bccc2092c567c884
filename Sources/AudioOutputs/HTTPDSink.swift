#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PlayerCore
import Synchronization

/// MPD's `httpd` output: an HTTP stream server inside the player. Every listener gets the encoder's header, then
/// the live stream from the moment it connected; with `Icy-MetaData: 1` the stream carries SHOUTcast metadata
/// (the song title) every `metaint` bytes.
///
/// The output thread encodes and queues the bytes; a socket thread of its own accepts listeners, reads their
/// requests and writes without ever blocking, so a slow listener cannot hold up playback or the other
/// listeners. Each listener's queue is bounded: one that falls that far behind is dropped (it would only hear
/// stale audio). The socket is bound by `open` and released by `close`, like MPD's output while it plays; the
/// engine makes a new sink for each format, so a format change reconnects listeners, as it does with MPD.
///
/// It takes data at any speed (`keepsTime` is false): with `sync` the engine paces it, so listeners receive the
/// stream in real time.
public final class HTTPDSink: AudioSink {
    public struct Settings: Equatable, Sendable {
        /// `port`; 0 picks a free one (tests), see `port` on the sink.
        public var port: Int
        /// `bind_to_address`: a host name or address; nil or `any` listens on every address (IPv6 and IPv4).
        public var bindToAddress: String?
        /// `max_clients`; 0 is unlimited. A listener beyond it is disconnected at once.
        public var maxClients: Int
        /// `encoder`, `bitrate`, `quality`.
        public var encoder: EncoderSettings
        /// `name`, `genre`, `website`: the `icy-name`, `icy-genre` and `icy-url` headers. The defaults are MPD's.
        public var name: String
        public var genre: String
        public var website: String
        /// Bytes a listener may have waiting before it is dropped. MPD flushes at 256 KiB; a megabyte rides out
        /// a few seconds of a stalled network even for uncompressed WAV.
        public var clientBufferLimit: Int
        /// Stream bytes between two ICY metadata blocks (MPD: 8192).
        public var metaint: Int

        public init(port: Int = 8000, bindToAddress: String? = nil, maxClients: Int = 0,
                    encoder: EncoderSettings = EncoderSettings(codec: .mp3, bitrate: 128),
                    name: String = "Set name in config", genre: String = "Set genre in config",
                    website: String = "Set website in config", clientBufferLimit: Int = 1 << 20,
                    metaint: Int = 8192) {
            self.port = port
            self.bindToAddress = bindToAddress
            self.maxClients = maxClients
            self.encoder = encoder
            self.name = name
            self.genre = genre
            self.website = website
            self.clientBufferLimit = clientBufferLimit
            self.metaint = metaint
        }
    }

    public let settings: Settings
    private let encoders: any AudioEncoderFactory
    private var encoder: (any AudioEncoding)?
    private var server: StreamServer?
    private var thread: POSIXThread?
    /// While paused: up to when listeners have been sent silence (monotonic seconds).
    private var silenceSentUntil: Double?

    public init(_ settings: Settings, encoders: any AudioEncoderFactory) {
        self.settings = settings
        self.encoders = encoders
    }

    deinit { close() }

    public var keepsTime: Bool { false }

    /// The TCP port listened on while open (the actual one when the setting is 0).
    public var port: Int? { server?.port }

    /// Connected clients that are receiving the stream (their request was read).
    public var listenerCount: Int { server?.listenerCount ?? 0 }

    public func open(_ format: AudioFormat) throws(OutputError) -> AudioFormat {
        let fresh = try encoders.makeEncoder(settings.encoder, for: format)
        if let encoder, encoder.inputFormat == fresh.inputFormat, encoder.mimeType == fresh.mimeType, server != nil {
            // Opened again without a close and nothing changes for the listeners: keep the stream going.
            return encoder.inputFormat
        }
        close()
        let server = try StreamServer(settings)
        server.start(contentType: fresh.mimeType, header: fresh.header)
        self.server = server
        thread = POSIXThread { server.run() }
        encoder = fresh
        return fresh.inputFormat
    }

    public func write(_ data: UnsafeRawBufferPointer) throws(OutputError) {
        guard let encoder, let server else { throw OutputError("httpd output is not open") }
        // An encoder is only fed while someone listens, as in MPD: no work for an empty room.
        guard server.hasClients else { return }
        var output: [UInt8] = []
        try encoder.encode(data, into: &output)
        server.broadcast(output)
    }

    public func drain() {}

    /// Listeners keep what is being sent; what waits in their queues belongs to the old position.
    public func cancel() {
        server?.cancelQueues()
    }

    /// Listeners stay connected while paused, and hear silence (`whilePaused`).
    public func pause() {
        silenceSentUntil = nil
    }

    /// Silence for the time since the last call (at most half a second), encoded like the music, so listeners'
    /// players keep the stream rather than time out; MPD's httpd output does the same. With nobody listening
    /// there is nothing to send: a second later it looks again.
    public func whilePaused() -> Double? {
        guard let encoder, let server else { return nil }
        let now = monotonicNow()
        guard server.hasClients else {
            silenceSentUntil = nil
            return 1
        }
        let since = silenceSentUntil ?? now - Self.silenceStep
        silenceSentUntil = now
        let format = encoder.inputFormat
        let frames = Int(min(0.5, max(0, now - since)) * Double(format.sampleRate))
        guard frames > 0 else { return Self.silenceStep }
        let silence = [UInt8](repeating: 0, count: frames * format.bytesPerFrame)
        var output: [UInt8] = []
        var failed = false
        silence.withUnsafeBytes { raw in
            do throws(OutputError) { try encoder.encode(raw, into: &output) } catch { failed = true }
        }
        // An encoder that cannot encode silence fails at the next `write` with a message; here it just stops.
        guard !failed else { return nil }
        server.broadcast(output)
        return Self.silenceStep
    }

    /// How often silence goes out while paused.
    static let silenceStep = 0.1

    /// Ends the stream: listeners get what the encoder still holds, then the connection closes; the port is
    /// released.
    public func close() {
        if let encoder, let server {
            var tail: [UInt8] = []
            encoder.finish(into: &tail)
            server.broadcast(tail)
        }
        encoder = nil
        server?.stop(grace: 0.5)
        thread?.join()
        server?.closeSockets()
        server = nil
        thread = nil
    }

    public func sendTags(_ tags: [Song.Tag]) {
        server?.setMetadata(ICYMetadata.block(title: ICYMetadata.title(tags)))
    }
}

/// SHOUTcast in-stream metadata.
enum ICYMetadata {
    /// `Artist - Title`, or whichever of the two exists.
    static func title(_ tags: [Song.Tag]) -> String {
        let artist = tags.first { $0.name == "Artist" }?.value ?? tags.first { $0.name == "AlbumArtist" }?.value
        let title = tags.first { $0.name == "Title" }?.value ?? tags.first { $0.name == "Name" }?.value
        return [artist, title].compactMap { $0?.isEmpty == false ? $0 : nil }.joined(separator: " - ")
    }

    /// A metadata block: one length byte (in 16-byte units), then `StreamTitle='…';StreamUrl='';` padded with
    /// NULs. The title is cut to fit the format's 4080-byte limit, on a character boundary.
    static func block(title: String) -> [UInt8] {
        var budget = 255 * 16 - "StreamTitle='';StreamUrl='';".utf8.count
        var text = ""
        for character in title {
            budget -= character.utf8.count
            if budget < 0 { break }
            text.append(character)
        }
        var bytes = Array("StreamTitle='\(text)';StreamUrl='';".utf8)
        let blocks = (bytes.count + 15) / 16
        bytes += [UInt8](repeating: 0, count: blocks * 16 - bytes.count)
        return [UInt8(blocks)] + bytes
    }
}

// MARK: - The socket thread

/// The listening sockets and the listeners. `run` is the socket thread; the other methods are called from the
/// output thread. Only the socket thread closes client sockets, so a descriptor is never reused under a `poll`.
private final class StreamServer: Sendable {
    struct Config: Sendable {
        var maxClients: Int
        var bufferLimit: Int
        var metaint: Int
        var name: String
        var genre: String
        var website: String
    }

    enum Phase {
        /// Reading the HTTP request.
        case request
        /// Receiving the stream.
        case streaming
        /// Sending what is queued (a HEAD response, a 404, the end of the stream), then closed.
        case closing
        /// To be closed by the socket thread.
        case dropped
    }

    struct Client {
        let id: Int
        let fd: Int32
        var phase = Phase.request
        var request: [UInt8] = []
        /// The response headers: not part of the stream, so not counted between metadata blocks.
        var preamble: [UInt8] = []
        var queue: [[UInt8]] = []
        /// Bytes of `queue[0]` already sent.
        var headOffset = 0
        var queued = 0
        var wantsMetadata = false
        /// Stream bytes sent since the last metadata block.
        var metaFill = 0
        /// The title to send at the next block boundary (nil: an empty block, a single zero byte).
        var nextMetadata: [UInt8]?
        /// The block being sent, and how much of it went out.
        var metadata: [UInt8]?
        var metadataOffset = 0

        var hasOutput: Bool { !preamble.isEmpty || metadata != nil || !queue.isEmpty }
    }

    struct State {
        var contentType = "application/octet-stream"
        var header: [UInt8] = []
        var metadata: [UInt8]?
        var clients: [Client] = []
        var nextID = 0
        var stopping = false
        var deadline = 0.0
    }

    let config: Config
    let listeners: [Int32]
    let port: Int
    private let wakeReader: Int32
    private let wakeWriter: Int32
    private let state = Mutex(State())

    init(_ settings: HTTPDSink.Settings) throws(OutputError) {
        config = Config(maxClients: settings.maxClients, bufferLimit: settings.clientBufferLimit,
                        metaint: max(settings.metaint, 1), name: settings.name, genre: settings.genre,
                        website: settings.website)
        listeners = try Self.listen(address: settings.bindToAddress, port: settings.port)
        port = Self.localPort(listeners[0]) ?? settings.port
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            listeners.forEach { sysClose($0) }
            throw OutputError("httpd: cannot create a pipe: \(errnoText())")
        }
        for fd in ends { Self.makeNonBlocking(fd) }
        wakeReader = ends[0]
        wakeWriter = ends[1]
    }

    // MARK: called from the output thread

    func start(contentType: String, header: [UInt8]) {
        state.withLock {
            $0.contentType = contentType
            $0.header = header
        }
    }

    var hasClients: Bool { state.withLock { !$0.clients.isEmpty } }

    var listenerCount: Int { state.withLock { $0.clients.count { $0.phase == .streaming } } }

    func broadcast(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        state.withLock { state in
            for index in state.clients.indices where state.clients[index].phase == .streaming {
                if state.clients[index].queued + bytes.count > config.bufferLimit {
                    state.clients[index].phase = .dropped
                } else {
                    state.clients[index].queue.append(bytes)
                    state.clients[index].queued += bytes.count
                }
            }
        }
        wake()
    }

    func cancelQueues() {
        state.withLock { state in
            for index in state.clients.indices where state.clients[index].phase == .streaming {
                var client = state.clients[index]
                let keep = client.headOffset > 0 ? 1 : 0
                client.queue.removeSubrange(keep...)
                client.queued = client.queue.first.map { $0.count - client.headOffset } ?? 0
                state.clients[index] = client
            }
        }
    }

    func setMetadata(_ block: [UInt8]) {
        state.withLock { state in
            state.metadata = block
            for index in state.clients.indices { state.clients[index].nextMetadata = block }
        }
    }

    /// Lets listeners take what is queued for up to `grace` seconds, then ends the socket thread.
    func stop(grace: Double) {
        state.withLock { state in
            state.stopping = true
            state.deadline = monotonicNow() + grace
            for index in state.clients.indices {
                switch state.clients[index].phase {
                case .request: state.clients[index].phase = .dropped
                case .streaming: state.clients[index].phase = .closing
                case .closing, .dropped: break
                }
            }
        }
        wake()
    }

    /// After the socket thread ended.
    func closeSockets() {
        state.withLock { state in
            for client in state.clients { sysClose(client.fd) }
            state.clients = []
        }
        listeners.forEach { sysClose($0) }
        sysClose(wakeReader)
        sysClose(wakeWriter)
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = sysWrite(wakeWriter, &byte, 1)
    }

    // MARK: the socket thread

    func run() {
        while true {
            var fds: [pollfd] = [pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)]
            var timeout: Int32 = -1
            let done = state.withLock { state -> Bool in
                removeDropped(&state)
                if state.stopping {
                    let left = state.deadline - monotonicNow()
                    if state.clients.isEmpty || left <= 0 { return true }
                    timeout = Int32(left * 1000) + 1
                } else {
                    for fd in listeners { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
                }
                for client in state.clients {
                    var events = Int16(POLLIN)
                    if client.hasOutput { events |= Int16(POLLOUT) }
                    fds.append(pollfd(fd: client.fd, events: events, revents: 0))
                }
                return false
            }
            if done { return }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0, errno != EINTR { return }
            if ready <= 0 { continue }
            if fds[0].revents != 0 { emptyWakePipe() }
            for entry in fds.dropFirst() where entry.revents != 0 {
                if listeners.contains(entry.fd) {
                    accept(on: entry.fd)
                } else {
                    service(fd: entry.fd, events: entry.revents)
                }
            }
        }
    }

    private func removeDropped(_ state: inout State) {
        state.clients.removeAll { client in
            let finished = client.phase == .dropped || (client.phase == .closing && !client.hasOutput)
            if finished { sysClose(client.fd) }
            return finished
        }
    }

    private func emptyWakePipe() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while buffer.withUnsafeMutableBytes({ sysRead(wakeReader, $0.baseAddress, $0.count) }) > 0 {}
    }

    private func accept(on listener: Int32) {
        while true {
            let fd = Glibc.accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return
            }
            Self.makeNonBlocking(fd)
            state.withLock { state in
                if config.maxClients > 0, state.clients.count >= config.maxClients {
                    sysClose(fd)
                    return
                }
                var client = Client(id: state.nextID, fd: fd)
                client.nextMetadata = state.metadata
                state.nextID += 1
                state.clients.append(client)
            }
        }
    }

    private func service(fd: Int32, events: Int16) {
        state.withLock { state in
            guard let index = state.clients.firstIndex(where: { $0.fd == fd }) else { return }
            var client = state.clients[index]
            if events & Int16(POLLIN | POLLHUP | POLLERR) != 0 { read(&client, state) }
            if client.phase != .dropped, client.hasOutput, events & Int16(POLLOUT) != 0 { flush(&client) }
            state.clients[index] = client
        }
    }

    /// The request until its blank line; after it, input is only watched for the listener hanging up.
    private func read(_ client: inout Client, _ state: State) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { sysRead(client.fd, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno != EAGAIN, errno != EINTR { client.phase = .dropped }
            return
        }
        if count == 0 {
            client.phase = .dropped
            return
        }
        guard client.phase == .request else { return }
        client.request += buffer[..<count]
        guard let request = HTTPRequest(client.request) else {
            if client.request.count > 8192 { client.phase = .dropped }
            return
        }
        respond(&client, to: request, state)
    }

    private func respond(_ client: inout Client, to request: HTTPRequest, _ state: State) {
        guard request.method == "GET" || request.method == "HEAD" else {
            client.preamble = Array("HTTP/1.1 405 Method Not Allowed\r\nConnection: close\r\n\r\n".utf8)
            client.phase = .closing
            return
        }
        if request.isWellKnownNonStream {
            client.preamble = Array(("HTTP/1.1 404 not found\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
                                     + "404 not found").utf8)
            client.phase = .closing
            return
        }
        client.wantsMetadata = request.wantsMetadata
        var head = "HTTP/1.1 200 OK\r\n"
            + "Content-Type: \(state.contentType)\r\n"
            + "Connection: close\r\n"
            + "Pragma: no-cache\r\n"
            + "Cache-Control: no-cache, no-store\r\n"
            + "Access-Control-Allow-Origin: *\r\n"
            + "icy-name: \(config.name)\r\n"
            + "icy-genre: \(config.genre)\r\n"
            + "icy-url: \(config.website)\r\n"
            + "icy-pub:1\r\n"
        if client.wantsMetadata { head += "icy-metaint:\(config.metaint)\r\n" }
        head += "\r\n"
        client.preamble = Array(head.utf8)
        if request.method == "HEAD" {
            client.phase = .closing
            return
        }
        client.phase = .streaming
        if !state.header.isEmpty {
            client.queue = [state.header]
            client.queued = state.header.count
        }
    }

    /// Writes what the socket takes, inserting a metadata block every `metaint` stream bytes.
    private func flush(_ client: inout Client) {
        while client.hasOutput {
            let sent: Int
            if !client.preamble.isEmpty {
                sent = send(client.fd, client.preamble[...])
                if sent > 0 { client.preamble.removeFirst(sent) }
            } else if client.wantsMetadata, client.metadata != nil || client.metaFill >= config.metaint {
                if client.metadata == nil {
                    client.metadata = client.nextMetadata ?? [0]
                    client.nextMetadata = nil
                    client.metadataOffset = 0
                }
                let block = client.metadata!
                sent = send(client.fd, block[client.metadataOffset...])
                if sent > 0 {
                    client.metadataOffset += sent
                    if client.metadataOffset == block.count {
                        client.metadata = nil
                        client.metaFill = 0
                    }
                }
            } else {
                let chunk = client.queue[0]
                var end = chunk.count
                if client.wantsMetadata { end = min(end, client.headOffset + config.metaint - client.metaFill) }
                sent = send(client.fd, chunk[client.headOffset..<end])
                if sent > 0 {
                    client.headOffset += sent
                    client.queued -= sent
                    client.metaFill += sent
                    if client.headOffset == chunk.count {
                        client.queue.removeFirst()
                        client.headOffset = 0
                    }
                }
            }
            if sent < 0 {
                if errno != EAGAIN, errno != EINTR { client.phase = .dropped }
                return
            }
            if sent == 0 { return }
        }
    }

    private func send(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> Int {
        bytes.withUnsafeBytes { raw in
            #if os(Linux)
            Glibc.send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
            #else
            Darwin.send(fd, raw.baseAddress, raw.count, 0)
            #endif
        }
    }

    // MARK: sockets

    private static func listen(address: String?, port: Int) throws(OutputError) -> [Int32] {
        guard (0...65535).contains(port) else { throw OutputError("httpd: invalid port \(port)") }
        var candidates: [(family: Int32, address: [UInt8])] = []
        if address == nil || address == "any" || address == "" {
            var six = sockaddr_in6()
            six.sin6_family = sa_family_t(AF_INET6)
            six.sin6_port = in_port_t(UInt16(port).bigEndian)
            var four = sockaddr_in()
            four.sin_family = sa_family_t(AF_INET)
            four.sin_port = in_port_t(UInt16(port).bigEndian)
            candidates = [(AF_INET6, withUnsafeBytes(of: six) { Array($0) }),
                          (AF_INET, withUnsafeBytes(of: four) { Array($0) })]
        } else {
            var hints = addrinfo()
            hints.ai_flags = AI_PASSIVE
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            let err = getaddrinfo(address, String(port), &hints, &list)
            guard err == 0 else {
                throw OutputError("httpd: cannot resolve bind_to_address \"\(address!)\": "
                                  + String(cString: gai_strerror(err)))
            }
            defer { freeaddrinfo(list) }
            var entry = list
            while let current = entry {
                let info = current.pointee
                if let addr = info.ai_addr {
                    candidates.append((info.ai_family,
                                       Array(UnsafeRawBufferPointer(start: addr, count: Int(info.ai_addrlen)))))
                }
                entry = info.ai_next
            }
        }
        let wildcard = address == nil || address == "any" || address == ""
        var sockets: [Int32] = []
        var lastError = ""
        for candidate in candidates {
            // With a dual-stack IPv6 wildcard socket, the IPv4 wildcard is already covered.
            if wildcard, candidate.family == AF_INET, !sockets.isEmpty { break }
            let fd = socket(candidate.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                lastError = errnoText()
                continue
            }
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            if candidate.family == AF_INET6 {
                var v6only: Int32 = wildcard ? 0 : 1
                setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &v6only, socklen_t(MemoryLayout<Int32>.size))
            }
            let bound = candidate.address.withUnsafeBytes { raw in
                bind(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
            guard bound == 0, Glibc.listen(fd, 16) == 0 else {
                lastError = errnoText()
                sysClose(fd)
                continue
            }
            makeNonBlocking(fd)
            sockets.append(fd)
        }
        guard !sockets.isEmpty else {
            throw OutputError("httpd: cannot listen on \(address.map { "\($0):" } ?? "port ")\(port): \(lastError)")
        }
        return sockets
    }

    private static func localPort(_ fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { return nil }
        return withUnsafeBytes(of: storage) { raw in
            // sin_port and sin6_port sit at the same offset, right after the family.
            Int(UInt16(bigEndian: raw.loadUnaligned(fromByteOffset: 2, as: UInt16.self)))
        }
    }

    private static func makeNonBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
}

/// Seconds on the monotonic clock.
private func monotonicNow() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The parts of an HTTP request the stream needs. Nil until the request is complete (its blank line, or a
/// single HTTP/0.9 line).
struct HTTPRequest {
    var method: String
    var path: String
    var wantsMetadata = false

    init?(_ bytes: [UInt8]) {
        // Split the bytes, not a String: there "\r\n" is one Character and would not split at "\n".
        let lines = bytes.split(separator: 10, omittingEmptySubsequences: false).map { line in
            Substring(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self)
        }
        guard lines.count > 1 else { return nil }
        let words = lines[0].split(separator: " ")
        guard words.count >= 2 else {
            method = ""
            path = ""
            return
        }
        method = String(words[0])
        path = String(words[1])
        if words.count >= 3 {
            // HTTP/1.x: headers follow until a blank line.
            guard let end = lines.dropFirst().firstIndex(where: { $0.isEmpty }) else { return nil }
            for line in lines[1..<end] {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let name = line[..<colon].trimmingSpaces.lowercased()
                let value = line[line.index(after: colon)...].trimmingSpaces
                if name == "icy-metadata", value == "1" { wantsMetadata = true }
            }
        }
    }

    /// Paths browsers and crawlers ask for, which must not get (and hold a slot with) an audio stream.
    var isWellKnownNonStream: Bool {
        ["/favicon.ico", "/robots.txt", "/sitemap.xml"].contains(path) || path.hasPrefix("/.well-known/")
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var result = self
        while result.first == " " || result.first == "\t" { result = result.dropFirst() }
        while result.last == " " || result.last == "\t" { result = result.dropLast() }
        return result
    }
}
