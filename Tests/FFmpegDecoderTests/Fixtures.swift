import FFmpegDecoder
import Foundation
import TestTools
import PlayerCore
import Testing

/// Runs a command line tool (ffmpeg, ffprobe) and returns its standard output.
func run(_ arguments: [String]) throws -> Data { try CommandLineTool.run(arguments) }

/// What `ffmpeg -i FILE -f FORMAT -` decodes: the reference our decoder must reproduce.
func ffmpegDecode(_ path: String, format: String = "s16le", extra: [String] = []) throws -> [UInt8] {
    [UInt8](try run(["ffmpeg", "-nostdin", "-v", "error", "-i", path] + extra + ["-f", format, "-"]))
}

/// Source files made once per test run with the ffmpeg command line: a few seconds of two sines (a different
/// pitch per channel, so a channel swap or a shift shows), in every codec the player must decode.
final class Fixtures: Sendable {
    static let shared = Fixtures()

    let directory: String

    /// Codec name → file name; each exists in stereo (`name`) and mono (`mono-name`).
    static let sources: [(name: String, arguments: [String])] = [
        ("a.wav", ["-c:a", "pcm_s16le"]),
        ("a.flac", ["-c:a", "flac"]),
        ("a.mp3", ["-c:a", "libmp3lame", "-b:a", "128k"]),
        ("a.ogg", ["-c:a", "libvorbis", "-q:a", "4"]),
        ("a.opus", ["-c:a", "libopus", "-b:a", "96k"]),
        ("a.m4a", ["-c:a", "aac", "-b:a", "128k"]),
    ]

    init() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("nosignal-ffmpeg-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let stereo = "\(directory)/stereo.wav"
        let mono = "\(directory)/mono.wav"
        _ = try! run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=4",
                      "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=44100:duration=4",
                      "-filter_complex", "[0][1]amerge=inputs=2,volume=1.8", "-c:a", "pcm_s16le", stereo])
        _ = try! run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi",
                      "-i", "sine=frequency=523:sample_rate=44100:duration=3.3", "-c:a", "pcm_s16le", mono])
        for source in Self.sources {
            for (input, prefix) in [(stereo, ""), (mono, "mono-")] {
                _ = try! run(["ffmpeg", "-nostdin", "-v", "error", "-i", input] + source.arguments
                             + ["\(directory)/\(prefix)\(source.name)"])
            }
        }
        // 24-bit FLAC (FFmpeg's flac encoder writes 24 bits from s32 input) from a sine computed in double
        // precision, so the low 8 bits carry signal.
        _ = try! run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi",
                      "-i", "aevalsrc=0.5*sin(2*PI*440*t)|0.4*sin(2*PI*660*t):s=48000:d=3",
                      "-c:a", "flac", "-sample_fmt", "s32", "\(directory)/a24.flac"])
        // Tagged files: ReplayGain and MixRamp in FLAC (container tags) and Opus (stream tags).
        let tags = ["-metadata", "REPLAYGAIN_TRACK_GAIN=-6.50 dB", "-metadata", "replaygain_track_peak=0.988",
                    "-metadata", "REPLAYGAIN_ALBUM_GAIN=+1.25 dB", "-metadata", "REPLAYGAIN_ALBUM_PEAK=1.000000",
                    "-metadata", "MIXRAMP_START=0.00 0.00;-10.00 1.20", "-metadata", "MIXRAMP_END=-10.00 2.00"]
        for name in ["tagged.flac", "tagged.opus", "tagged.mp3"] {
            _ = try! run(["ffmpeg", "-nostdin", "-v", "error", "-i", mono] + tags + ["\(directory)/\(name)"])
        }
        _ = FileManager.default.createFile(atPath: "\(directory)/notaudio.mp3",
                                       contents: Data(repeating: 0x41, count: 10000))
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func path(_ name: String) -> String { "\(directory)/\(name)" }
}

/// Decodes a whole file with our decoder.
func decodeAll(_ decoder: any AudioDecoding) throws -> [UInt8] {
    var output: [UInt8] = []
    while try decoder.read(into: &output) {}
    return output
}

/// Our PCM as signed 16-bit: as is for s16 sources, through our converter (libswresample, default options,
/// as the ffmpeg command line converts) for the others.
func asS16(_ pcm: [UInt8], _ format: AudioFormat) throws -> [UInt8] {
    if format.sampleFormat == .s16 { return pcm }
    let converter = try FFmpegPCMConverterFactory().makeConverter(
        from: format, to: AudioFormat(sampleRate: format.sampleRate, sampleFormat: .s16, channels: format.channels))
    var output: [UInt8] = []
    pcm.withUnsafeBytes { converter.convert($0, into: &output) }
    converter.flush(into: &output)
    return output
}

/// Where two buffers first differ (compare into a `let` first: `#expect(a == b)` on megabyte arrays makes
/// Swift Testing print and diff them on failure, which takes minutes) (in samples of `width` bytes), for readable failures.
func firstDifference(_ a: [UInt8], _ b: [UInt8], width: Int = 2) -> String {
    let count = min(a.count, b.count)
    for index in stride(from: 0, to: count, by: width) where a[index..<min(index + width, count)] != b[index..<min(index + width, count)] {
        return "sizes \(a.count)/\(b.count), first difference at sample \(index / width)"
    }
    return a.count == b.count ? "equal" : "sizes \(a.count)/\(b.count), equal prefix"
}
