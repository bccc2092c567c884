import Glibc
import PlayerCore

/// Gain applied to PCM in place: the software mixer and ReplayGain. Integer formats are rounded and clipped (MPD
/// dithers 16-bit output; plain rounding keeps the result reproducible and within one step of it).
enum PCMScaling {
    /// MPD's software mixer curve (`PercentVolumeToSoftwareVolume`): exponential, so that the lower half of the
    /// range is still audible; 100 is unity, 0 silence.
    static func softwareVolumeFactor(_ percent: Int) -> Double {
        if percent >= 100 { return 1 }
        if percent <= 0 { return 0 }
        // MPD rounds the factor to 1/1024 steps (`pcm_float_to_volume`).
        let factor = (exp(Double(percent) / 25.0) - 1) / (54.5981500331 - 1)
        return (factor * 1024).rounded() / 1024
    }

    /// The linear ReplayGain factor for `mode`, as MPD's `ReplayGainTuple::CalculateScale`: gain plus preamp, the
    /// missing preamp when the tags have none, limited so the peak does not clip when `limit` is on.
    static func replayGainFactor(_ info: ReplayGainInfo, mode: ReplayGainMode, settings: ReplayGainSettings) -> Double {
        guard mode != .off else { return 1 }
        let useAlbum = mode == .album
        let gain = useAlbum ? (info.albumGain ?? info.trackGain) : (info.trackGain ?? info.albumGain)
        let peak = useAlbum ? (info.albumPeak ?? info.trackPeak) : (info.trackPeak ?? info.albumPeak)
        // A tag that says `1e999 dB` is no gain at all: an infinite factor would play full-scale noise.
        guard let gain, gain.isFinite else { return pow(10, settings.missingPreamp / 20) }
        var scale = pow(10, (gain + settings.preamp) / 20)
        if settings.limit, let peak, peak.isFinite, peak > 0, scale * peak > 1 { scale = 1 / peak }
        return scale.isFinite ? scale : 1
    }

    /// Mixes `other` into `data` with a linear ramp: at the first frame `data` keeps `1 - from` of itself and
    /// takes `from` of `other`, at the last `1 - to` and `to`.
    static func crossfade(_ data: inout [UInt8], with other: [UInt8], format: AudioFormat.SampleFormat,
                          from: Double, to: Double) {
        let count = data.count / format.bytes
        guard count > 0, other.count >= data.count else { return }
        func ratio(_ i: Int) -> Double { min(1, max(0, from + (to - from) * Double(i) / Double(count))) }
        other.withUnsafeBytes { incoming in
            data.withUnsafeMutableBytes { raw in
                switch format {
                case .s16:
                    let a = raw.bindMemory(to: Int16.self), b = incoming.bindMemory(to: Int16.self)
                    for i in 0..<count {
                        let r = ratio(i)
                        a[i] = Int16(clamping: Int(saturating: (Double(a[i]) * (1 - r) + Double(b[i]) * r).rounded()))
                    }
                case .s24, .s32:
                    let a = raw.bindMemory(to: Int32.self), b = incoming.bindMemory(to: Int32.self)
                    for i in 0..<count {
                        let r = ratio(i)
                        a[i] = Int32(clamping: Int(saturating: (Double(a[i]) * (1 - r) + Double(b[i]) * r).rounded()))
                    }
                case .float:
                    let a = raw.bindMemory(to: Float.self), b = incoming.bindMemory(to: Float.self)
                    for i in 0..<count {
                        let r = Float(ratio(i))
                        a[i] = a[i] * (1 - r) + b[i] * r
                    }
                }
            }
        }
    }

    static func scale(_ data: inout [UInt8], format: AudioFormat.SampleFormat, by factor: Double) {
        guard factor != 1 else { return }
        data.withUnsafeMutableBytes { raw in
            switch format {
            case .s16:
                let samples = raw.bindMemory(to: Int16.self)
                for i in samples.indices {
                    samples[i] = Int16(clamping: Int(saturating: (Double(samples[i]) * factor).rounded()))
                }
            case .s24:
                let samples = raw.bindMemory(to: Int32.self)
                for i in samples.indices {
                    samples[i] = Int32(min(8_388_607, max(-8_388_608, Int(saturating: (Double(samples[i]) * factor).rounded()))))
                }
            case .s32:
                let samples = raw.bindMemory(to: Int32.self)
                for i in samples.indices {
                    samples[i] = Int32(clamping: Int(saturating: (Double(samples[i]) * factor).rounded()))
                }
            case .float:
                let samples = raw.bindMemory(to: Float.self)
                let f = Float(factor)
                for i in samples.indices { samples[i] *= f }
            }
        }
    }
}

/// `replaygain_preamp`, `replaygain_missing_preamp` (dB) and `replaygain_limit`.
public struct ReplayGainSettings: Equatable, Sendable {
    public var preamp: Double
    public var missingPreamp: Double
    public var limit: Bool

    public init(preamp: Double = 0, missingPreamp: Double = 0, limit: Bool = true) {
        self.preamp = preamp
        self.missingPreamp = missingPreamp
        self.limit = limit
    }
}
