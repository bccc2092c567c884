/// What the `httpd` output streams: MPD's `encoder` setting and its options.
public struct EncoderSettings: Equatable, Sendable {
    public enum Codec: String, Equatable, Sendable, CaseIterable {
        /// MPD's `lame` and `shine` encoders: MP3.
        case mp3
        /// Ogg Opus.
        case opus
        /// Ogg Vorbis.
        case vorbis
        /// Native FLAC stream.
        case flac
        /// RIFF WAVE, 16-bit (MPD's `wave` encoder).
        case wave
    }
    public var codec: Codec
    /// kbit/s (`bitrate`), when set.
    public var bitrate: Int?
    /// `quality` (lame/vorbis VBR quality), when set; MPD forbids both.
    public var quality: Double?

    public init(codec: Codec, bitrate: Int? = nil, quality: Double? = nil) {
        self.codec = codec
        self.bitrate = bitrate
        self.quality = quality
    }
}

/// Makes stream encoders (FFmpeg's libmp3lame, libopus, libvorbis, flac, pcm).
public protocol AudioEncoderFactory: Sendable {
    func makeEncoder(_ settings: EncoderSettings, for format: AudioFormat) throws(OutputError) -> any AudioEncoding
}

/// One running encoder. Used from one thread (the output's).
public protocol AudioEncoding: AnyObject {
    /// The PCM it takes, which may differ from the format asked for (opus: 48 kHz; wave: 16-bit); the caller
    /// converts to it.
    var inputFormat: AudioFormat { get }
    /// `Content-Type` of the stream (`audio/mpeg`, `audio/ogg`, `audio/flac`, `audio/wav`).
    var mimeType: String { get }
    /// The bytes every listener must receive before any other (Ogg/FLAC headers, the WAV header); empty for MP3.
    var header: [UInt8] { get }
    /// Encodes whole frames in `inputFormat`, appending finished stream bytes to `output`.
    func encode(_ pcm: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(OutputError)
    /// Ends the stream (at close), appending what the codec still holds.
    func finish(into output: inout [UInt8])
}
