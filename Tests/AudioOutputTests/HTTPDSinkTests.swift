import AudioOutputs
import Foundation
import PlayerCore
import Synchronization
import Testing

/// A stand-in for the FFmpeg encoders: RIFF WAVE, the header then the raw 16-bit samples, so the test can predict
/// every byte a listener must receive.
final class WAVTestEncoder: AudioEncoding {
    let inputFormat: AudioFormat
    var mimeType: String { "audio/wav" }
    var finished = false

    init(_ format: AudioFormat) {
        inputFormat = AudioFormat(sampleRate: format.sampleRate, sampleFormat: .s16, channels: format.channels)
    }

    var header: [UInt8] {
        func le32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
        func le16(_ value: UInt16) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
        let format = inputFormat
        return Array("RIFF".utf8) + le32(0xFFFF_FFFF) + Array("WAVEfmt ".utf8) + le32(16) + le16(1)
            + le16(UInt16(format.channels)) + le32(UInt32(format.sampleRate)) + le32(UInt32(format.bytesPerSecond))
            + le16(UInt16(format.bytesPerFrame)) + le16(16) + Array("data".utf8) + le32(0xFFFF_FFFF)
    }

    func encode(_ pcm: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(OutputError) {
        output += pcm
    }

    func finish(into output: inout [UInt8]) {
        finished = true
    }
}

struct WAVTestEncoderFactory: AudioEncoderFactory {
    func makeEncoder(_ settings: EncoderSettings, for format: AudioFormat) throws(OutputError) -> any AudioEncoding {
        WAVTestEncoder(format)
    }
}

/// A blocking TCP client with a receive timeout. Used by one thread at a time.
final class TestClient: @unchecked Sendable {
    let fd: Int32

    init(port: Int, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw OutputError("connect: \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
    }

    /// Bytes until `count` arrived, the connection ended, or the timeout hit.
    func read(_ count: Int) -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while result.count < count {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, min($0.count, count - result.count), 0) }
            if n <= 0 { break }
            result += buffer[..<n]
        }
        return result
    }

    /// What one receive returns: empty at the end of the connection (or the timeout).
    func readSome() -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return n > 0 ? Array(buffer[..<n]) : []
    }

    /// Everything until the connection closes (or the timeout).
    func readToEnd() -> [UInt8] { read(Int.max) }

    /// The response head, up to and including the blank line.
    func readHead() -> String {
        var head: [UInt8] = []
        while !head.ends(with: Array("\r\n\r\n".utf8)) {
            let byte = read(1)
            if byte.isEmpty { break }
            head += byte
        }
        return String(decoding: head, as: UTF8.self)
    }
}

extension Array where Element: Equatable {
    func ends(with suffix: [Element]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}

func waitUntil(timeout: Double = 20, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { return false }
        usleep(1000)
    }
    return true
}

/// Splits an ICY stream into audio bytes and the metadata blocks found every `metaint` bytes; nil when the
/// framing is broken.
func splitICY(_ stream: [UInt8], metaint: Int) -> (audio: [UInt8], titles: [String?])? {
    var audio: [UInt8] = []
    var titles: [String?] = []
    var offset = 0
    while offset < stream.count {
        let take = min(metaint, stream.count - offset)
        audio += stream[offset..<(offset + take)]
        offset += take
        guard take == metaint, offset < stream.count else { break }
        let length = Int(stream[offset]) * 16
        offset += 1
        guard offset + length <= stream.count else { return nil }
        if length == 0 {
            titles.append(nil)
        } else {
            let text = String(decoding: stream[offset..<(offset + length)].filter { $0 != 0 }, as: UTF8.self)
            guard text.hasPrefix("StreamTitle='"), let end = text.range(of: "';") else { return nil }
            titles.append(String(text[text.index(text.startIndex, offsetBy: 13)..<end.lowerBound]))
        }
        offset += length
    }
    return (audio, titles)
}

@Suite struct HTTPDSinkTests {
    static func makeSink(maxClients: Int = 0, bufferLimit: Int = 1 << 20) -> HTTPDSink {
        HTTPDSink(HTTPDSink.Settings(port: 0, bindToAddress: "127.0.0.1", maxClients: maxClients,
                                     encoder: EncoderSettings(codec: .wave), name: "NoSignal test",
                                     genre: "Noise", website: "http://example.invalid/", clientBufferLimit: bufferLimit),
                  encoders: WAVTestEncoderFactory())
    }

