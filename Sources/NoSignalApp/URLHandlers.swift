import FFmpegDecoder
import NetEase

/// The URL schemes the server plays (`urlhandlers`, and what `add` takes), found at run time as MPD 0.24 finds
/// them, then narrowed to the ones NoSignal has shown to play:
///
/// - the curl input plugin: the protocols of the linked libcurl (`curl_version_info()->protocols`) that pass
///   MPD's whitelist (`protocol_is_whitelisted`, `src/input/InputPlugin.cxx`);
/// - the ffmpeg input plugin: libavformat's input protocols (`avio_enum_protocols`) through the same whitelist,
///   `hls` becoming `hls+http://` and `hls+https://` (`src/input/plugins/FfmpegInputPlugin.cxx`);
/// - the ffmpeg decoder plugin: `rtsp://` and `rtsps://` when libavformat has the `rtsp` demuxer, `rtp://` for
///   `rtp` (`ffmpeg_protocols`, `src/decoder/plugins/FfmpegDecoderPlugin.cxx`);
///
/// then `netease://`. MPD prints one `std::set<std::string>` of them (`print_supported_uri_schemes`,
/// `src/ls.cxx`), so the answer is in byte order whatever plugin brought a scheme.
///
/// A scheme libcurl has is opened by libcurl (`CurlInputFactory.schemes`, as MPD's curl plugin comes before its
/// ffmpeg one); the others by libavformat inside the decoder (`FFmpegAudioDecoder`).
public struct URLHandlers: Sendable, Equatable {
    /// MPD's whitelist, sorted, compared case-insensitively.
    static let mpdWhitelist = ["ftp", "ftps", "gopher", "http", "https", "mmsh", "mmst", "rtmp", "rtmpe", "rtmps",
                               "rtmpt", "rtmpte", "rtmpts", "rtp", "scp", "sftp", "smb", "srtp"]

    /// The schemes a test plays against a real server on 127.0.0.1 (`Tests/NetEaseTests/URLSchemeTests.swift`,
    /// `Tests/FFmpegDecoderTests/NetworkProtocolTests.swift`). Those MPD lists and this list does not are
    /// declared in `reflection.mpdscript`: without a server to test them against (mms, smb, rtsp, srtp, the
    /// rtmp variants), or without the library (nfs: libnfs is not linked).
    static let played: Set<String> = ["ftp", "gopher", "hls+http", "http", "https", "rtmp", "rtp"]

    /// Lowercase, without `://`: the ones libcurl opens and the ones libavformat opens.
    public var curl: Set<String>
    public var ffmpeg: Set<String>

    /// `urlhandlers`: the schemes as MPD prints them, with `netease://` when NetEase is a source.
    public func listing(netease: Bool) -> [String] {
        var all = curl.union(ffmpeg).map { $0 + "://" }
        if netease { all.append("netease://") }
        return all.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// From the linked libraries.
    public static func linked() -> URLHandlers {
        URLHandlers(curlProtocols: CurlInputFactory.libraryProtocols,
                    ffmpegProtocols: FFmpegCatalog.inputProtocols(),
                    ffmpegDemuxers: ["rtsp", "rtp"].filter(FFmpegCatalog.hasDemuxer))
    }

    init(curlProtocols: [String], ffmpegProtocols: [String], ffmpegDemuxers: [String], played: Set<String> = played) {
        func whitelisted(_ name: String) -> Bool { Self.mpdWhitelist.contains(name.lowercased()) }
        let curl = Set(curlProtocols.filter(whitelisted).map { $0.lowercased() })
        var ffmpeg = Set<String>()
        for name in ffmpegProtocols {
            if name == "hls" {
                ffmpeg.formUnion(["hls+http", "hls+https"])
            } else if whitelisted(name) {
                ffmpeg.insert(name.lowercased())
            }
        }
        if ffmpegDemuxers.contains("rtsp") { ffmpeg.formUnion(["rtsp", "rtsps"]) }
        if ffmpegDemuxers.contains("rtp") { ffmpeg.insert("rtp") }
        self.curl = curl.intersection(played)
        self.ffmpeg = ffmpeg.subtracting(curl).intersection(played)
    }
}
