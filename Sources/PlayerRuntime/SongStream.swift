import Glibc
import PlayerCore

/// One song being decoded for the pipe: the decoder, the conversion to `audio_output_format`, the ReplayGain
/// factor and the song's range, turned into ready PCM in the pipe's format. Used on the decoder thread only.
final class SongStream {
    let item: PlaybackItem
    let decoder: any AudioDecoding
    /// The decoder's format (shown in `audio:`).
    let source: AudioFormat
    /// The pipe's format.
    let format: AudioFormat
    /// Seconds into the song of the next frame handed out.
    private(set) var time: Double
    let duration: Double?
    private let converter: (any PCMConverting)?
    private let gain: Double
    private var pending: [UInt8] = []
    private var ended = false

    init(item: PlaybackItem, seek: Double?, decoders: any AudioDecoderFactory, converters: any PCMConverterFactory,
         outputFormat: AudioFormatMask, gain: (ReplayGainInfo) -> Double, location: String) throws(DecoderError) {
        self.item = item
        let decoder = try decoders.open(location)
        let start = seek ?? item.range?.start ?? 0
        if start > 0 { try decoder.seek(to: start) }
        self.decoder = decoder
        time = start
        let source = decoder.format
        let format = outputFormat.apply(to: source)
        self.source = source
        self.format = format
        converter = format == source ? nil : try converters.makeConverter(from: source, to: format)
        self.gain = gain(decoder.replayGain)
        let known = decoder.duration ?? item.song.duration
        duration = item.range.map { range in (range.end ?? known ?? 0) - range.start } ?? known
    }

    /// Where the song ends, in song time, when known.
    var endTime: Double? {
        if let end = item.range?.end { return end }
        return duration.map { $0 + (item.range?.start ?? 0) }
    }

    var bitrate: Int { decoder.bitrate ?? 0 }

    /// The ReplayGain applied, in dB (MixRamp thresholds are shifted by it).
    var gainDB: Double { 20 * log10(max(gain, 1e-9)) }

    /// `count` bytes (whole frames), fewer only at the end of the song; nil once nothing is left.
    func read(upTo count: Int) throws(DecoderError) -> [UInt8]? {
        try fill(count)
        guard !pending.isEmpty else { return nil }
        return take(min(count, pending.count))
    }

    /// Exactly `count` bytes; silence after the end of the song.
    func read(exactly count: Int) throws(DecoderError) -> [UInt8] {
        try fill(count)
        var bytes = take(min(count, pending.count))
        if bytes.count < count { bytes += [UInt8](repeating: 0, count: count - bytes.count) }
        return bytes
    }

    var isFinished: Bool { ended && pending.isEmpty }

    private func take(_ count: Int) -> [UInt8] {
        let bytes = Array(pending[..<count])
        pending.removeFirst(count)
        time += format.seconds(ofBytes: bytes.count)
        return bytes
    }

    private func fill(_ count: Int) throws(DecoderError) {
        while pending.count < count && !ended {
            var raw: [UInt8] = []
            if try !decoder.read(into: &raw) { ended = true }
            if let end = item.range?.end {
                // The range ends inside this piece: cut it there.
                let decodedSeconds = source.seconds(ofBytes: raw.count)
                let position = time + format.seconds(ofBytes: pending.count)
                if position + decodedSeconds >= end {
                    let allowed = max(0, Int(saturating: ((end - position) * Double(source.sampleRate)).rounded()))
                        * source.bytesPerFrame
                    if raw.count > allowed { raw.removeSubrange(allowed...) }
                    ended = true
                }
            }
            if let converter {
                var converted: [UInt8] = []
                raw.withUnsafeBytes { converter.convert($0, into: &converted) }
                if ended { converter.flush(into: &converted) }
                raw = converted
            }
            PCMScaling.scale(&raw, format: format.sampleFormat, by: gain)
            pending += raw
        }
    }
}
