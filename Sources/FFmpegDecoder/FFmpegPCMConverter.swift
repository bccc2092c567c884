import CFFmpeg
import CFFmpegShim
import PlayerCore

/// Makes libswresample converters between the player's PCM formats.
public struct FFmpegPCMConverterFactory: PCMConverterFactory {
    public init() {}

    public func makeConverter(from source: AudioFormat, to target: AudioFormat) throws(DecoderError)
        -> any PCMConverting {
        try FFmpegPCMConverter(from: source, to: target)
    }
}

/// Converts interleaved PCM with libswresample, left at its default options (no dither, its default filter):
/// that is what the `ffmpeg` command line uses, so `float → s16` here gives the same samples as
/// `ffmpeg -i SONG -f s16le -`.
///
/// libswresample has no right-justified 24-bit format, so `s24` travels as S32: shifted left by 8 on the way
/// in and arithmetically right by 8 on the way out. Both shifts are exact.
public final class FFmpegPCMConverter: PCMConverting {
    public let source: AudioFormat
    public let target: AudioFormat
    private var swr: OpaquePointer?
    /// S32 staging for `s24` input, reused between calls.
    private var widened: [Int32] = []

    public init(from source: AudioFormat, to target: AudioFormat) throws(DecoderError) {
        av_log_set_level(AV_LOG_QUIET)
        self.source = source
        self.target = target
        guard source.sampleRate > 0, target.sampleRate > 0, source.channels > 0, target.channels > 0 else {
            throw DecoderError("Cannot convert \(source) to \(target)")
        }
        if source == target { return }
        guard let context = Self.makeContext(from: Self.avFormat(source.sampleFormat), source.sampleRate,
                                             source.channels, to: Self.avFormat(target.sampleFormat),
                                             target.sampleRate, target.channels) else {
            throw DecoderError("Cannot convert \(source) to \(target)")
        }
        swr = context
    }

    deinit { swr_free(&swr) }

    public func convert(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        let frames = input.count / source.bytesPerFrame
        guard frames > 0, let base = input.baseAddress else { return }
        guard swr != nil else {
            output.append(contentsOf: UnsafeRawBufferPointer(start: base, count: frames * source.bytesPerFrame))
            return
        }
        if source.sampleFormat == .s24 {
            let samples = frames * source.channels
            if widened.count < samples { widened = Array(repeating: 0, count: samples) }
            widened.withUnsafeMutableBufferPointer { words in
                for index in 0..<samples {
                    // Left-justify: the low byte of an S24_P32 word is padding for swresample.
                    words[index] = base.loadUnaligned(fromByteOffset: index * 4, as: Int32.self) << 8
                }
            }
            widened.withUnsafeBytes { run(UnsafeRawPointer($0.baseAddress!), frames: frames, into: &output) }
        } else {
            run(base, frames: frames, into: &output)
        }
    }

    public func flush(into output: inout [UInt8]) {
        guard swr != nil else { return }
        run(nil, frames: 0, into: &output)
    }

    /// One `swr_convert` call; a nil input drains what the resampler holds back.
    private func run(_ input: UnsafeRawPointer?, frames: Int, into output: inout [UInt8]) {
        while true {
            let capacity = Int(swr_get_out_samples(swr, Int32(frames))) + 32
            var count = 0
            // Written straight into uninitialised storage, then appended with one copy (zero-filling first with
            // `repeatElement` goes byte by byte in debug builds).
            var converted = [UInt8](unsafeUninitializedCapacity: capacity * target.bytesPerFrame) { raw, initialized in
                var out: UnsafeMutablePointer<UInt8>? = raw.baseAddress
                let produced: Int32
                if let input {
                    var inPointer: UnsafePointer<UInt8>? = input.assumingMemoryBound(to: UInt8.self)
                    produced = swr_convert(swr, &out, Int32(capacity), &inPointer, Int32(frames))
                } else {
                    produced = swr_convert(swr, &out, Int32(capacity), nil, 0)
                }
                count = max(0, Int(produced))
                initialized = count * target.bytesPerFrame
            }
            if target.sampleFormat == .s24 { Self.narrowS32ToS24(&converted) }
            output.append(contentsOf: converted)
            // Draining may take more than one call when the buffer was too small; converting never does.
            if input != nil || count < capacity { return }
        }
    }

    /// An initialised SwrContext. Mono ↔ stereo use MPD's matrices (mono copied to both channels, stereo
    /// averaged) instead of libswresample's −3 dB centre mix, so a mono song plays at the same loudness as in
    /// MPD; other channel counts get libswresample's standard downmix/upmix.
    static func makeContext(from sourceFormat: AVSampleFormat, _ sourceRate: Int, _ sourceChannels: Int,
                            to targetFormat: AVSampleFormat, _ targetRate: Int, _ targetChannels: Int) -> OpaquePointer? {
        var inLayout = AVChannelLayout()
        var outLayout = AVChannelLayout()
        av_channel_layout_default(&inLayout, Int32(sourceChannels))
        av_channel_layout_default(&outLayout, Int32(targetChannels))
        defer {
            av_channel_layout_uninit(&inLayout)
            av_channel_layout_uninit(&outLayout)
        }
        var context: OpaquePointer? = nil
        var status = swr_alloc_set_opts2(&context, &outLayout, targetFormat, Int32(targetRate),
                                         &inLayout, sourceFormat, Int32(sourceRate), 0, nil)
        if status >= 0, sourceChannels == 1, targetChannels == 2 {
            let matrix: [Double] = [1, 1]
            status = swr_set_matrix(context, matrix, 1)
        } else if status >= 0, sourceChannels == 2, targetChannels == 1 {
            let matrix: [Double] = [0.5, 0.5]
            status = swr_set_matrix(context, matrix, 2)
        }
        if status >= 0 { status = swr_init(context) }
        guard status >= 0, context != nil else {
            swr_free(&context)
            return nil
        }
        return context
    }

    /// FFmpeg's packed sample format for one of ours (`s24` is carried as S32, see the type's comment).
    static func avFormat(_ format: AudioFormat.SampleFormat) -> AVSampleFormat {
        switch format {
        case .s16: AV_SAMPLE_FMT_S16
        case .s24, .s32: AV_SAMPLE_FMT_S32
        case .float: AV_SAMPLE_FMT_FLT
        }
    }

    /// Turns left-justified S32 words into right-justified 24-bit ones, in place.
    static func narrowS32ToS24(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { raw in
            for offset in stride(from: 0, to: raw.count - 3, by: 4) {
                raw.storeBytes(of: raw.loadUnaligned(fromByteOffset: offset, as: Int32.self) >> 8,
                               toByteOffset: offset, as: Int32.self)
            }
        }
    }
}
