import CCurl
import CCurlShim
import Foundation
import PlayerCore

/// Opens `http(s)://` inputs (and the other schemes of `schemes`: `ftp://`, `gopher://`, `rtmp://`, …) for the
/// decoder: the player's `RemoteInputFactory`, over the same libcurl wrapper the NetEase client uses.
public struct CurlInputFactory: RemoteInputFactory {
    /// The protocols of the linked libcurl (`curl_version_info`'s list, lowercase): what `schemes` may hold.
    public static let libraryProtocols: [String] = {
        guard var entry = nosignal_curl_protocols() else { return [] }
        var names: [String] = []
        while let name = entry.pointee {
            names.append(String(cString: name).lowercased())
            entry += 1
        }
        return names
    }()

    /// The schemes `open` takes, lowercase without `://`; `http` and `https` unless the server says more.
    public var schemes: Set<String> = ["http", "https"]
    public var configuration: HTTPConfiguration
    /// Bytes buffered ahead of the decoder (the transfer pauses when they are full).
    public var bufferSize: Int
    /// Reconnections in a row, without a byte in between, before a dropped seekable download is an error.
    public var reconnectAttempts: Int

    public init(configuration: HTTPConfiguration = HTTPConfiguration(requestTimeout: nil), bufferSize: Int = 2 << 20,
                reconnectAttempts: Int = 3) {
        self.configuration = configuration
        self.bufferSize = bufferSize
        self.reconnectAttempts = reconnectAttempts
    }

    public func opens(_ url: String) -> Bool {
        guard let scheme = CurlInputStream.scheme(of: url) else { return false }
        return schemes.contains(scheme) && Self.libraryProtocols.contains(scheme)
    }

    public func open(_ url: String) throws(DecoderError) -> any RemoteInput {
        try CurlInputStream(url: url, configuration: configuration, bufferSize: bufferSize,
                            reconnectAttempts: reconnectAttempts)
    }
}

/// One remote resource read like a file. A transfer runs on its own thread into a bounded ring buffer (pausing
/// libcurl when the buffer is full, so a paused player holds no more than `bufferSize`), and the decoder thread
/// reads from the buffer. Seeking and reconnecting start a new transfer with `Range: bytes=N-`; ICY metadata is
/// taken out of the audio on the way in.
public final class CurlInputStream: RemoteInput {
    public let url: String
    public let size: Int64?
    public let mimeType: String?
    public let isSeekable: Bool
    /// The station (`icy-name`), for the `Name` tag.
    public let name: String?
    private let state: StreamState
    private let reconnectAttempts: Int
    private var nameAnnounced = false
    private var lastTitle: String?

    /// Connects and waits for the response headers; an error status, a refused connection or a timeout throws.
    /// `offset` > 0 starts with a range request there (a stream resumed under a fresh URL); reads begin at it.
    public init(url: String, configuration: HTTPConfiguration = HTTPConfiguration(requestTimeout: nil),
                bufferSize: Int = 2 << 20, reconnectAttempts: Int = 3, offset: Int64 = 0) throws(DecoderError) {
        self.url = url
        self.reconnectAttempts = reconnectAttempts
        state = StreamState(url: url, configuration: configuration, capacity: bufferSize)
        state.condition.lock()
        state.position = offset
        do {
            try state.startTransfer(from: offset, delay: 0)
        } catch {
            state.condition.unlock()
            throw Self.error("open", url, StreamFailure(error.message))
        }
        while state.head == nil && !state.finished { state.condition.wait() }
        let head = state.head
        let failure = state.failure
        state.condition.unlock()
        guard let head else {
            state.close()
            throw Self.error("open", url, failure ?? StreamFailure("no response"))
        }

        let live = head.headers.contains { $0.name.lowercased().hasPrefix("icy-") }
        var length: Int64?
        if head.status == 206, let total = head.value("content-range").flatMap(ContentRange.init)?.total {
            length = total
        } else if let text = head.value("content-length"), let value = Int64(text), value > 0 {
            length = value
        }
        size = live ? nil : length
        isSeekable = size != nil && head.value("accept-ranges")?.lowercased() != "none"
        mimeType = head.value("content-type").map { String($0.split(separator: ";").first ?? "").trimmingSpaces() }
        name = ["icy-name", "ice-name", "x-audiocast-name"].lazy.compactMap { head.value($0) }.first { !$0.isEmpty }
    }

