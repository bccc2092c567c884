import FFmpegDecoder
import Foundation
import PlayerCore
import Testing

@Suite("FFmpeg decoder")
struct DecoderTests {
    let fixtures = Fixtures.shared
    let factory = FFmpegDecoderFactory()

    static let names = Fixtures.sources.map(\.name) + Fixtures.sources.map { "mono-" + $0.name }

    /// The samples equal `ffmpeg -i FILE -f s16le -`, including its trimming of encoder delay and padding.
    @Test(arguments: names)
    func decodesLikeTheFFmpegCommandLine(_ name: String) throws {
        let path = fixtures.path(name)
        let decoder = try factory.open(path)
        let ours = try asS16(try decodeAll(decoder), decoder.format)
        let reference = try ffmpegDecode(path)
        #expect(reference.count > 44100 * 2)
        let equal = ours == reference
        #expect(equal, "\(name): \(firstDifference(ours, reference))")
        #expect(decoder.format.channels == (name.hasPrefix("mono-") ? 1 : 2))
        let lossless = name.hasSuffix(".wav") || name.hasSuffix(".flac")
        #expect(decoder.format.sampleFormat == (lossless ? .s16 : .float))
        #expect(decoder.format.sampleRate == (name.hasSuffix(".opus") ? 48000 : 44100))
    }

    /// 24-bit FLAC comes out as MPD's S24_P32: FFmpeg's left-justified S32 shifted right by 8, nothing else.
    @Test func flac24IsRightJustified() throws {
        let path = fixtures.path("a24.flac")
        let decoder = try factory.open(path)
        #expect(decoder.format == AudioFormat(sampleRate: 48000, sampleFormat: .s24, channels: 2))
        let ours = try decodeAll(decoder)
        let reference = try ffmpegDecode(path, format: "s32le")
        #expect(ours.count == reference.count && ours.count == 48000 * 3 * 8)
        let shifted = reference.withUnsafeBytes { raw in
            (0..<(raw.count / 4)).flatMap { index in
                withUnsafeBytes(of: (raw.loadUnaligned(fromByteOffset: index * 4, as: Int32.self) >> 8).littleEndian, Array.init)
            }
        }
        let equal = ours == shifted
        #expect(equal, "\(firstDifference(ours, shifted, width: 4))")
        // Really 24-bit: the top byte is only sign extension and some samples need more than 16 bits.
        let samples = ours.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
        #expect(samples.allSatisfy { (-(1 << 23)..<(1 << 23)).contains($0) })
        #expect(samples.contains { $0 > 1 << 19 } && samples.contains { $0 & 0xFF != 0 })
        // Converting to 16 bits drops the low 8 bits exactly as the ffmpeg command line does.
        let converted = try asS16(ours, decoder.format) == (try ffmpegDecode(path))
        #expect(converted)
    }

    @Test func durationAndBitrate() throws {
        let mp3 = try factory.open(fixtures.path("a.mp3"))
        #expect(abs((mp3.duration ?? 0) - 4.0) < 0.1)
        #expect(mp3.bitrate == 128)
        let flac = try factory.open(fixtures.path("a.flac"))
        #expect(flac.duration == 4.0)
        #expect((flac.bitrate ?? 0) > 100 && (flac.bitrate ?? 0) < 1411)
        let wav = try factory.open(fixtures.path("a.wav"))
        #expect(wav.bitrate == 1411)
        let opus = try factory.open(fixtures.path("mono-a.opus"))
        #expect(abs((opus.duration ?? 0) - 3.3) < 0.05)
    }

    /// Tags live on the container (FLAC, MP3) or on the stream (Ogg Opus); both are read, keys in any case.
    @Test(arguments: ["tagged.flac", "tagged.opus", "tagged.mp3"])
    func replayGainAndMixRamp(_ name: String) throws {
        let decoder = try factory.open(fixtures.path(name))
        #expect(decoder.replayGain == ReplayGainInfo(trackGain: -6.5, trackPeak: 0.988, albumGain: 1.25, albumPeak: 1))
        #expect(decoder.mixRampStart == "0.00 0.00;-10.00 1.20")
        #expect(decoder.mixRampEnd == "-10.00 2.00")
        #expect(decoder.takeStreamTags() == nil)
    }

    @Test func untaggedFileHasNoReplayGain() throws {
        let decoder = try factory.open(fixtures.path("a.flac"))
        #expect(decoder.replayGain.isEmpty && decoder.replayGain.trackPeak == nil)
        #expect(decoder.mixRampStart == nil && decoder.mixRampEnd == nil)
    }

