import CFFmpeg
import CFFmpegShim
import PlayerCore

/// Reads tags, duration, audio format and the embedded picture of a file with libavformat (no decoding), like
/// MPD's FFmpeg plugin `ScanStream` (`src/decoder/plugins/FfmpegDecoderPlugin.cxx`, `FfmpegMetaData.cxx`).
public struct FFmpegInspector: AudioFileInspector {
    public let suffixes: Set<String>

    public init(suffixes: Set<String>? = nil) {
        self.suffixes = suffixes ?? Set(FFmpegCatalog.formats().suffixes)
    }

    public enum InspectError: Error, CustomStringConvertible {
        case open(path: String, message: String)
        case noAudio(path: String)
        public var description: String {
            switch self {
            case .open(let path, let message): "cannot open \(path): \(message)"
            case .noAudio(let path): "no audio stream in \(path)"
            }
        }
    }

    public func inspect(path: String, includePicture: Bool) throws -> InspectedFile {
        try TagScanner.inspect(path: path, includePicture: includePicture)
    }

    /// A FLAC file's STREAMINFO read without libavformat: duration and format as MPD's FLAC plugin reports them
    /// (`SongTime::FromScale` of the total samples; libFLAC's bit depth). nil for files libavformat should read
    /// (no total sample count, anything malformed).
    static func inspectFLAC(path: String) -> InspectedFile? {
        guard let header = VorbisComments.readFLACHeader(path: path), header.sampleRate > 0,
              header.totalSamples > 0 else { return nil }
        var result = InspectedFile()
        result.duration = TagScanResult.duration(samples: UInt64(header.totalSamples), rate: UInt64(header.sampleRate))
        result.audioFormat = "\(header.sampleRate):\(header.bitsPerSample):\(header.channels)"
        return result
    }

    /// Duration, audio format and the picture through libavformat, as MPD's FFmpeg plugin finds them
    /// (`FfmpegScanStream`); with `dictionaries`, the container's and the audio stream's metadata mapped by
    /// `FFmpegDictionaryScan`. Also the container's name.
    static func inspectWithFFmpeg(path: String, includePicture: Bool, dictionaries: Bool)
        throws -> (file: InspectedFile, scan: TagScanResult, container: String) {
        av_log_set_level(AV_LOG_QUIET)
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        let status = avformat_open_input(&context, path, nil, nil)
        guard status >= 0, let format = context else {
            throw InspectError.open(path: path, message: Self.errorText(status))
        }
        defer { avformat_close_input(&context) }
        // Probing decodes frames and is most of the cost of a scan: skip it when the headers already say all we
        // need (FLAC, Ogg, MP4 and WAV usually do; MP3 without a Xing header does not).
        if !Self.headersSuffice(format) {
            let found = avformat_find_stream_info(format, nil)
            guard found >= 0 else { throw InspectError.open(path: path, message: Self.errorText(found)) }
        }

        var audio: UnsafeMutablePointer<AVStream>?
        var picture: InspectedFile.Picture?
        for index in 0..<Int(format.pointee.nb_streams) {
            guard let stream = format.pointee.streams[index] else { continue }
            let parameters = stream.pointee.codecpar.pointee
            if stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 {
                if includePicture, picture == nil, let data = stream.pointee.attached_pic.data,
                   stream.pointee.attached_pic.size > 0 {
                    let bytes = Array(UnsafeBufferPointer(start: data, count: Int(stream.pointee.attached_pic.size)))
                    picture = .init(data: bytes, mimeType: Self.mimeType(parameters.codec_id))
                }
                continue
            }
            if audio == nil, parameters.codec_type == AVMEDIA_TYPE_AUDIO { audio = stream }
        }
        guard let audio else { throw InspectError.noAudio(path: path) }

        var result = InspectedFile()
        let nopts = nosignal_av_nopts_value()
        if audio.pointee.duration != nopts, audio.pointee.duration > 0 {
            let base = audio.pointee.time_base
            result.duration = Self.milliseconds(Double(audio.pointee.duration) * Double(base.num) / Double(base.den))
        } else if format.pointee.duration != nopts, format.pointee.duration > 0 {
            result.duration = Self.milliseconds(Double(format.pointee.duration) / Double(AV_TIME_BASE))
        }
        result.audioFormat = Self.audioFormat(audio.pointee.codecpar.pointee)
        result.picture = picture
        if dictionaries {
            // MPD's FFmpeg plugin (`FfmpegScanStream`, `FromFfmpegTime`): the stream's duration if it has one, else
            // the container's, rescaled to the nearest millisecond.
            let milli = AVRational(num: 1, den: 1000)
            if audio.pointee.duration != nopts {
                result.duration = Double(max(0, av_rescale_q(audio.pointee.duration, audio.pointee.time_base, milli))) / 1000
            } else if format.pointee.duration != nopts {
                result.duration = Double(max(0, av_rescale_q(format.pointee.duration,
                                                             AVRational(num: 1, den: AV_TIME_BASE), milli))) / 1000
            } else {
                result.duration = nil
            }
        }
        var scan = TagScanResult()
        if dictionaries {
            FFmpegDictionaryScan.scan(format.pointee.metadata, into: &scan)
            FFmpegDictionaryScan.scan(audio.pointee.metadata, into: &scan)
        }
        let container = format.pointee.iformat.map { String(cString: $0.pointee.name) } ?? ""
        return (result, scan, container)
    }

