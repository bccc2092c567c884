import FFmpegDecoder
import Foundation
import TestTools
import NetEase
import PlayerCore

/// Runs a command line tool and returns its standard output.
func run(_ arguments: [String]) throws -> Data { try CommandLineTool.run(arguments) }

/// Audio files made once per test run with the ffmpeg command line: 4 s of two sines (a pitch per channel).
final class Fixtures: Sendable {
    static let shared = Fixtures()

    let directory: String

    static let sources: [(name: String, arguments: [String])] = [
        ("a.flac", ["-c:a", "flac"]),
        ("a.mp3", ["-c:a", "libmp3lame", "-b:a", "128k"]),
        // ffmpeg's MP4 muxer writes the index (`moov`) after the audio unless told `+faststart`: a reader must
        // seek to the end before it can decode anything.
        ("a.m4a", ["-c:a", "aac", "-b:a", "128k"]),
        ("a.ogg", ["-c:a", "libvorbis", "-q:a", "4"]),
    ]

    init() {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("nosignal-curl-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let stereo = "\(directory)/stereo.wav"
        _ = try! run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi",
                      "-i", "sine=frequency=440:sample_rate=44100:duration=4",
                      "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=44100:duration=4",
                      "-filter_complex", "[0][1]amerge=inputs=2,volume=1.8", "-c:a", "pcm_s16le", stereo])
        // 20 s, for a radio stream whose title changes halfway.
        _ = try! run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi",
                      "-i", "sine=frequency=330:sample_rate=44100:duration=20", "-ac", "2",
                      "-c:a", "libmp3lame", "-b:a", "128k", "\(directory)/long.mp3"])
        for source in Self.sources {
            _ = try! run(["ffmpeg", "-nostdin", "-v", "error", "-i", stereo] + source.arguments
                         + ["\(directory)/\(source.name)"])
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func path(_ name: String) -> String { "\(directory)/\(name)" }

    func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name))))
    }
}

/// Decodes to the end with our decoder.
func decodeAll(_ decoder: any AudioDecoding) throws -> [UInt8] {
    var output: [UInt8] = []
    while try decoder.read(into: &output) {}
    return output
}

/// Reads a remote input to the end.
func readAll(_ input: any RemoteInput, chunk: Int = 7000) throws -> [UInt8] {
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: chunk)
    while true {
        let count = try buffer.withUnsafeMutableBytes { raw throws(DecoderError) in try input.read(into: raw) }
        if count == 0 { return output }
        output += buffer[0..<count]
    }
}

/// Where two buffers first differ, for readable failures (compare into a `let` first: `#expect(a == b)` on
/// megabyte arrays prints and diffs them on failure, which takes minutes).
func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> String {
    let count = min(a.count, b.count)
    for index in 0..<count where a[index] != b[index] {
        return "sizes \(a.count)/\(b.count), first difference at byte \(index)"
    }
    return a.count == b.count ? "equal" : "sizes \(a.count)/\(b.count), equal prefix"
}

/// A factory with short timeouts, so failure tests finish in seconds. Three seconds without a byte count as a stall:
/// with one, opening a file from the test server failed on a loaded CI machine; the stall tests ask for one.
func quickFactory(bufferSize: Int = 256 * 1024, lowSpeedTime: Int = 3) -> CurlInputFactory {
    CurlInputFactory(configuration: HTTPConfiguration(connectTimeout: 2, lowSpeedTime: lowSpeedTime,
                                                      requestTimeout: nil),
                     bufferSize: bufferSize)
}

/// Seconds `body` takes.
func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let start = Date()
    let value = try body()
    return (value, Date().timeIntervalSince(start))
}

/// The `DecoderError` `body` throws, nil when it returns (or throws something else).
func decoderError(_ body: () throws -> Void) -> DecoderError? {
    do {
        try body()
        return nil
    } catch {
        return error as? DecoderError
    }
}