    deinit { state.close() }

    /// The URL's scheme, lowercase (`ftp` of `FTP://host/x`), when it has one.
    static func scheme(of url: String) -> String? {
        guard let end = url.range(of: "://")?.lowerBound, end > url.startIndex else { return nil }
        let scheme = url[..<end]
        guard scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
        return scheme.lowercased()
    }

    public var position: Int64 {
        state.condition.lock()
        defer { state.condition.unlock() }
        return state.position
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int {
        guard buffer.count > 0 else { return 0 }
        state.condition.lock()
        defer { state.condition.unlock() }
        while true {
            guard !state.closed else { throw DecoderError("Failed to read \"\(url)\": the stream is closed") }
            if state.finished, state.failure == nil, let size, state.position + Int64(state.ring.count) < size {
                // The server ended the body early without an error libcurl noticed.
                state.failure = StreamFailure(
                    "the connection closed at byte \(state.position + Int64(state.ring.count)) of \(size)")
                state.retryable = true
            }
            // Resume a broken download at once, while the decoder still has buffered bytes to chew on.
            if state.finished, state.failure != nil, canResume {
                state.failuresInARow += 1
                let delay = 0.25 * Double(state.failuresInARow - 1)
                do {
                    try state.startTransfer(from: state.position + Int64(state.ring.count), delay: delay)
                } catch {
                    throw Self.error("read", url, StreamFailure(error.message))
                }
                continue
            }
            if state.ring.count > 0 {
                let count = state.ring.read(into: buffer)
                state.position += Int64(count)
                state.wakeIfRoom()
                return count
            }
            if state.finished {
                guard let failure = state.failure else { return 0 }
                // A live stream that drops has ended (as in MPD): the player moves on to the next song.
                if size == nil && state.retryable { return 0 }
                throw Self.error("read", url, failure)
            }
            state.condition.wait()
        }
    }

    /// Called with the lock held.
    private var canResume: Bool {
        guard isSeekable, state.retryable, state.failuresInARow < reconnectAttempts, let size else { return false }
        return state.position + Int64(state.ring.count) < size
    }

    public func seek(to offset: Int64) throws(DecoderError) {
        state.condition.lock()
        defer { state.condition.unlock() }
        guard !state.closed else { throw DecoderError("Failed to seek \"\(url)\": the stream is closed") }
        if offset == state.position { return }
        guard isSeekable, offset >= 0 else { throw DecoderError("Failed to seek \"\(url)\": the stream is not seekable") }
        if offset > state.position, offset - state.position <= Int64(state.ring.count) {
            // Already downloaded: skip ahead in the buffer.
            state.ring.discard(Int(offset - state.position))
            state.position = offset
            state.wakeIfRoom()
            return
        }
        state.ring.removeAll()
        state.titles.removeAll()
        state.position = offset
        state.failuresInARow = 0
        if let size, offset >= size {
            // Past the end: nothing to fetch (a range request would be answered 416).
            state.stopTransfer()
            state.finished = true
            state.failure = nil
            return
        }
        do {
            try state.startTransfer(from: offset, delay: 0)
        } catch {
            throw Self.error("seek", url, StreamFailure(error.message))
        }
    }

    public func takeMetadata() -> [Song.Tag]? {
        state.condition.lock()
        defer { state.condition.unlock() }
        var tags: [Song.Tag] = []
        if !nameAnnounced {
            nameAnnounced = true
            if let name { tags.append(Song.Tag("Name", name)) }
        }
        while let first = state.titles.first, first.offset <= state.position {
            state.titles.removeFirst()
            guard first.title != lastTitle else { continue }
            lastTitle = first.title
            if !first.title.isEmpty { tags.append(Song.Tag("Title", first.title)) }
        }
        return tags.isEmpty ? nil : tags
    }

    public func close() {
        state.close()
    }

    /// `Failed to read "URL": detail`, with MPD's words for the cause (`got HTTP status 404`).
    private static func error(_ verb: String, _ url: String, _ failure: StreamFailure) -> DecoderError {
        DecoderError("Failed to \(verb) \"\(url)\": \(failure.message)", cause: failure.cause)
    }
}

/// Why a transfer ended badly: a readable detail, and the cause as MPD words it in `status`.
struct StreamFailure: Equatable {
    var message: String
    var cause: String

