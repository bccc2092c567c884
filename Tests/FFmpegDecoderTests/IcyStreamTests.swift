import FFmpegDecoder
import Foundation
import PlayerCore
import Testing

/// A one-shot Shoutcast-style server on 127.0.0.1: answers one request with `body`, inserting an ICY metadata
/// block every `interval` bytes when the client asked for them (`Icy-MetaData: 1`).
final class IcyServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private(set) var request = ""

    init(body: [UInt8], interval: Int, name: String, metadata: Bool = true,
         titleAt: @escaping @Sendable (Int) -> String? = { _ in nil }) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, 1) == 0 else { throw DecoderError("cannot listen") }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") {
                let count = recv(client, &chunk, chunk.count, 0)
                if count <= 0 { return }
                received += chunk[0..<count]
            }
            request = String(decoding: received, as: UTF8.self)
            let wantsMetadata = metadata && request.lowercased().contains("icy-metadata: 1")
            var response = Array("HTTP/1.0 200 OK\r\nContent-Type: audio/mpeg\r\nicy-name: \(name)\r\n".utf8)
            if wantsMetadata { response += Array("icy-metaint: \(interval)\r\n".utf8) }
            response += Array("\r\n".utf8)
            var offset = 0
            var lastTitle: String?
            while offset < body.count {
                let end = min(body.count, offset + interval)
                response += body[offset..<end]
                offset = end
                if wantsMetadata && end - (end / interval) * interval == 0 {
                    var block: [UInt8] = []
                    if let title = titleAt(offset), title != lastTitle {
                        lastTitle = title
                        block = Array("StreamTitle='\(title)';StreamUrl='';".utf8)
                        block += [UInt8](repeating: 0, count: (16 - block.count % 16) % 16)
                    }
                    response.append(UInt8(block.count / 16))
                    response += block
                }
            }
            var sent = 0
            while sent < response.count {
                let count = response[sent...].withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count <= 0 { return }
                sent += count
            }
        }
    }

    deinit { close(listener) }
}

@Suite("ICY stream tags")
struct IcyStreamTests {
    /// The station name arrives once, then each new `StreamTitle` once, as MPD's tags for a radio stream;
    /// the metadata blocks never reach the decoder. Quotes inside a title survive (the title ends at `';`, as in
    /// MPD's `IcyMetaDataParser`).
    @Test func titlesFromIcyMetadata() throws {
        let path = Fixtures.shared.path("a.mp3")
        let body = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let half = body.count / 2
        let server = try IcyServer(body: body, interval: 4096, name: "Test Radio") { offset in
            offset < half ? "First Song" : "Don't stop 'me' now"
        }
        let decoder = try FFmpegDecoderFactory().open("http://127.0.0.1:\(server.port)/stream")
        #expect(server.request.lowercased().contains("icy-metadata: 1"))
        var tags: [Song.Tag] = decoder.takeStreamTags() ?? []
        #expect(tags == [Song.Tag("Name", "Test Radio"), Song.Tag("Title", "First Song")])
        var output: [UInt8] = []
        while try decoder.read(into: &output) {
            if let new = decoder.takeStreamTags() { tags += new }
        }
        #expect(tags.map(\.value) == ["Test Radio", "First Song", "Don't stop 'me' now"])
        #expect(decoder.takeStreamTags() == nil)
        // Same audio as the file (less the gapless trim, which needs the seekable file's LAME header
        // handling; a stream cannot seek back to it): at least the 4 s, never a metadata byte decoded as audio.
        let reference = try ffmpegDecode(path, format: "f32le")
        #expect(output.count >= reference.count && output.count <= reference.count + 2 * 1152 * 8)
    }

    /// An Icecast Ogg station: no ICY blocks, each song a new link of a chained Ogg stream with its own comments.
    @Test func titlesFromChainedOgg() throws {
        var body: [UInt8] = []
        for (artist, title) in [("Artist One", "Song One"), ("Artist Two", "Song Two")] {
            let path = Fixtures.shared.path("chain-\(title).ogg")
            _ = try run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", Fixtures.shared.path("mono-a.wav"),
                         "-c:a", "libvorbis", "-metadata", "artist=\(artist)", "-metadata", "title=\(title)", path])
            body += [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        let server = try IcyServer(body: body, interval: 4096, name: "Ogg Radio", metadata: false)
        let decoder = try FFmpegDecoderFactory().open("http://127.0.0.1:\(server.port)/stream.ogg")
        var tags: [Song.Tag] = decoder.takeStreamTags() ?? []
        var output: [UInt8] = []
        while try decoder.read(into: &output) {
            if let new = decoder.takeStreamTags() { tags += new }
        }
        #expect(tags.map(\.value) == ["Ogg Radio", "Artist One", "Song One", "Artist Two", "Song Two"])
        #expect(output.count > 44100 * 4 * 6)
    }

    /// Local files have no stream tags.
    @Test func localFilesHaveNone() throws {
        let decoder = try FFmpegDecoderFactory().open(Fixtures.shared.path("a.ogg"))
        #expect(decoder.takeStreamTags() == nil)
    }

    @Test func unreachableStreamThrows() throws {
        let error = try #require(throws: DecoderError.self) {
            try FFmpegDecoderFactory().open("http://127.0.0.1:1/nothing")
        }
        #expect(error.message.hasPrefix("Failed to open \"http://127.0.0.1:1/nothing\": "))
    }
}
