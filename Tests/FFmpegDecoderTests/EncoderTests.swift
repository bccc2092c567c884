import FFmpegDecoder
import Foundation
import PlayerCore
import Testing

@Suite("httpd stream encoders")
struct EncoderTests {
    let factory = FFmpegEncoderFactory()

    /// `seconds` of a stereo sine pair in `format`, made in float and converted with our converter.
    static func sine(_ format: AudioFormat, seconds: Double) throws -> [UInt8] {
        let floatFormat = AudioFormat(sampleRate: format.sampleRate, sampleFormat: .float, channels: format.channels)
        var samples: [Float] = []
        for index in 0..<Int(seconds * Double(format.sampleRate)) {
            let t = Float(index) / Float(format.sampleRate)
            for channel in 0..<format.channels { samples.append(0.4 * sin(2 * .pi * Float(440 + 220 * channel) * t)) }
        }
        let pcm = samples.withUnsafeBytes(Array.init)
        return format.sampleFormat == .float ? pcm : try ConverterTests.convert(pcm, from: floatFormat, to: format)
    }

    /// Encodes in 100 ms calls; returns the header and what each call (and `finish`) produced.
    static func encode(_ encoder: any AudioEncoding, _ pcm: [UInt8]) throws -> (header: [UInt8], pieces: [[UInt8]]) {
        let step = encoder.inputFormat.sampleRate / 10 * encoder.inputFormat.bytesPerFrame
        var pieces: [[UInt8]] = []
        var offset = 0
        while offset < pcm.count {
            var output: [UInt8] = []
            let end = min(pcm.count, offset + step)
            try pcm[offset..<end].withUnsafeBytes { try encoder.encode($0, into: &output) }
            pieces.append(output)
            offset = end
        }
        var last: [UInt8] = []
        encoder.finish(into: &last)
        pieces.append(last)
        return (encoder.header, pieces)
    }