    init(_ message: String, cause: String? = nil) {
        self.message = message
        self.cause = cause ?? message
    }

    static func status(_ head: ResponseHead) -> StreamFailure {
        StreamFailure("HTTP status \(head.statusText)", cause: "got HTTP status \(head.status)")
    }

    static func curl(_ message: String) -> StreamFailure {
        StreamFailure(message, cause: "curl failed: \(message)")
    }
}

/// `bytes 100-199/1000` (`Content-Range` of a 206).
struct ContentRange: Equatable {
    var start: Int64
    var end: Int64
    var total: Int64?

    init?(_ text: String) {
        let trimmed = text.trimmingSpaces()
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6).trimmingSpaces()
        let parts = spec.split(separator: "/", maxSplits: 1)
        let bounds = parts.first?.split(separator: "-", maxSplits: 1) ?? []
        guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]) else { return nil }
        self.start = start
        self.end = end
        total = parts.count == 2 ? Int64(parts[1]) : nil
    }
}

/// What the reader and the transfer threads share. Every mutable field is guarded by `condition`'s lock, which
/// is also how each side waits for the other (data arrived, room freed, transfer ended).
final class StreamState: @unchecked Sendable {
    let url: String
    let configuration: HTTPConfiguration
    let capacity: Int
    let condition = NSCondition()

    var ring: ByteRing
    /// The resource offset of the ring's first byte: the next byte `read` hands out.
    var position: Int64 = 0
    /// Bumped for every new transfer (seek, reconnect) and on close; a transfer of an older generation stops at
    /// its next callback, so a late byte from it can never land in the buffer.
    var generation = 0
    var closed = false
    var current: CurlTransfer?
    /// The current transfer's response head, once it arrived.
    var head: ResponseHead?
    var finished = false
    var failure: StreamFailure?
    /// False for an answer that another attempt would not change (an error status, a bad range answer).
    var retryable = true
    var paused = false
    var failuresInARow = 0
    /// `StreamTitle`s with the audio offset from which each applies.
    var titles: [(offset: Int64, title: String)] = []

    init(url: String, configuration: HTTPConfiguration, capacity: Int) {
        self.url = url
        self.configuration = configuration
        self.capacity = max(capacity, 64 * 1024)
        ring = ByteRing(capacity: self.capacity)
    }

    /// Free space worth resuming a paused transfer for: a quarter of the buffer, so it resumes in large steps
    /// rather than for every 16 KiB read.
    var hasRoom: Bool { ring.count <= capacity - capacity / 4 }

    /// Lock held.
    func wakeIfRoom() {
        if paused && hasRoom { current?.wake() }
    }

    /// Replaces the current transfer with one from `offset`. Lock held.
    func startTransfer(from offset: Int64, delay: Double) throws(HTTPError) {
        stopTransfer()
        head = nil
        finished = false
        failure = nil
        retryable = true
        paused = false
        let transfer: CurlTransfer
        do {
            transfer = try CurlTransfer(state: self, generation: generation, start: offset, delay: delay)
        } catch {
            finished = true
            failure = StreamFailure(error.message)
            retryable = false
            throw error
        }
        current = transfer
        transfer.launch()
    }

    /// Lock held.
    func stopTransfer() {
        generation += 1
        current?.wake()
        current = nil
    }

    func close() {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return }
        closed = true
        stopTransfer()
        ring = ByteRing(capacity: 1)
        condition.broadcast()
    }
}

/// One HTTP transfer of a `CurlInputStream`, on its own thread: a multi handle polled in a loop, so the transfer
/// can be paused (buffer full), resumed (the reader made room) and abandoned (seek, close) without blocking
/// inside a libcurl callback.
final class CurlTransfer: @unchecked Sendable {
    private let state: StreamState
    private let generation: Int
    private let offset: Int64
    private let delay: Double
    private let easy: CurlEasy
    // Transfer thread only.
    private var parser: ResponseHeadParser
    private var icy: IcyMetadataParser?
    private var skip: Int64 = 0
    private var rejection: StreamFailure?
    private var headSeen = false
    /// When the last byte (header or body) arrived, or the transfer resumed from a pause.
    private var lastProgress = ContinuousClock.now
    /// Under the state's lock: set while the transfer polls, so another thread can wake it.
    private var multi: UnsafeMutableRawPointer?

