/// ReplayGain values from a song's tags (`REPLAYGAIN_TRACK_GAIN` …), decibels and linear peaks.
public struct ReplayGainInfo: Equatable, Sendable {
    public var trackGain: Double?
    public var trackPeak: Double?
    public var albumGain: Double?
    public var albumPeak: Double?

    public init(trackGain: Double? = nil, trackPeak: Double? = nil, albumGain: Double? = nil, albumPeak: Double? = nil) {
        self.trackGain = trackGain
        self.trackPeak = trackPeak
        self.albumGain = albumGain
        self.albumPeak = albumPeak
    }

    public var isEmpty: Bool { trackGain == nil && albumGain == nil }
}

/// Why a song could not be played; the text becomes `error:` in `status`.
public struct DecoderError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// The cause in MPD's words, without the song (`avformat_open_input() failed: Invalid argument`): the player
    /// shows `Failed to decode SONG; CAUSE` as MPD does.
    public var cause: String?
    public init(_ message: String, cause: String? = nil) {
        self.message = message
        self.cause = cause
    }
    public var description: String { message }
}

/// Opens songs for decoding. Implemented by the FFmpeg edge; fakes in tests.
public protocol AudioDecoderFactory: Sendable {
    /// Opens an absolute path or an `http(s)://` URL. Blocking (file or network I/O): call it on the decoder
    /// thread. Throws `DecoderError` when the input cannot be opened or holds no decodable audio.
    func open(_ location: String) throws(DecoderError) -> any AudioDecoding
    /// Opens a song through an input that is already connected (a NetEase stream whose URL was resolved first).
    /// `location` names the resource for probing (its extension) and for errors. Blocking, as `open`.
    func open(_ location: String, input: any RemoteInput) throws(DecoderError) -> any AudioDecoding
    /// A hint that `location` is likely to be opened soon (the queued next song): a factory whose opening needs a
    /// slow lookup (a NetEase stream URL) starts it now, so the song follows the current one without a gap. Must
    /// not block: it is called under the player's locks.
    func prepare(_ location: String)
}

extension AudioDecoderFactory {
    public func open(_ location: String, input: any RemoteInput) throws(DecoderError) -> any AudioDecoding {
        input.close()
        throw DecoderError("Failed to open \"\(location)\": this decoder reads files only")
    }

    public func prepare(_ location: String) {}
}

/// One open song. Used from one thread at a time (the decoder thread), so not `Sendable`.
public protocol AudioDecoding: AnyObject {
    /// The PCM `read` produces: the source's rate and channels; 16-bit sources give `16`, 24-bit `24`, 32-bit
    /// integer `32`, float codecs (mp3, aac, vorbis, opus) `f` — the format MPD reports in `audio:`.
    var format: AudioFormat { get }
    /// Seconds, when known.
    var duration: Double? { get }
    /// kbit/s of the input, when known (`bitrate:` in `status`).
    var bitrate: Int? { get }
    var replayGain: ReplayGainInfo { get }
    /// `MIXRAMP_START` / `MIXRAMP_END` tag values, when present.
    var mixRampStart: String? { get }
    var mixRampEnd: String? { get }
    /// Appends the next decoded frames (interleaved, in `format`) to `buffer`. Returns false at the end of the
    /// stream (nothing appended). A damaged frame in the middle is skipped, as MPD does; a fatal error throws.
    func read(into buffer: inout [UInt8]) throws(DecoderError) -> Bool
    /// Positions so that the next `read` starts with the sample at `seconds` (sample-accurate: frames before the
    /// target are decoded and discarded). Throws when the input cannot seek.
    func seek(to seconds: Double) throws(DecoderError)
    /// New tags that arrived inside the stream (ICY metadata, a chained Ogg stream), or nil when none since the
    /// last call.
    func takeStreamTags() -> [Song.Tag]?
}

/// Converts PCM between formats (sample format, rate, channels). Implemented with libswresample.
public protocol PCMConverterFactory: Sendable {
    func makeConverter(from source: AudioFormat, to target: AudioFormat) throws(DecoderError) -> any PCMConverting
}

public protocol PCMConverting: AnyObject {
    /// Converts whole frames of `input` and appends the result to `output`. A resampler may hold some frames back.
    func convert(_ input: UnsafeRawBufferPointer, into output: inout [UInt8])
    /// Appends what a resampler still holds (at the end of a stream).
    func flush(into output: inout [UInt8])
}
