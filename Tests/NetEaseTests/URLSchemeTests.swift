import FFmpegDecoder
import Foundation
import NetEase
import PlayerCore
import TestTools
import Testing

/// The schemes besides HTTP that libcurl opens for the decoder (`urlhandlers` lists them), each against a real
/// server on 127.0.0.1 started by the test: the song decodes exactly as the same file on disk.
@Suite("Decoding over ftp, gopher and rtmp (libcurl)")
struct URLSchemeTests {
    let fixtures = Fixtures.shared
    let local = FFmpegDecoderFactory()
    let remote: FFmpegDecoderFactory = {
        var factory = quickFactory()
        factory.schemes = ["http", "https", "ftp", "gopher", "rtmp"]
        return FFmpegDecoderFactory(remote: factory)
    }()

    @Test func libcurlHasTheTestedProtocols() {
        for name in ["ftp", "gopher", "http", "https", "rtmp"] {
            #expect(CurlInputFactory.libraryProtocols.contains(name), "\(name)")
        }
    }

    /// pyftpdlib (Debian's `python3-pyftpdlib`), anonymous and read-only, serving the fixtures.
    func ftpServer() throws -> LoopbackServer {
        let port = LoopbackServer.freePort()
        return try LoopbackServer(["/usr/bin/python3", "-m", "pyftpdlib", "-i", "127.0.0.1", "-p", "\(port)",
                                   "-d", fixtures.directory], port: port)
    }

    @Test(arguments: ["a.flac", "a.mp3", "a.m4a"])
    func ftpDecodesLikeTheLocalFile(_ name: String) throws {
        let server = try ftpServer()
        let decoder = try remote.open("ftp://127.0.0.1:\(server.port)/\(name)")
        let reference = try local.open(fixtures.path(name))
        #expect(decoder.format == reference.format)
        #expect(decoder.duration == reference.duration)
        let ours = try decodeAll(decoder)
        let expected = try decodeAll(reference)
        #expect(ours.count > 44100 * 4 * 3)
        let equal = ours == expected
        #expect(equal, "\(name): \(firstDifference(ours, expected))")
    }

    /// FTP knows the size (`SIZE`) and starts a transfer at an offset (`REST`): the stream seeks.
    @Test func ftpSeeksLikeTheLocalFile() throws {
        let server = try ftpServer()
        let input = try quickFactory().with(schemes: ["ftp"]).open("ftp://127.0.0.1:\(server.port)/a.flac")
        #expect(input.size == Int64(try fixtures.bytes("a.flac").count))
        #expect(input.isSeekable)
        let decoder = try remote.open("ftp://127.0.0.1:\(server.port)/a.flac")
        let reference = try local.open(fixtures.path("a.flac"))
        try decoder.seek(to: 2.5)
        try reference.seek(to: 2.5)
        let ours = try decodeAll(decoder)
        let expected = try decodeAll(reference)
        let equal = ours == expected
        #expect(equal, "\(firstDifference(ours, expected))")
    }

    @Test func ftpMissingFileFails() throws {
        let server = try ftpServer()
        let error = decoderError { _ = try remote.open("ftp://127.0.0.1:\(server.port)/missing.flac") }
        #expect(error?.message.contains("missing.flac") == true)
    }

    /// A gopher server (item type 9, binary) written in Python.
    @Test func gopherDecodesLikeTheLocalFile() throws {
        let port = LoopbackServer.freePort()
        let server = try LoopbackServer(["/usr/bin/python3", "-c", LoopbackServer.gopherScript, fixtures.directory,
                                         "\(port)"], port: port)
        let decoder = try remote.open("gopher://127.0.0.1:\(server.port)/9a.ogg")
        let ours = try decodeAll(decoder)
        let expected = try decodeAll(try local.open(fixtures.path("a.ogg")))
        #expect(ours.count > 44100 * 4 * 3)
        let equal = ours == expected
        #expect(equal, "\(firstDifference(ours, expected))")
    }

    /// The ffmpeg command line as an RTMP server (`-listen 1`, one client), read by libcurl's librtmp: the AAC in
    /// FLV it sends decodes as the same encoding written to a file.
    @Test func rtmpDecodesLikeTheSameEncodingOnDisk() throws {
        let reference = fixtures.path("rtmp-reference.flv")
        if !FileManager.default.fileExists(atPath: reference) {
            try run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", fixtures.path("a.flac"), "-c:a", "aac",
                     "-b:a", "128k", "-f", "flv", reference])
        }
        let port = LoopbackServer.freePort()
        let url = "rtmp://127.0.0.1:\(port)/live/tone"
        let server = try LoopbackServer(["ffmpeg", "-nostdin", "-v", "error", "-i", fixtures.path("a.flac"),
                                         "-c:a", "aac", "-b:a", "128k", "-f", "flv", "-listen", "1", url],
                                        port: port, waitForTCP: false)
        // The server listens once it started; until then the connection is refused.
        var decoder: (any AudioDecoding)?
        for _ in 0..<200 where decoder == nil {
            decoder = try? remote.open(url)
            if decoder == nil { usleep(50_000) }
        }
        let opened = try #require(decoder, "\(server.log)")
        let ours = try decodeAll(opened)
        let expected = try decodeAll(try local.open(reference))
        #expect(ours.count > 44100 * 4 * 3)
        let equal = ours == expected
        #expect(equal, "\(firstDifference(ours, expected))")
    }

    /// Schemes outside `schemes` are not libcurl's to open (libavformat's then, in the decoder).
    @Test func opensOnlyItsSchemes() {
        let factory = quickFactory().with(schemes: ["http", "https", "ftp"])
        #expect(factory.opens("FTP://host/a.flac"))
        #expect(factory.opens("http://host/a.flac"))
        #expect(!factory.opens("gopher://host/9a"))
        #expect(!factory.opens("rtsp://host/x"))
        #expect(!factory.opens("hls+http://host/x.m3u8"))
        #expect(!factory.opens("/music/a.flac"))
    }
}

extension CurlInputFactory {
    func with(schemes: Set<String>) -> CurlInputFactory {
        var copy = self
        copy.schemes = schemes
        return copy
    }
}
