/// A PCM format as MPD writes it: `samplerate:bits:channels`, bits being `16`, `24` (24-bit samples in 32-bit
/// little-endian words, MPD's `S24_P32`), `32` or `f` (32-bit float). Samples are always interleaved and
/// native-endian (little-endian here).
public struct AudioFormat: Hashable, Sendable, CustomStringConvertible {
    public enum SampleFormat: String, Hashable, Sendable, CaseIterable {
        case s16 = "16"
        case s24 = "24"
        case s32 = "32"
        case float = "f"

        public var bytes: Int { self == .s16 ? 2 : 4 }
    }

    public var sampleRate: Int
    public var sampleFormat: SampleFormat
    public var channels: Int

    public init(sampleRate: Int, sampleFormat: SampleFormat, channels: Int) {
        self.sampleRate = sampleRate
        self.sampleFormat = sampleFormat
        self.channels = channels
    }

    public static let cd = AudioFormat(sampleRate: 44100, sampleFormat: .s16, channels: 2)

    public var bytesPerFrame: Int { sampleFormat.bytes * channels }
    public var bytesPerSecond: Int { bytesPerFrame * sampleRate }

    /// `44100:16:2`, as `status` shows it in `audio:`.
    public var description: String { "\(sampleRate):\(sampleFormat.rawValue):\(channels)" }

    /// Parses `44100:16:2`; nil when malformed or out of MPD's limits.
    public init?(_ text: String) {
        guard let mask = AudioFormatMask(text), let rate = mask.sampleRate, let format = mask.sampleFormat,
              let channels = mask.channels else { return nil }
        self.init(sampleRate: rate, sampleFormat: format, channels: channels)
    }

    public func seconds(ofBytes count: Int) -> Double { Double(count) / Double(bytesPerSecond) }
}

/// MPD's `format` / `audio_output_format` setting: `samplerate:bits:channels` where any part may be `*` (keep the
/// source's). Applying it to a source format yields the format an output must receive.
public struct AudioFormatMask: Hashable, Sendable, CustomStringConvertible {
    public var sampleRate: Int?
    public var sampleFormat: AudioFormat.SampleFormat?
    public var channels: Int?

    public init(sampleRate: Int? = nil, sampleFormat: AudioFormat.SampleFormat? = nil, channels: Int? = nil) {
        self.sampleRate = sampleRate
        self.sampleFormat = sampleFormat
        self.channels = channels
    }

    /// Parses `44100:16:2`, `*:16:*`, `48000:f:*`; nil when malformed. Rates 1…768000 (MPD's limit × 4 for DSD is
    /// not supported), channels 1…8; bits `8` is read as `16` (the pipeline has no 8-bit path).
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        if parts[0] != "*" {
            guard let rate = Int(parts[0]), (1...768_000).contains(rate) else { return nil }
            sampleRate = rate
        }
        if parts[1] != "*" {
            if parts[1] == "8" { sampleFormat = .s16 } else {
                guard let format = AudioFormat.SampleFormat(rawValue: String(parts[1])) else { return nil }
                sampleFormat = format
            }
        }
        if parts[2] != "*" {
            guard let count = Int(parts[2]), (1...8).contains(count) else { return nil }
            channels = count
        }
    }

    public var isEmpty: Bool { sampleRate == nil && sampleFormat == nil && channels == nil }

    public func apply(to format: AudioFormat) -> AudioFormat {
        AudioFormat(sampleRate: sampleRate ?? format.sampleRate, sampleFormat: sampleFormat ?? format.sampleFormat,
                    channels: channels ?? format.channels)
    }

    public var description: String {
        "\(sampleRate.map(String.init) ?? "*"):\(sampleFormat?.rawValue ?? "*"):\(channels.map(String.init) ?? "*")"
    }
}