    /// A listener connected with a plain request, once the sink counts it.
    static func listen(to sink: HTTPDSink, sourceLocation: SourceLocation = #_sourceLocation) throws -> TestClient {
        let client = try TestClient(port: try #require(sink.port, sourceLocation: sourceLocation))
        client.send("GET / HTTP/1.0\r\n\r\n")
        #expect(waitUntil { sink.listenerCount == 1 }, sourceLocation: sourceLocation)
        return client
    }

    @Test func aListenerGetsTheHeaderThenTheStream() throws {
        let sink = Self.makeSink()
        let accepted = try sink.open(AudioFormat(sampleRate: 48000, sampleFormat: .float, channels: 2))
        #expect(accepted == AudioFormat(sampleRate: 48000, sampleFormat: .s16, channels: 2))
        #expect(!sink.keepsTime)
        let port = try #require(sink.port)

        let client = try TestClient(port: port)
        client.send("GET / HTTP/1.1\r\nHost: localhost\r\nUser-Agent: test\r\n\r\n")
        #expect(waitUntil { sink.listenerCount == 1 })
        let pcm = testPCM(accepted, frames: 50_000)
        for chunk in frameChunks(pcm, frameSize: 4, sizesInFrames: [4096, 1, 9000]) { try write(sink, chunk) }

        let head = client.readHead()
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(head.contains("Content-Type: audio/wav\r\n"))
        #expect(head.contains("icy-name: NoSignal test\r\n"))
        #expect(head.contains("icy-genre: Noise\r\n"))
        #expect(head.contains("icy-url: http://example.invalid/\r\n"))
        #expect(!head.contains("icy-metaint"))
        let expected = WAVTestEncoder(accepted).header + pcm
        let body = client.read(expected.count)
        #expect(body.count == expected.count)
        #expect(firstDifference(body, expected) == nil)

        // Closing ends the stream: the listener sees the end of the connection.
        sink.close()
        #expect(client.readToEnd().isEmpty)
        #expect(sink.port == nil)
    }

    @Test func icyMetadataIsFramedEveryMetaintBytes() throws {
        let sink = Self.makeSink()
        let format = try sink.open(.cd)
        sink.sendTags([Song.Tag("Artist", "Röyksopp"), Song.Tag("Album", "Melody A.M."),
                       Song.Tag("Title", "Eple")])
        let client = try TestClient(port: try #require(sink.port))
        client.send("GET /stream.wav HTTP/1.0\r\nicy-metadata:1\r\n\r\n")
        #expect(waitUntil { sink.listenerCount == 1 })
        let head = client.readHead()
        #expect(head.contains("icy-metaint:8192\r\n"))

        // The title comes at the first block boundary; each later block is empty until the title changes.
        let first = testPCM(format, frames: 6000, seed: 1)
        try write(sink, first)
        let firstPart = client.read(44 + first.count + 1 + 2 * 16 + 2)
        sink.sendTags([Song.Tag("Title", "Only a title")])
        let second = testPCM(format, frames: 6000, seed: 2)
        try write(sink, second)
        sink.close()
        let stream = firstPart + client.readToEnd()

        let split = try #require(splitICY(stream, metaint: 8192))
        #expect(firstDifference(split.audio, WAVTestEncoder(format).header + first + second) == nil)
        // 48 044 audio bytes: five blocks; the new title at the first boundary after the change.
        #expect(split.titles == ["Röyksopp - Eple", nil, "Only a title", nil, nil])
    }

    @Test func metadataBlocksFollowTheFormat() {
        let tags = [Song.Tag("Artist", "A"), Song.Tag("Title", "T")]
        // 33 bytes of text: three 16-byte units, NUL-padded.
        let text = Array("StreamTitle='A - T';StreamUrl='';".utf8)
        #expect(HTTPDSinkTests.block(tags) == [3] + text + [UInt8](repeating: 0, count: 48 - text.count))
        let long = [Song.Tag("Title", String(repeating: "é", count: 5000))]
        let block = HTTPDSinkTests.block(long)
        #expect(block[0] == 255)
        #expect(block.count == 1 + 255 * 16)
    }

    /// The block as a listener sees it, through a real sink.
    static func block(_ tags: [Song.Tag]) -> [UInt8] {
        let sink = HTTPDSink(HTTPDSink.Settings(port: 0, bindToAddress: "127.0.0.1", encoder: EncoderSettings(codec: .wave),
                                                metaint: 4), encoders: WAVTestEncoderFactory())
        guard (try? sink.open(.cd)) != nil, let port = sink.port, let client = try? TestClient(port: port) else { return [] }
        sink.sendTags(tags)
        client.send("GET / HTTP/1.1\r\nIcy-MetaData: 1\r\n\r\n")
        _ = client.readHead()
        _ = client.read(4)
        let length = client.read(1)
        guard let first = length.first else { return [] }
        return length + client.read(Int(first) * 16)
    }

    @Test func maxClientsTurnsAwayTheExtraListener() throws {
        let sink = Self.makeSink(maxClients: 1)
        _ = try sink.open(.cd)
        let port = try #require(sink.port)
        let first = try TestClient(port: port)
        first.send("GET / HTTP/1.1\r\n\r\n")
        #expect(waitUntil { sink.listenerCount == 1 })
        let second = try TestClient(port: port)
        second.send("GET / HTTP/1.1\r\n\r\n")
        #expect(second.readToEnd().isEmpty)
        try write(sink, testPCM(.cd, frames: 100))
        #expect(first.readHead().hasPrefix("HTTP/1.1 200 OK"))
        #expect(first.read(44 + 400).count == 444)
        #expect(sink.listenerCount == 1)
        sink.close()
    }

    @Test func headAndWellKnownPathsGetNoStream() throws {
        let sink = Self.makeSink()
        _ = try sink.open(.cd)
        let port = try #require(sink.port)
        let head = try TestClient(port: port)
        head.send("HEAD / HTTP/1.1\r\n\r\n")
        let response = String(decoding: head.readToEnd(), as: UTF8.self)
        #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(response.hasSuffix("\r\n\r\n"))
        let favicon = try TestClient(port: port)
        favicon.send("GET /favicon.ico HTTP/1.1\r\n\r\n")
        #expect(String(decoding: favicon.readToEnd(), as: UTF8.self).hasPrefix("HTTP/1.1 404"))
        #expect(sink.listenerCount == 0)
        sink.close()
    }

    @Test func aStalledListenerIsDroppedWithoutHoldingUpTheOthers() throws {
        let sink = Self.makeSink(bufferLimit: 256 * 1024)
        let format = try sink.open(.cd)
        let port = try #require(sink.port)
        let stalled = try TestClient(port: port, receiveBuffer: 4096)
        stalled.send("GET / HTTP/1.1\r\n\r\n")
        let reader = try TestClient(port: port)
        reader.send("GET / HTTP/1.1\r\n\r\n")
        #expect(waitUntil { sink.listenerCount == 2 })
        let received = Mutex(0)
        let readerThread = Thread {
            _ = reader.readHead()
            while true {
                let bytes = reader.readSome()
                if bytes.isEmpty { break }
                received.withLock { $0 += bytes.count }
            }
        }
        readerThread.start()
        let chunk = testPCM(format, frames: 4410)
        var written = 0
        let started = Date()
        // A paced stream: the reader keeps up, the stalled one falls behind by more than its limit.
        while sink.listenerCount == 2, Date().timeIntervalSince(started) < 20 {
            try write(sink, chunk)
            written += chunk.count
            usleep(2000)
        }
        #expect(sink.listenerCount == 1)
        #expect(waitUntil { received.withLock { $0 } == 44 + written }, "received \(received.withLock { $0 }) of \(44 + written)")
        sink.close()
    }

    @Test func aTakenPortIsAClearError() throws {
        let first = Self.makeSink()
        _ = try first.open(.cd)
        let port = try #require(first.port)
        let second = HTTPDSink(HTTPDSink.Settings(port: port, bindToAddress: "127.0.0.1", encoder: EncoderSettings(codec: .wave)),
                               encoders: WAVTestEncoderFactory())
        #expect {
            _ = try second.open(.cd)
        } throws: { error in
            (error as? OutputError)?.message.contains("\(port)") == true
        }
        first.close()
    }

    @Test func listenersStayAcrossSongsAndCancel() throws {
        let sink = Self.makeSink()
        let format = try sink.open(.cd)
        let client = try Self.listen(to: sink)
        let first = testPCM(format, frames: 1000, seed: 1)
        try write(sink, first)
        #expect(client.readHead().hasPrefix("HTTP/1.1 200 OK"))
        #expect(client.read(44 + first.count).count == 44 + first.count)
        sink.sendTags([Song.Tag("Title", "Next")])
        sink.cancel()
        sink.pause()
        #expect(try sink.open(.cd) == format)
        let second = testPCM(format, frames: 1000, seed: 2)
        try write(sink, second)
        #expect(firstDifference(client.read(second.count), second) == nil)
        #expect(sink.listenerCount == 1)
        sink.close()
    }

    /// Paused, listeners hear silence at about the stream's pace (MPD's httpd output), so their players keep the
    /// stream; with nobody listening the sink only looks again a second later.
    @Test func pausedListenersHearSilence() throws {
        let sink = Self.makeSink()
        let format = try sink.open(.cd)
        #expect(sink.whilePaused() == 1)
        let client = try Self.listen(to: sink)
        let music = testPCM(format, frames: 1000, seed: 3)
        try write(sink, music)
        #expect(client.readHead().hasPrefix("HTTP/1.1 200 OK"))
        #expect(firstDifference(client.read(44 + music.count), WAVTestEncoder(format).header + music) == nil)

        sink.pause()
        let start = Date()
        for _ in 0..<5 {
            #expect(sink.whilePaused() == 0.1)
            usleep(100_000)
        }
        let seconds = Date().timeIntervalSince(start)
        // The first call sends a step of silence, each later one the time since the one before.
        let expected = Int(seconds * Double(format.sampleRate)) * format.bytesPerFrame
        let silence = client.read(expected / 2)
        #expect(silence.count == expected / 2)
        #expect(silence.allSatisfy { $0 == 0 })
        // Playing again continues the stream with the music.
        let more = testPCM(format, frames: 1000, seed: 4)
        try write(sink, more)
        sink.close()
        let rest = client.readToEnd()
        #expect(rest.count >= more.count && rest.count < expected)
        #expect(Array(rest.suffix(more.count)) == more)
        #expect(rest.dropLast(more.count).allSatisfy { $0 == 0 })
    }
}