    /// What ffprobe says the codec is, and the seconds `ffmpeg` decodes from the file.
    static func probe(_ bytes: [UInt8], suffix: String) throws -> (codec: String, seconds: Double, rate: Int) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nosignal-enc-\(UUID().uuidString).\(suffix)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let info = String(decoding: try run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries",
                                             "stream=codec_name,sample_rate", "-of", "default=nw=1", path]), as: UTF8.self)
        var fields: [String: String] = [:]
        for line in info.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        let pcm = try run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-ac", "1", "-ar", "8000", "-f", "s16le", "-"])
        return (fields["codec_name"] ?? "?", Double(pcm.count / 2) / 8000, Int(fields["sample_rate"] ?? "") ?? 0)
    }

    static let cases: [(EncoderSettings, codec: String, mime: String, suffix: String)] = [
        (EncoderSettings(codec: .mp3, bitrate: 128), "mp3", "audio/mpeg", "mp3"),
        (EncoderSettings(codec: .mp3, quality: 4), "mp3", "audio/mpeg", "mp3"),
        (EncoderSettings(codec: .opus, bitrate: 96), "opus", "audio/ogg", "ogg"),
        (EncoderSettings(codec: .vorbis, quality: 5), "vorbis", "audio/ogg", "ogg"),
        (EncoderSettings(codec: .vorbis, bitrate: 128), "vorbis", "audio/ogg", "ogg"),
        (EncoderSettings(codec: .flac), "flac", "audio/flac", "flac"),
        (EncoderSettings(codec: .wave), "pcm_s16le", "audio/wav", "wav"),
    ]

    /// The whole stream decodes as the right codec and length; so does the header followed by the pieces from
    /// the middle on, which is what a listener connecting late receives.
    @Test(arguments: 0..<cases.count)
    func encodesAStreamListenersCanJoin(_ index: Int) throws {
        let (settings, codec, mime, suffix) = Self.cases[index]
        let encoder = try factory.makeEncoder(settings, for: AudioFormat(sampleRate: 44100, sampleFormat: .float, channels: 2))
        #expect(encoder.mimeType == mime)
        let (header, pieces) = try Self.encode(encoder, try Self.sine(encoder.inputFormat, seconds: 3))
        #expect(header.isEmpty == (settings.codec == .mp3))

        let whole = try Self.probe(header + pieces.flatMap { $0 }, suffix: suffix)
        #expect(whole.codec == codec)
        #expect(whole.rate == encoder.inputFormat.sampleRate)
        #expect(abs(whole.seconds - 3) < 0.08, "\(settings): \(whole.seconds) s")

        // Join at the first piece after 1.5 s that carries bytes.
        let start = (15..<pieces.count).first { !pieces[$0].isEmpty }!
        let late = try Self.probe(header + pieces[start...].flatMap { $0 }, suffix: suffix)
        #expect(late.codec == codec)
        #expect(late.seconds > 0.8 && late.seconds < 1.7, "\(settings): joined late, \(late.seconds) s")
    }

    @Test func inputFormats() throws {
        let cd = AudioFormat.cd
        let hires = AudioFormat(sampleRate: 96000, sampleFormat: .s24, channels: 2)
        #expect(try factory.makeEncoder(EncoderSettings(codec: .opus), for: cd).inputFormat
                == AudioFormat(sampleRate: 48000, sampleFormat: .float, channels: 2))
        #expect(try factory.makeEncoder(EncoderSettings(codec: .mp3), for: hires).inputFormat
                == AudioFormat(sampleRate: 48000, sampleFormat: .s16, channels: 2))
        #expect(try factory.makeEncoder(EncoderSettings(codec: .flac), for: hires).inputFormat == hires)
        #expect(try factory.makeEncoder(EncoderSettings(codec: .flac), for: cd).inputFormat == cd)
        #expect(try factory.makeEncoder(EncoderSettings(codec: .wave), for: hires).inputFormat
                == AudioFormat(sampleRate: 96000, sampleFormat: .s16, channels: 2))
        #expect(try factory.makeEncoder(EncoderSettings(codec: .vorbis), for: hires).inputFormat
                == AudioFormat(sampleRate: 96000, sampleFormat: .float, channels: 2))
    }

    /// 24-bit FLAC keeps all 24 bits: decoding the stream gives back exactly what went in.
    @Test func flac24IsLossless() throws {
        let format = AudioFormat(sampleRate: 48000, sampleFormat: .s24, channels: 2)
        let encoder = try factory.makeEncoder(EncoderSettings(codec: .flac), for: format)
        let pcm = try Self.sine(format, seconds: 1)
        let (header, pieces) = try Self.encode(encoder, pcm)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nosignal-enc-\(UUID().uuidString).flac").path
        try Data(header + pieces.flatMap { $0 }).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let decoder = try FFmpegDecoderFactory().open(path)
        #expect(decoder.format == format)
        let decoded = try decodeAll(decoder)
        let equal = decoded == pcm
        #expect(equal, "\(firstDifference(decoded, pcm, width: 4))")
    }

    /// The bitrate setting reaches lame: 64 kbit/s for 3 s is about 24 kB.
    @Test func mp3BitrateIsHonoured() throws {
        for bitrate in [64, 192] {
            let encoder = try factory.makeEncoder(EncoderSettings(codec: .mp3, bitrate: bitrate), for: .cd)
            let (_, pieces) = try Self.encode(encoder, try Self.sine(encoder.inputFormat, seconds: 3))
            let bytes = pieces.reduce(0) { $0 + $1.count }
            let expected = bitrate * 1000 / 8 * 3
            #expect(abs(bytes - expected) < expected / 10, "\(bitrate) kbit/s gave \(bytes) bytes")
        }
    }

    /// Ogg output comes in whole pages: every piece starts with a page header and the pages fill it exactly.
    @Test(arguments: [EncoderSettings.Codec.opus, .vorbis])
    func oggPiecesAreWholePages(_ codec: EncoderSettings.Codec) throws {
        let encoder = try factory.makeEncoder(EncoderSettings(codec: codec), for: .cd)
        let (header, pieces) = try Self.encode(encoder, try Self.sine(encoder.inputFormat, seconds: 1))
        for piece in [header] + pieces where !piece.isEmpty {
            var offset = 0
            while offset < piece.count {
                #expect(Array(piece[offset..<offset + 4]) == Array("OggS".utf8))
                let segments = Int(piece[offset + 26])
                let body = piece[(offset + 27)..<(offset + 27 + segments)].reduce(0) { $0 + Int($1) }
                offset += 27 + segments + body
            }
            #expect(offset == piece.count)
        }
        #expect(pieces.filter { !$0.isEmpty }.count >= 5)
    }

    @Test func waveHeader() throws {
        let encoder = try factory.makeEncoder(EncoderSettings(codec: .wave), for: AudioFormat(sampleRate: 48000, sampleFormat: .float, channels: 1))
        #expect(encoder.header.count == 44)
        #expect(Array(encoder.header[0..<4]) == Array("RIFF".utf8) && Array(encoder.header[36..<40]) == Array("data".utf8))
        var output: [UInt8] = []
        try [UInt8](repeating: 7, count: 11).withUnsafeBytes { try encoder.encode($0, into: &output) }
        #expect(output.count == 10)
    }
}
