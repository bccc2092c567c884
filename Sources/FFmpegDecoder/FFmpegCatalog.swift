import CFFmpeg
import CFFmpegShim

/// What this machine's FFmpeg can play, for `decoders`: the audio file suffixes and MIME types whose demuxer is
/// present in the linked libavformat. Asked at run time, so it matches what actually plays.
public enum FFmpegCatalog {
    public struct Formats: Sendable, Equatable {
        public var suffixes: [String]
        public var mimeTypes: [String]
    }

    /// Audio containers we offer, by the libavformat demuxer that opens them. (Probing would open many more
    /// formats, but a client's file browser should list music, not subtitles and raw video.)
    static let audioFormats: [(demuxer: String, suffixes: [String], mimeTypes: [String])] = [
        ("mp3", ["mp3", "mp2"], ["audio/mpeg"]),
        ("flac", ["flac"], ["audio/flac", "audio/x-flac"]),
        ("ogg", ["ogg", "oga", "opus", "spx"], ["audio/ogg", "audio/opus", "application/ogg"]),
        ("mov", ["m4a", "m4b", "mp4", "alac"], ["audio/mp4", "audio/m4a", "audio/x-m4a"]),
        ("aac", ["aac"], ["audio/aac", "audio/aacp"]),
        ("wav", ["wav"], ["audio/wav", "audio/x-wav"]),
        ("aiff", ["aif", "aiff"], ["audio/aiff", "audio/x-aiff"]),
        ("wv", ["wv"], ["audio/x-wavpack"]),
        ("ape", ["ape"], ["audio/x-ape"]),
        ("mpc", ["mpc"], ["audio/x-musepack"]),
        ("asf", ["wma"], ["audio/x-ms-wma"]),
        ("ac3", ["ac3"], ["audio/ac3"]),
        ("dts", ["dts"], ["audio/vnd.dts"]),
        ("matroska,webm", ["mka", "webm"], ["audio/x-matroska", "audio/webm"]),
        ("tta", ["tta"], ["audio/x-tta"]),
        ("tak", ["tak"], []),
        ("dsf", ["dsf"], ["audio/dsf"]),
        ("iff", ["dff"], ["audio/x-dff"]),
        ("caf", ["caf"], ["audio/x-caf"]),
        ("au", ["au", "snd"], ["audio/basic"]),
        ("amr", ["amr"], ["audio/amr"]),
        ("libopenmpt", ["mod", "s3m", "xm", "it"], ["audio/x-mod"]),
    ]

    public static func formats() -> Formats {
        av_log_set_level(AV_LOG_ERROR)
        var suffixes = Set<String>()
        var mimeTypes = Set<String>()
        for format in audioFormats where av_find_input_format(format.demuxer) != nil {
            suffixes.formUnion(format.suffixes)
            mimeTypes.formUnion(format.mimeTypes)
        }
        return Formats(suffixes: suffixes.sorted(), mimeTypes: mimeTypes.sorted())
    }

    /// libavformat's input protocols (`avio_enum_protocols(&opaque, 0)`: `file`, `http`, `hls`, `rtmp`, …), in its
    /// order.
    public static func inputProtocols() -> [String] {
        var opaque: UnsafeMutableRawPointer? = nil
        var names: [String] = []
        while let name = avio_enum_protocols(&opaque, 0) { names.append(String(cString: name)) }
        return names
    }

    /// Whether the linked libavformat has this demuxer (`rtsp`, `rtp`, `hls`).
    public static func hasDemuxer(_ name: String) -> Bool {
        av_find_input_format(name) != nil
    }

    /// libavformat's version, e.g. `59.27.100`.
    public static var version: String {
        let v = avformat_version()
        return "\(v >> 16).\((v >> 8) & 0xFF).\(v & 0xFF)"
    }

    /// `AVERROR_EOF`, through the shim (a macro Swift cannot import).
    public static var endOfFileError: Int32 { nosignal_averror_eof() }
}