    @Test func missingFileThrowsAReadableError() {
        let path = fixtures.path("missing.flac")
        #expect(throws: DecoderError("Failed to open \"\(path)\": No such file or directory",
                                     cause: "avformat_open_input() failed: No such file or directory")) {
            try factory.open(path)
        }
    }

    @Test func fileWithoutAudioThrows() throws {
        let path = fixtures.path("notaudio.mp3")
        let error = try #require(throws: DecoderError.self) { try factory.open(path) }
        #expect(error.message.hasPrefix("Failed to open \"\(path)\": ") || error.message.hasPrefix("Failed to decode \"\(path)\""))
    }

    /// A file cut in the middle plays up to the cut (what decodes) and then ends, as MPD does.
    @Test func truncatedFileEndsCleanly() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: fixtures.path("a.flac")))
        let path = fixtures.path("truncated.flac")
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path))
        let decoder = try factory.open(path)
        let pcm = try decodeAll(decoder)
        #expect(pcm.count > 44100 * 4 && pcm.count < 44100 * 4 * 4)
        var more: [UInt8] = []
        #expect(try decoder.read(into: &more) == false && more.isEmpty)
    }

    /// Damaged bytes in the middle of an MP3 lose a frame or two, not the song.
    @Test func damagedFramesAreSkipped() throws {
        var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixtures.path("a.mp3"))))
        for index in stride(from: data.count / 2, to: data.count / 2 + 600, by: 7) { data[index] ^= 0x5A }
        let path = fixtures.path("damaged.mp3")
        try Data(data).write(to: URL(fileURLWithPath: path))
        let decoder = try factory.open(path)
        let pcm = try decodeAll(decoder)
        #expect(pcm.count > 44100 * 8 * 3)
    }

    /// After `seek(to: t)` the next sample is sample round(t × rate) of a decode from the start — the remaining
    /// length being equal proves the position, as both end at the end of the file — with the same values:
    /// seeking starts early enough for the codec to rebuild its state and throws the extra away.
    /// WAV, FLAC, MP3 and Vorbis come out bit-identical. AAC and Opus cannot: FFmpeg's AAC encoder uses
    /// perceptual noise substitution and the decoder draws that noise from a generator whose state depends on
    /// every frame decoded since the codec was opened (with `-aac_pns 0` seeking is exact); CELT predicts band
    /// energies from the previous frames, so after a reset the error only decays. Measured here: AAC up to
    /// 0.0062, Opus up to 0.0009 (full scale 1.0, signal 0.225), hence the 0.02 bound for those two.
    @Test(arguments: names + ["a24.flac"])
    func seekIsSampleAccurate(_ name: String) throws {
        let path = fixtures.path(name)
        let whole = try decodeAll(try factory.open(path))
        let decoder = try factory.open(path)
        var first: [UInt8] = []
        _ = try decoder.read(into: &first)
        let format = decoder.format
        for seconds in [2.0, 0.0, 1.2345, 3.0] {
            try decoder.seek(to: seconds)
            let tail = try decodeAll(decoder)
            let offset = Int((seconds * Double(format.sampleRate)).rounded()) * format.bytesPerFrame
            let expected = Array(whole[offset...])
            #expect(tail.count == expected.count, "\(name) at \(seconds): \((tail.count - expected.count) / format.bytesPerFrame) frames off")
            if name.hasSuffix(".m4a") || name.hasSuffix(".opus") {
                let error = maxFloatDifference(tail, expected)
                #expect(error < 0.02, "\(name) at \(seconds): differs by \(error)")
            } else {
                let equal = tail == expected
                #expect(equal, "\(name) at \(seconds): \(firstDifference(tail, expected, width: format.sampleFormat.bytes))")
            }
        }
    }

    /// Seeking past the end leaves nothing to read (the player moves on), for every container.
    @Test(arguments: names)
    func seekPastTheEnd(_ name: String) throws {
        let decoder = try factory.open(fixtures.path(name))
        try decoder.seek(to: 100)
        var output: [UInt8] = []
        #expect(try decoder.read(into: &output) == false && output.isEmpty)
        try decoder.seek(to: 1)
        #expect(try decoder.read(into: &output) == true && !output.isEmpty)
    }

    /// Reading on after the end keeps answering false; a seek brings the song back.
    @Test func seekAfterTheEnd() throws {
        let decoder = try factory.open(fixtures.path("mono-a.flac"))
        let whole = try decodeAll(decoder)
        var more: [UInt8] = []
        #expect(try decoder.read(into: &more) == false)
        try decoder.seek(to: 1)
        let tail = try decodeAll(decoder)
        let equal = tail == Array(whole[(44100 * 2)...])
        #expect(equal)
    }
}

func maxFloatDifference(_ a: [UInt8], _ b: [UInt8]) -> Float {
    let x = a.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    let y = b.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    return zip(x, y).reduce(0) { max($0, abs($1.0 - $1.1)) }
}
