import PlayerCore
import Synchronization

/// A song for the scripted decoder: `frames` frames of 16-bit PCM whose every sample is known in advance, so a
/// test can say exactly which bytes an output must receive. It can fail to open, fail after some frames, and
/// carry ReplayGain and MixRamp tags.
struct ScriptedSong: Sendable {
    static let format = AudioFormat(sampleRate: 8000, sampleFormat: .s16, channels: 2)

    var frames: Int
    /// Makes this song's samples differ from every other song's.
    var seed: Int
    var format = ScriptedSong.format
    /// Frames per `read`: not a divisor of the engine's chunk, so chunks are cut across reads.
    var framesPerRead = 300
    /// What `open` throws.
    var openError: DecoderError?
    /// `read` hands out this many frames, then throws `readError`.
    var failAfter: Int?
    var readError = DecoderError("scripted read failure", cause: "broken frame")
    var seekable = true
    var replayGain = ReplayGainInfo()
    var mixRampStart: String?
    var mixRampEnd: String?

    init(seconds: Double, seed: Int) {
        frames = Int((seconds * Double(Self.format.sampleRate)).rounded())
        self.seed = seed
    }

    init(frames: Int, seed: Int) {
        self.frames = frames
        self.seed = seed
    }

    var duration: Double { Double(frames) / Double(format.sampleRate) }

    /// The sample of `channel` at `frame`: neighbouring frames, the channels and the songs all differ, so a lost,
    /// repeated or misplaced frame changes the bytes. Within ±10,005, so that mixing two songs never clips.
    func sample(frame: Int, channel: Int) -> Int16 {
        Int16((frame &* 31 &+ channel &* 7919 &+ seed &* 104_729) % 20011 - 10005)
    }

    /// The song's PCM, frames `range`.
    func pcm(_ range: Range<Int>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(range.count * format.bytesPerFrame)
        for frame in range {
            for channel in 0..<format.channels {
                let value = UInt16(bitPattern: sample(frame: frame, channel: channel))
                bytes.append(UInt8(value & 0xFF))
                bytes.append(UInt8(value >> 8))
            }
        }
        return bytes
    }

    /// The whole song's PCM.
    var pcm: [UInt8] { pcm(0..<frames) }

    /// The song's PCM from `seconds` to its end.
    func pcm(from seconds: Double) -> [UInt8] { pcm(Self.frame(at: seconds, in: format)..<frames) }

    static func frame(at seconds: Double, in format: AudioFormat = Self.format) -> Int {
        Int((seconds * Double(format.sampleRate)).rounded())
    }
}

/// The decoder factory the engine is given: it opens the songs a test scripted, by location.
final class ScriptedDecoders: AudioDecoderFactory {
    private let songs = Mutex<[String: ScriptedSong]>([:])

    /// Where the engine finds a song (the player's `locate`).
    static func location(of song: Song) -> String { "/music/" + song.uri }

    func add(_ uri: String, _ song: ScriptedSong) {
        songs.withLock { $0["/music/" + uri] = song }
    }

    func open(_ location: String) throws(DecoderError) -> any AudioDecoding {
        guard let song = songs.withLock({ $0[location] }) else {
            throw DecoderError("no scripted song at \(location)", cause: "No such file")
        }
        if let error = song.openError { throw error }
        return ScriptedDecoder(song)
    }
}

/// One open scripted song, read from the decoder thread.
final class ScriptedDecoder: AudioDecoding {
    let song: ScriptedSong
    private var position = 0

    init(_ song: ScriptedSong) { self.song = song }

    var format: AudioFormat { song.format }
    var duration: Double? { song.duration }
    var bitrate: Int? { 256 }
    var replayGain: ReplayGainInfo { song.replayGain }
    var mixRampStart: String? { song.mixRampStart }
    var mixRampEnd: String? { song.mixRampEnd }

    func read(into buffer: inout [UInt8]) throws(DecoderError) -> Bool {
        let end = min(song.frames, song.failAfter ?? song.frames)
        if position >= end {
            if song.failAfter != nil { throw song.readError }
            return false
        }
        let count = min(song.framesPerRead, end - position)
        buffer += song.pcm(position..<position + count)
        position += count
        return true
    }

    func seek(to seconds: Double) throws(DecoderError) {
        guard song.seekable else { throw DecoderError("not seekable") }
        position = min(song.frames, ScriptedSong.frame(at: seconds, in: song.format))
    }

    func takeStreamTags() -> [Song.Tag]? { nil }
}

/// The scripted songs all have the pipe's format: a conversion asked for is a test's mistake.
struct NoConversion: PCMConverterFactory {
    func makeConverter(from source: AudioFormat, to target: AudioFormat) throws(DecoderError) -> any PCMConverting {
        throw DecoderError("no conversion from \(source) to \(target) in these tests")
    }
}