    static func headersSuffice(_ format: UnsafeMutablePointer<AVFormatContext>) -> Bool {
        let nopts = nosignal_av_nopts_value()
        var hasAudio = false
        for index in 0..<Int(format.pointee.nb_streams) {
            guard let stream = format.pointee.streams[index] else { return false }
            let p = stream.pointee.codecpar.pointee
            guard p.codec_type == AVMEDIA_TYPE_AUDIO else { continue }
            hasAudio = true
            guard p.sample_rate > 0, p.ch_layout.nb_channels > 0, p.format >= 0 || p.bits_per_raw_sample > 0
                    || p.codec_id == AV_CODEC_ID_OPUS || p.codec_id == AV_CODEC_ID_VORBIS
                    || p.codec_id == AV_CODEC_ID_AAC,
                  stream.pointee.duration != nopts && stream.pointee.duration > 0 else { return false }
        }
        return hasAudio
    }

    static func pairs(_ dictionary: OpaquePointer?) -> [(String, String)] {
        rawPairs(dictionary).map { (Song.Tag.text($0.key), Song.Tag.text($0.value)) }
    }

    /// Every entry of a dictionary, in its order, as bytes.
    static func rawPairs(_ dictionary: OpaquePointer?) -> [(key: [UInt8], value: [UInt8])] {
        var pairs: [(key: [UInt8], value: [UInt8])] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while true {
            entry = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX)
            guard let current = entry else { break }
            pairs.append((bytes(current.pointee.key), bytes(current.pointee.value)))
        }
        return pairs
    }

    static func bytes(_ cString: UnsafePointer<CChar>) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: cString, count: strlen(cString)))
    }

    /// A C string's bytes with MPD's repair of invalid UTF-8 (`Song.Tag.text`).
    static func text(_ cString: UnsafePointer<CChar>) -> String {
        Song.Tag.text(UnsafeRawBufferPointer(start: cString, count: strlen(cString)))
    }

    /// The NUL-separated values of one dictionary entry (what the lyrics reader takes apart).
    static func splitValues(_ value: String) -> [String] {
        value.split(separator: "\0", omittingEmptySubsequences: true).map(String.init).filter { !$0.isEmpty }
    }

    /// MPD keeps durations in whole milliseconds (`SongTime::FromS` truncates).
    static func milliseconds(_ seconds: Double) -> Double { (seconds * 1000).rounded(.towardZero) / 1000 }

    /// Containers whose tags are APEv2 items (WavPack, Monkey's Audio, Musepack, TAK).
    static let apeContainers: Set<String> = ["wv", "ape", "mpc", "mpc8", "tak"]

    /// MPD's tag name of a Vorbis comment (FLAC, Ogg Vorbis; `ScanVorbisComment`).
    public static func vorbisTagName(forKey key: String) -> String? { TagNames.vorbis(key) }

    /// MPD's `samplerate:bits:channels`: integer formats give their (raw) bit depth, floating point `f`.
    static func audioFormat(_ p: AVCodecParameters) -> String? {
        guard p.sample_rate > 0 else { return nil }
        let channels = p.ch_layout.nb_channels
        let bits: String
        switch p.codec_id {
        case AV_CODEC_ID_MP3, AV_CODEC_ID_MP2:
            bits = "24" // MPD's libmad decoder delivers 24-bit samples
        case AV_CODEC_ID_OPUS:
            bits = "16" // MPD's libopus decoder delivers 16-bit samples
        case AV_CODEC_ID_VORBIS, AV_CODEC_ID_AAC:
            bits = "f" // decoded as floating point (known before any frame is decoded)
        case AV_CODEC_ID_WAVPACK where p.bits_per_raw_sample > 0 && AVSampleFormat(rawValue: p.format) != AV_SAMPLE_FMT_FLTP:
            // MPD's WavPack plugin: the file's whole bytes per sample (1: 8, 2: 16, 3: 24, 4: 32).
            bits = ["8", "16", "24", "32"][min(3, max(0, (Int(p.bits_per_raw_sample) + 7) / 8 - 1))]
        default:
            switch AVSampleFormat(rawValue: p.format) {
            case AV_SAMPLE_FMT_U8, AV_SAMPLE_FMT_U8P: bits = "8"
            case AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S16P: bits = "16"
            case AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S32P:
                bits = p.bits_per_raw_sample > 0 && p.bits_per_raw_sample <= 24 ? "24" : "32"
            case AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_DBL, AV_SAMPLE_FMT_DBLP: bits = "f"
            default:
                if p.bits_per_raw_sample > 0 { bits = String(p.bits_per_raw_sample) } else { return nil }
            }
        }
        return "\(p.sample_rate):\(bits):\(channels)"
    }

    static func mimeType(_ codec: AVCodecID) -> String? {
        switch codec {
        case AV_CODEC_ID_MJPEG: "image/jpeg"
        case AV_CODEC_ID_PNG: "image/png"
        case AV_CODEC_ID_GIF: "image/gif"
        case AV_CODEC_ID_BMP: "image/bmp"
        case AV_CODEC_ID_WEBP: "image/webp"
        default: nil
        }
    }

    static func errorText(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        av_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
