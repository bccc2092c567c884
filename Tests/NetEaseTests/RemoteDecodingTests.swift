import FFmpegDecoder
import Foundation
import NetEase
import PlayerCore
import Testing

/// The decoder reading through libcurl (`FFmpegDecoderFactory(remote: CurlInputFactory())`, as the server wires
/// it): a song over HTTP decodes exactly as the same file on disk.
@Suite("Decoding over HTTP")
struct RemoteDecodingTests {
    let fixtures = Fixtures.shared
    let local = FFmpegDecoderFactory()
    let remote = FFmpegDecoderFactory(remote: quickFactory())

    /// Serves the fixture files by name, with range support.
    func fileServer(dropAfter: Int? = nil) throws -> TestHTTPServer {
        let fixtures = fixtures
        return try TestHTTPServer { request, connection in
            let name = String(request.path.dropFirst().prefix { $0 != "?" })
            guard let body = try? fixtures.bytes(name) else {
                connection.sendHead("404 Not Found", [("Content-Length", "0")])
                return
            }
            // With `dropAfter`, every response breaks after that many bytes.
            connection.serveFile(body, for: request, type: "audio/whatever", dropAfter: dropAfter)
        }
    }

    @Test(arguments: Fixtures.sources.map(\.name))
    func decodesLikeTheLocalFile(_ name: String) throws {
        let server = try fileServer()
        // A query string, as CDN URLs have, must not hide the extension from probing.
        let decoder = try remote.open(server.url("/\(name)?token=abc"))
        let reference = try local.open(fixtures.path(name))
        #expect(decoder.format == reference.format)
        #expect(decoder.duration == reference.duration)
        #expect(decoder.bitrate == reference.bitrate)
        let ours = try decodeAll(decoder)
        let expected = try decodeAll(reference)
        #expect(ours.count > 44100 * 4 * 3)
        let equal = ours == expected
        #expect(equal, "\(name): \(firstDifference(ours, expected))")
        #expect(decoder.takeStreamTags() == nil)
    }

    /// MP4 with its index after the audio can only be opened by seeking to the end first: a range request.
    @Test func m4aWithTheIndexAtTheEnd() throws {
        let bytes = try fixtures.bytes("a.m4a")
        let moov = bytes.firstRange(of: Array("moov".utf8))?.lowerBound ?? 0
        let mdat = bytes.firstRange(of: Array("mdat".utf8))?.lowerBound ?? 0
        #expect(moov > mdat, "the fixture must have moov at the end")
        let server = try fileServer()
        _ = try decodeAll(try remote.open(server.url("/a.m4a")))
        #expect(server.requests.contains { ($0.rangeStart ?? 0) > mdat })
    }

    /// Seeking over HTTP lands on the same sample as seeking in the file (FLAC: sample-exact by construction,
    /// so this compares against decoding from the start too). Forwards it may be served from the buffer;
    /// backwards the bytes are gone, so it takes a range request.
    @Test(arguments: ["a.flac", "a.mp3", "a.m4a"])
    func seeksLikeTheLocalFile(_ name: String) throws {
        let server = try fileServer()
        let decoder = try remote.open(server.url("/\(name)"))
        let reference = try local.open(fixtures.path(name))
        var ours: [UInt8] = []
        var expected: [UInt8] = []
        _ = try decoder.read(into: &ours)
        _ = try reference.read(into: &expected)
        try decoder.seek(to: 3.5)
        try reference.seek(to: 3.5)
        _ = try decoder.read(into: &ours)
        _ = try reference.read(into: &expected)
        let before = server.requests.count
        try decoder.seek(to: 1.25)
        try reference.seek(to: 1.25)
        let tail = try decodeAll(decoder)
        ours += tail
        expected += try decodeAll(reference)
        let equal = ours == expected
        #expect(equal, "\(name): \(firstDifference(ours, expected))")
        #expect(server.requests.dropFirst(before).contains { $0.rangeStart != nil })
        if name == "a.flac" {
            let whole = try decodeAll(try local.open(fixtures.path(name)))
            let offset: Int = (44100 + 44100 / 4) * 4 // 1.25 s of 16-bit stereo
            let exact = tail == Array(whole[offset...])
            #expect(exact, "\(firstDifference(tail, Array(whole[offset...])))")
        }
    }

    /// Every response breaks after 20 kB: each time the download resumes with a range request where it broke,
    /// and the audio is unaffected.
    @Test(arguments: ["a.flac", "a.mp3", "a.m4a"])
    func droppedConnectionResumes(_ name: String) throws {
        let server = try fileServer(dropAfter: 20_000)
        let ours = try decodeAll(try remote.open(server.url("/\(name)")))
        let expected = try decodeAll(try local.open(fixtures.path(name)))
        let equal = ours == expected
        #expect(equal, "\(name): \(firstDifference(ours, expected))")
        #expect(server.requests.count >= (try fixtures.bytes(name).count) / 20_000)
        #expect(server.requests.contains { $0.rangeStart == 20_000 } || name == "a.m4a") // m4a starts at the end
    }

