import FFmpegDecoder
import Foundation
import PlayerCore
import TestTools
import Testing

/// The schemes libavformat opens inside the decoder (`urlhandlers` lists them; libcurl has no part in them), each
/// against a real server on 127.0.0.1 started by the test.
@Suite("Decoding hls+http and rtp (libavformat)")
struct NetworkProtocolTests {
    let fixtures = Fixtures.shared
    let decoders = FFmpegDecoderFactory()

    /// An HLS playlist with AAC segments written by the ffmpeg command line, served by Python's http.server:
    /// `hls+http://` decodes exactly as the same playlist read from disk.
    @Test func hlsOverHTTPDecodesLikeThePlaylistOnDisk() throws {
        let directory = fixtures.path("hls-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try run(["ffmpeg", "-nostdin", "-v", "error", "-i", fixtures.path("a.flac"), "-c:a", "aac", "-f", "hls",
                 "-hls_time", "1", "-hls_list_size", "0", "-hls_playlist_type", "vod", "\(directory)/index.m3u8"])
        let port = LoopbackServer.freePort()
        let server = try LoopbackServer(["/usr/bin/python3", "-m", "http.server", "\(port)", "--bind", "127.0.0.1",
                                         "--directory", directory], port: port)
        let decoder = try decoders.open("hls+http://127.0.0.1:\(server.port)/index.m3u8")
        let reference = try decoders.open("\(directory)/index.m3u8")
        #expect(decoder.format == reference.format)
        let ours = try decodeAll(decoder)
        let expected = try decodeAll(reference)
        #expect(ours.count > 44100 * 2 * 2)
        let equal = ours == expected
        #expect(equal, "\(firstDifference(ours, expected))")
        #expect(server.log.contains("GET /index.m3u8"))
    }

    /// The ffmpeg command line sends 16-bit PCM over RTP (static payload type 10, no SDP needed), looping, to the
    /// port `rtp://` listens on: what arrives is the source's samples, a stretch of the looped file.
    @Test func rtpReceivesTheSentSamples() throws {
        let source = fixtures.path("a.flac")
        let port = LoopbackServer.freePort()
        let sender = try LoopbackServer(["ffmpeg", "-nostdin", "-v", "error", "-re", "-stream_loop", "-1",
                                         "-i", source, "-c:a", "pcm_s16be", "-f", "rtp",
                                         "rtp://127.0.0.1:\(port)"], port: port, waitForTCP: false)
        defer { sender.stop() }
        let decoder = try decoders.open("rtp://127.0.0.1:\(port)")
        #expect(decoder.format == AudioFormat(sampleRate: 44100, sampleFormat: .s16, channels: 2))
        var received: [UInt8] = []
        while received.count < 44100 * 4, try decoder.read(into: &received) {}
        let original = try ffmpegDecode(source)
        // A whole number of frames into the stream, from the second packet on (the first may have been cut short).
        let probe = Array(received[8192..<(8192 + 8192)])
        let looped = original + original
        #expect(looped.firstRange(of: probe) != nil, "the received samples are not the source's")
    }
}