    init(state: StreamState, generation: Int, start: Int64, delay: Double) throws(HTTPError) {
        self.state = state
        self.generation = generation
        offset = start
        self.delay = delay
        let scheme = CurlInputStream.scheme(of: state.url) ?? "http"
        isHTTP = scheme == "http" || scheme == "https"
        resumable = isHTTP || Self.resumableSchemes.contains(scheme)
        easy = try CurlEasy(url: state.url, configuration: state.configuration, protocols: isHTTP ? "http,https" : scheme)
        parser = ResponseHeadParser(followsRedirects: state.configuration.maxRedirects > 0)
        if isHTTP {
            var headers = state.configuration.headers + [HTTPHeader("Icy-MetaData", "1")]
            if start > 0 { headers.append(HTTPHeader("Range", "bytes=\(start)-")) }
            easy.setHeaders(headers)
            easy.acceptStatusLines(["ICY 200 OK"])
            easy.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        } else if start > 0 {
            // FTP's `REST`, SFTP's offset: the other protocols' range request.
            nosignal_curl_setopt_offset(easy.handle, CURLOPT_RESUME_FROM_LARGE, curl_off_t(start))
        }
    }

    /// The schemes besides HTTP whose transfers libcurl starts at an offset (`CURLOPT_RESUME_FROM_LARGE`); a
    /// stream of any other (gopher, scp, rtmp) cannot seek.
    static let resumableSchemes: Set<String> = ["ftp", "ftps", "sftp"]
    /// HTTP(S), whose response head `receiveHeader` parses; other protocols' header lines (an FTP server's replies)
    /// are not a head, and their stream begins with its first byte.
    private let isHTTP: Bool
    private let resumable: Bool

    func launch() {
        Thread.detachNewThread { [self] in run() }
    }

    /// Interrupts the poll. Lock held.
    func wake() {
        if let multi { curl_multi_wakeup(multi) }
    }

    /// Lock held.
    private var isCurrent: Bool { state.generation == generation && !state.closed }