    /// Internet radio: the station name, then each title as its audio is decoded; the metadata blocks never
    /// reach the decoder, so the audio equals the same stream sent without them.
    @Test func icyStream() throws {
        let body = try fixtures.bytes("long.mp3")
        let half = body.count / 2
        let server = try TestHTTPServer { request, connection in
            if request.path == "/plain" {
                // The same bytes as a live stream without metadata.
                connection.sendHead("200 OK", [("Content-Type", "audio/mpeg")])
                connection.send(body)
            } else {
                connection.serveIcy(body, for: request, interval: 4096, name: "Test Radio") { offset in
                    offset < half ? "First Song" : "Don't stop 'me' now"
                }
            }
        }
        let decoder = try remote.open(server.url("/stream"))
        #expect(decoder.duration == nil)
        #expect(throws: DecoderError.self) { try decoder.seek(to: 1) }
        var tags: [Song.Tag] = decoder.takeStreamTags() ?? []
        #expect(tags.first == Song.Tag("Name", "Test Radio"))
        var output: [UInt8] = []
        var titleAt: [Int] = []
        while try decoder.read(into: &output) {
            if let new = decoder.takeStreamTags() {
                tags += new
                titleAt.append(output.count)
            }
        }
        #expect(tags.map(\.value) == ["Test Radio", "First Song", "Don't stop 'me' now"])
        #expect(decoder.takeStreamTags() == nil)
        // The second title arrives with its audio, halfway through the 20 s (give or take libavformat's
        // read-ahead), not when it was buffered.
        let seconds = Double(titleAt.last ?? 0) / Double(decoder.format.bytesPerFrame * decoder.format.sampleRate)
        #expect(seconds > 7 && seconds < 11, "second title at \(seconds) s")
        let plain = try decodeAll(try remote.open(server.url("/plain")))
        let equal = output == plain
        #expect(equal, "\(firstDifference(output, plain))")
    }

    /// An Icecast Ogg station: no ICY blocks, each song a new link of a chained Ogg stream with its own comments,
    /// which libavformat reports whatever it reads through.
    @Test func chainedOggStream() throws {
        var chain: [UInt8] = []
        for (artist, title) in [("Artist One", "Song One"), ("Artist Two", "Song Two")] {
            let path = fixtures.path("chain-\(title).ogg")
            _ = try run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", fixtures.path("a.ogg"), "-c", "copy",
                         "-metadata", "artist=\(artist)", "-metadata", "title=\(title)", path])
            chain += try fixtures.bytes("chain-\(title).ogg")
        }
        let body = chain
        let server = try TestHTTPServer { request, connection in
            connection.sendHead("200 OK", [("Content-Type", "application/ogg"), ("icy-name", "Ogg Radio")])
            connection.send(body)
        }
        let decoder = try remote.open(server.url("/stream.ogg"))
        var tags: [Song.Tag] = decoder.takeStreamTags() ?? []
        var output: [UInt8] = []
        while try decoder.read(into: &output) {
            if let new = decoder.takeStreamTags() { tags += new }
        }
        #expect(tags.map(\.value) == ["Ogg Radio", "Artist One", "Song One", "Artist Two", "Song Two"])
        #expect(output.count > 44100 * 8 * 7)
    }

    @Test func missingSongNamesURLAndStatus() throws {
        let server = try fileServer()
        let url = server.url("/nothing.mp3")
        let error = try #require(throws: DecoderError.self) { try remote.open(url) }
        #expect(error.message == "Failed to open \"\(url)\": HTTP status 404 Not Found")
        #expect(error.cause == "got HTTP status 404")
    }

    /// A server that stops sending mid-song: the decoder fails with an error within seconds instead of hanging.
    @Test func stalledServerFails() throws {
        let body = try fixtures.bytes("a.flac")
        let server = try TestHTTPServer { request, connection in
            connection.serveFile(body, for: request, dropAfter: request.rangeStart == nil ? 100_000 : 0)
            connection.stall()
        }
        let factory = FFmpegDecoderFactory(remote: CurlInputFactory(
            configuration: HTTPConfiguration(connectTimeout: 2, lowSpeedTime: 1, requestTimeout: nil),
            bufferSize: 256 * 1024, reconnectAttempts: 1))
        let decoder = try factory.open(server.url("/a.flac"))
        let (error, seconds) = timed { decoderError { _ = try decodeAll(decoder) } }
        #expect(error?.message.hasPrefix("Failed to read \"\(server.url("/a.flac"))\": ") == true)
        #expect(error?.cause?.hasPrefix("curl failed: ") == true, "\(String(describing: error))")
        #expect(seconds < 8)
    }

    /// Without an injected input, URLs still open through libavformat's own HTTP (and local files never use
    /// the injected one).
    @Test func localFilesIgnoreTheRemoteFactory() throws {
        let ours = try decodeAll(try remote.open(fixtures.path("a.flac")))
        let expected = try decodeAll(try local.open(fixtures.path("a.flac")))
        let equal = ours == expected
        #expect(equal)
    }
}
