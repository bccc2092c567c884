@testable import NoSignalApp
import Testing

/// `urlhandlers` computed as MPD 0.24 computes it (`URLHandlers`): libcurl's and libavformat's protocols through
/// MPD's whitelist, the `hls` and `rtsp`/`rtp` rules, one set in byte order; narrowed to the schemes NoSignal plays.
@Suite struct URLHandlersTests {
    /// Debian's libcurl 7.88 and libavformat 59 (`curl_version_info`, `avio_enum_protocols`), everything played.
    let debian = URLHandlers(
        curlProtocols: ["dict", "file", "ftp", "ftps", "gopher", "gophers", "http", "https", "imap", "imaps", "ldap",
                        "ldaps", "mqtt", "pop3", "pop3s", "rtmp", "rtmpe", "rtmps", "rtmpt", "rtmpte", "rtmpts",
                        "rtsp", "scp", "sftp", "smb", "smbs", "smtp", "smtps", "telnet", "tftp"],
        ffmpegProtocols: ["async", "bluray", "cache", "concat", "concatf", "crypto", "data", "ffrtmphttp", "file",
                          "ftp", "gopher", "gophers", "hls", "http", "httpproxy", "https", "mmsh", "mmst", "pipe",
                          "rtmp", "rtmps", "rtmpt", "rtmpts", "rtp", "sctp", "srtp", "subfile", "tcp", "tls", "udp",
                          "udplite", "unix", "amqp", "rist", "srt", "sftp", "zmq", "ipfs", "ipns"],
        ffmpegDemuxers: ["rtsp", "rtp"],
        played: ["ftp", "ftps", "gopher", "hls+http", "hls+https", "http", "https", "mmsh", "mmst", "rtmp", "rtmpe",
                 "rtmps", "rtmpt", "rtmpte", "rtmpts", "rtp", "rtsp", "rtsps", "scp", "sftp", "smb", "srtp"])

    /// What MPD 0.24.13 with Debian's plugins answers, without its nfs plugin, plus netease://.
    @Test func mpdsRulesGiveMPDsList() {
        #expect(debian.listing(netease: true) == [
            "ftp://", "ftps://", "gopher://", "hls+http://", "hls+https://", "http://", "https://", "mmsh://",
            "mmst://", "netease://", "rtmp://", "rtmpe://", "rtmps://", "rtmpt://", "rtmpte://", "rtmpts://",
            "rtp://", "rtsp://", "rtsps://", "scp://", "sftp://", "smb://", "srtp://",
        ])
    }

    /// MPD's curl plugin comes first: a scheme both libraries speak is libcurl's.
    @Test func libcurlOpensWhatItSpeaks() {
        #expect(debian.curl == ["ftp", "ftps", "gopher", "http", "https", "rtmp", "rtmpe", "rtmps", "rtmpt",
                                "rtmpte", "rtmpts", "scp", "sftp", "smb"])
        #expect(debian.ffmpeg == ["hls+http", "hls+https", "mmsh", "mmst", "rtp", "rtsp", "rtsps", "srtp"])
    }

    /// The server lists only what a test played; here, the libraries linked into this build.
    @Test func theServerListsWhatItPlays() {
        let linked = URLHandlers.linked()
        #expect(linked.listing(netease: false).allSatisfy { URLHandlers.played.contains(String($0.dropLast(3))) })
        #expect(linked.listing(netease: true).contains("netease://"))
        #expect(linked.curl.isSuperset(of: ["ftp", "gopher", "http", "https", "rtmp"]))
        #expect(linked.ffmpeg == ["hls+http", "rtp"])
    }
}