    private func run() {
        if delay > 0 {
            let until = Date().addingTimeInterval(delay)
            state.condition.lock()
            while isCurrent && Date() < until { _ = state.condition.wait(until: until) }
            state.condition.unlock()
        }
        let context = Unmanaged.passRetained(self)
        defer { context.release() }
        easy.setCallbacks(context: context.toOpaque(), body: { data, size, count, context in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.receive(UnsafeRawBufferPointer(start: data, count: size * count))
        }, header: { data, size, count, context in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
        })
        guard let multi = curl_multi_init() else {
            finish(nil, otherwise: StreamFailure("libcurl cannot start a transfer"))
            return
        }
        curl_multi_add_handle(multi, easy.handle)
        state.condition.lock()
        var alive = isCurrent
        if alive { self.multi = multi }
        state.condition.unlock()

        var result: CURLcode?
        var stalled: StreamFailure?
        lastProgress = .now
        while alive {
            var running: Int32 = 0
            if curl_multi_perform(multi, &running) != CURLM_OK {
                result = CURLE_FAILED_INIT
                break
            }
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi, &queued) {
                if message.pointee.msg == CURLMSG_DONE { result = message.pointee.data.result }
            }
            if result != nil || running == 0 { break }
            state.condition.lock()
            alive = isCurrent
            var resume = false
            let paused = state.paused
            if alive && paused && state.hasRoom {
                state.paused = false
                resume = true
            }
            state.condition.unlock()
            if paused {
                lastProgress = .now // waiting for the reader is not a stall
            } else if let stall = stallFailure() {
                stalled = stall
                break
            }
            if resume {
                // Delivers what libcurl held back, through `receive` (which may pause again).
                curl_easy_pause(easy.handle, Int32(CURLPAUSE_CONT))
                continue
            }
            if alive { curl_multi_poll(multi, nil, 0, 250, nil) }
        }
        finish(result, otherwise: stalled ?? StreamFailure("the transfer ended without a result"))
        curl_multi_remove_handle(multi, easy.handle)
        curl_multi_cleanup(multi)
    }

    /// libcurl's low-speed limit averages over several seconds, so after a burst a dead server would go unnoticed
    /// for longer than configured; this is exact: no byte for `lowSpeedTime` seconds (plus the connect timeout
    /// before the response began).
    private func stallFailure() -> StreamFailure? {
        let configuration = state.configuration
        guard configuration.lowSpeedTime > 0 else { return nil }
        var limit = Double(configuration.lowSpeedTime)
        if !headSeen { limit += configuration.connectTimeout }
        guard ContinuousClock.now - lastProgress > .seconds(limit) else { return nil }
        return .curl("Operation timed out: no data for \(configuration.lowSpeedTime) seconds")
    }

    /// Publishes how the transfer ended: the response's rejection, else libcurl's result, else `otherwise`.
    private func finish(_ result: CURLcode?, otherwise: StreamFailure) {
        state.condition.lock()
        defer { state.condition.unlock() }
        multi = nil
        guard isCurrent else { return }
        state.finished = true
        state.paused = false
        state.current = nil
        if let rejection {
            state.failure = rejection
            state.retryable = false
        } else if let result {
            state.failure = result == CURLE_OK ? nil : .curl(easy.message(for: result))
        } else {
            state.failure = otherwise
        }
        state.condition.broadcast()
    }

    /// The body callback: copies into the ring buffer (without ICY blocks), or pauses when it is full.
    private func receive(_ bytes: UnsafeRawBufferPointer) -> Int {
        state.condition.lock()
        defer { state.condition.unlock() }
        guard isCurrent else { return 0 } // abandoned: abort
        if !headSeen {
            headSeen = true
            var head = ResponseHead(status: 200)
            if !isHTTP {
                // What the protocol told libcurl stands in for the headers: the size (from the start only, as a
                // resumed transfer reports what is left) and whether a transfer can start elsewhere.
                if offset == 0, let length = easy.contentLength {
                    head.headers.append(HTTPHeader("Content-Length", String(length)))
                }
                if !resumable { head.headers.append(HTTPHeader("Accept-Ranges", "none")) }
            }
            state.head = head
        }
        // libcurl delivers at most 16 KiB at a time; an empty buffer takes any amount, so this cannot stall.
        if state.ring.count > 0 && state.ring.count + bytes.count > state.capacity {
            state.paused = true
            return Int(CURL_WRITEFUNC_PAUSE)
        }
        var audio = bytes
        if skip > 0 {
            // The server ignored the range request: drop what comes before the offset.
            let dropped = Int(min(skip, Int64(audio.count)))
            audio = UnsafeRawBufferPointer(rebasing: audio[dropped...])
            skip -= Int64(dropped)
        }
        lastProgress = .now
        let before = state.ring.count
        if var icy {
            let state = state
            icy.feed(audio, audio: { state.ring.append($0) }, title: { title in
                state.titles.append((state.position + Int64(state.ring.count), title))
            })
            self.icy = icy
        } else {
            state.ring.append(audio)
        }
        if state.ring.count > before { state.failuresInARow = 0 }
        state.condition.broadcast()
        return bytes.count
    }

    private func receiveHeader(_ line: UnsafeRawBufferPointer) -> Int {
        lastProgress = .now
        guard isHTTP else { return line.count }
        guard let head = parser.feed(line) else { return line.count }
        state.condition.lock()
        defer { state.condition.unlock() }
        guard isCurrent else { return 0 }
        headSeen = true
        if let problem = accept(head) {
            rejection = problem
            return 0
        }
        state.head = head
        state.condition.broadcast()
        return line.count
    }

    /// Checks the final response and sets up ICY parsing and the range fallback; returns why it is unusable.
    private func accept(_ head: ResponseHead) -> StreamFailure? {
        guard (200..<300).contains(head.status) else { return .status(head) }
        if let interval = head.value("icy-metaint").flatMap({ Int($0) }), interval > 0 {
            icy = IcyMetadataParser(interval: interval)
        }
        if offset > 0 {
            if head.status == 206 {
                let range = head.value("content-range")
                guard range.flatMap(ContentRange.init)?.start == offset else {
                    let answer = range ?? "no Content-Range"
                    return StreamFailure("the server answered a request from byte \(offset) with \(answer)")
                }
            } else {
                skip = offset
            }
        }
        return nil
    }
}
