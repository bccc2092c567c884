import CFFmpeg
import CShim

/// What this machine's FFmpeg can open, for `decoders`: the file suffixes and MIME types of every demuxer that
/// has an audio decoder behind it in practice. Read from libavformat at run time, so it matches what plays.
public enum FFmpegCatalog {
    public struct Formats: Sendable, Equatable {
        public var suffixes: [String]
        public var mimeTypes: [String]
    }

    public static func formats() -> Formats {
        av_log_set_level(AV_LOG_ERROR)
        var suffixes = Set<String>()
        var mimeTypes = Set<String>()
        var opaque: UnsafeMutableRawPointer?
        while let demuxer = av_demuxer_iterate(&opaque) {
            if let extensions = demuxer.pointee.extensions {
                for suffix in String(cString: extensions).split(separator: ",") where !suffix.isEmpty {
                    suffixes.insert(String(suffix))
                }
            }
            if let mime = demuxer.pointee.mime_type {
                for type in String(cString: mime).split(separator: ",") where !type.isEmpty {
                    mimeTypes.insert(String(type))
                }
            }
        }
        return Formats(suffixes: suffixes.sorted(), mimeTypes: mimeTypes.sorted())
    }

    /// libavformat's version, e.g. `59.27.100`.
    public static var version: String {
        let v = avformat_version()
        return "\(v >> 16).\((v >> 8) & 0xFF).\(v & 0xFF)"
    }

    /// `AVERROR_EOF`, through the shim (a macro Swift cannot import).
    public static var endOfFileError: Int32 { nosignal_averror_eof() }
}
