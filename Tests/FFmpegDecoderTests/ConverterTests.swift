import FFmpegDecoder
import Foundation
import PlayerCore
import Testing

@Suite("swresample converter")
struct ConverterTests {
    let factory = FFmpegPCMConverterFactory()

    static func convert(_ input: [UInt8], from source: AudioFormat, to target: AudioFormat,
                        chunk: Int = 4096) throws -> [UInt8] {
        let converter = try FFmpegPCMConverterFactory().makeConverter(from: source, to: target)
        var output: [UInt8] = []
        // In uneven pieces, as the player feeds it.
        var offset = 0
        while offset < input.count {
            let end = min(input.count, offset + chunk * source.bytesPerFrame)
            input[offset..<end].withUnsafeBytes { converter.convert($0, into: &output) }
            offset = end
        }
        converter.flush(into: &output)
        return output
    }

    /// A float signal that also goes beyond full scale, to check rounding and clipping.
    static let floatSignal: [UInt8] = {
        var samples: [Float] = []
        for index in 0..<44100 {
            let t = Float(index) / 44100
            samples.append(1.3 * sin(2 * .pi * 440 * t))
            samples.append(0.3 * sin(2 * .pi * 1000 * t) + Float(index % 7) * 1e-5)
        }
        return samples.withUnsafeBytes(Array.init)
    }()

    static func withTemporaryFile<T>(_ bytes: [UInt8], _ body: (String) throws -> T) throws -> T {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nosignal-\(UUID().uuidString).raw").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }

    /// float → s16 gives what `ffmpeg -f f32le … -f s16le` gives (libswresample's defaults: no dither, round to
    /// nearest, clip).
    @Test func floatToS16MatchesTheFFmpegCommandLine() throws {
        let float = AudioFormat(sampleRate: 44100, sampleFormat: .float, channels: 2)
        let ours = try Self.convert(Self.floatSignal, from: float, to: AudioFormat(sampleRate: 44100, sampleFormat: .s16, channels: 2),
                                    chunk: 1000)
        let reference = try Self.withTemporaryFile(Self.floatSignal) { path in
            [UInt8](try run(["ffmpeg", "-nostdin", "-v", "error", "-f", "f32le", "-ar", "44100", "-ac", "2",
                             "-i", path, "-f", "s16le", "-"]))
        }
        #expect(ours.count == 44100 * 4)
        let equal = ours == reference
        #expect(equal, "\(firstDifference(ours, reference))")
        let samples = ours.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(samples.contains(Int16.max) && samples.contains(Int16.min))
    }

    /// 44.1 → 48 kHz: the length the rate ratio gives (within a frame), and the same samples as the ffmpeg
    /// command line's resampler with default options.
    @Test func resamplesTo48k() throws {
        let source = AudioFormat(sampleRate: 44100, sampleFormat: .s16, channels: 2)
        let path = Fixtures.shared.path("a.wav")
        let input = try ffmpegDecode(path)
        let ours = try Self.convert(input, from: source, to: AudioFormat(sampleRate: 48000, sampleFormat: .s16, channels: 2),
                                    chunk: 1234)
        let inputFrames = input.count / 4
        let expectedFrames = (inputFrames * 48000 + 44099) / 44100
        #expect(abs(ours.count / 4 - expectedFrames) <= 1, "\(ours.count / 4) frames for \(expectedFrames)")
        let reference = try ffmpegDecode(path, extra: ["-ar", "48000"])
        let equal = ours == reference
        #expect(equal, "\(firstDifference(ours, reference))")
    }

    @Test func s24AndS16() throws {
        let values: [Int32] = [0, 1, 255, 256, -256, -257, 0x7FFFFF, -0x800000, 0x123456, -0x123456]
        let s24 = values.withUnsafeBytes(Array.init)
        let mono24 = AudioFormat(sampleRate: 44100, sampleFormat: .s24, channels: 1)
        let mono16 = AudioFormat(sampleRate: 44100, sampleFormat: .s16, channels: 1)
        let down = try Self.convert(s24, from: mono24, to: mono16)
        #expect(down.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) } == values.map { Int16($0 >> 8) })
        let up = try Self.convert(down, from: mono16, to: mono24)
        #expect(up.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) } == values.map { ($0 >> 8) << 8 })
        // s24 ↔ s32 and s24 → float → s24 are lossless.
        let mono32 = AudioFormat(sampleRate: 44100, sampleFormat: .s32, channels: 1)
        let wide = try Self.convert(s24, from: mono24, to: mono32)
        #expect(wide.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) } == values.map { $0 << 8 })
        #expect(try Self.convert(wide, from: mono32, to: mono24) == s24)
    }

    /// Mono is copied to both channels and stereo averaged, as MPD does (not libswresample's −3 dB mix).
    @Test func monoAndStereo() throws {
        let mono = AudioFormat(sampleRate: 44100, sampleFormat: .s16, channels: 1)
        let stereo = AudioFormat(sampleRate: 44100, sampleFormat: .s16, channels: 2)
        let samples: [Int16] = [0, 1000, -1000, 32767, -32768]
        let up = try Self.convert(samples.withUnsafeBytes(Array.init), from: mono, to: stereo)
        #expect(up.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) } == samples.flatMap { [$0, $0] })
        let pairs: [Int16] = [1000, 3000, -2000, 2000, 32767, 32767]
        let down = try Self.convert(pairs.withUnsafeBytes(Array.init), from: stereo, to: mono)
        #expect(down.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) } == [2000, 0, 32767])
    }

    @Test func sameFormatPassesThrough() throws {
        let format = AudioFormat(sampleRate: 44100, sampleFormat: .s24, channels: 2)
        let bytes: [UInt8] = (0..<64).map { UInt8($0) }
        #expect(try Self.convert(bytes, from: format, to: format) == bytes)
    }
}
