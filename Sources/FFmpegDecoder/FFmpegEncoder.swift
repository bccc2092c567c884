import CFFmpeg
import CFFmpegShim
import PlayerCore

/// Makes the `httpd` output's stream encoders with libavcodec (and libavformat's Ogg muxer).
///
/// Every encoder hands out its stream in pieces a listener can join at: whole MP3 frames, whole FLAC frames,
/// whole Ogg pages. A listener that connects late is sent `header` and then the pieces from the next `encode`
/// call on, which is what MPD's httpd output does.
public struct FFmpegEncoderFactory: AudioEncoderFactory {
    public init() {}

    public func makeEncoder(_ settings: EncoderSettings, for format: AudioFormat) throws(OutputError)
        -> any AudioEncoding {
        av_log_set_level(AV_LOG_QUIET)
        if settings.codec == .wave { return WaveEncoder(format: format) }
        return try FFmpegStreamEncoder(settings, format)
    }
}

/// MPD's `wave` encoder: a RIFF header claiming the largest possible size (the stream has no end we could
/// write back), then raw 16-bit little-endian PCM.
final class WaveEncoder: AudioEncoding {
    let inputFormat: AudioFormat
    let mimeType = "audio/wav"
    let header: [UInt8]

    init(format: AudioFormat) {
        inputFormat = AudioFormat(sampleRate: format.sampleRate, sampleFormat: .s16, channels: format.channels)
        header = Self.header(for: inputFormat)
    }

    func encode(_ pcm: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(OutputError) {
        let whole = pcm.count - pcm.count % inputFormat.bytesPerFrame
        output.append(contentsOf: UnsafeRawBufferPointer(rebasing: pcm[..<whole]))
    }

    func finish(into output: inout [UInt8]) {}

    static func header(for format: AudioFormat) -> [UInt8] {
        func le32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
        func le16(_ value: UInt16) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
        // The largest data size whose RIFF size (data + 36) still fits in 32 bits.
        let dataSize = UInt32.max - 36
        let blockAlign = UInt16(format.bytesPerFrame)
        return Array("RIFF".utf8) + le32(dataSize + 36) + Array("WAVE".utf8)
            + Array("fmt ".utf8) + le32(16) + le16(1) + le16(UInt16(format.channels)) + le32(UInt32(format.sampleRate))
            + le32(UInt32(format.bytesPerSecond)) + le16(blockAlign) + le16(16)
            + Array("data".utf8) + le32(dataSize)
    }
}

/// An encoder from libavcodec. MP3 and FLAC packets are already self-contained frames and go out as they are
/// (FLAC behind a `fLaC` + STREAMINFO header); Opus and Vorbis need Ogg, so their packets go through
/// libavformat's Ogg muxer writing into memory, flushed after every `encode` so each call returns whole pages.
final class FFmpegStreamEncoder: AudioEncoding {
    let inputFormat: AudioFormat
    let mimeType: String
    private(set) var header: [UInt8] = []

    private let settings: EncoderSettings
    private var codecContext: UnsafeMutablePointer<AVCodecContext>?
    private let frame: UnsafeMutablePointer<AVFrame>
    private let packet: UnsafeMutablePointer<AVPacket>
    /// Samples per frame the codec insists on (0: any).
    private let frameSize: Int
    private let allowsShortLastFrame: Bool
    private let codecSampleFormat: AVSampleFormat
    /// Input bytes short of a whole codec frame, kept for the next call.
    private var pending: [UInt8] = []
    private var nextPTS: Int64 = 0
    private var muxer: OggMuxer?
    private var finished = false

    init(_ settings: EncoderSettings, _ format: AudioFormat) throws(OutputError) {
        self.settings = settings
        let name: String
        switch settings.codec {
        case .mp3: name = "libmp3lame"; mimeType = "audio/mpeg"
        case .opus: name = "libopus"; mimeType = "audio/ogg"
        case .vorbis: name = "libvorbis"; mimeType = "audio/ogg"
        case .flac: name = "flac"; mimeType = "audio/flac"
        case .wave: name = "pcm_s16le"; mimeType = "audio/wav"
        }
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw OutputError("Encoder \(name) is not available in this FFmpeg")
        }
        let rate = Self.sampleRate(for: settings.codec, requested: format.sampleRate, codec: codec)
        let channels = settings.codec == .mp3 || settings.codec == .opus ? min(format.channels, 2)
            : min(format.channels, 8)
        let (sampleFormat, ours) = Self.sampleFormats(for: settings.codec, source: format.sampleFormat)
        inputFormat = AudioFormat(sampleRate: rate, sampleFormat: ours, channels: channels)
        codecSampleFormat = sampleFormat

        guard let context = avcodec_alloc_context3(codec) else { throw OutputError("Out of memory") }
        codecContext = context
        frame = av_frame_alloc()!
        packet = av_packet_alloc()!
        context.pointee.sample_rate = Int32(rate)
        context.pointee.sample_fmt = sampleFormat
        context.pointee.time_base = AVRational(num: 1, den: Int32(rate))
        av_channel_layout_default(&context.pointee.ch_layout, Int32(channels))
        if ours == .s24 { context.pointee.bits_per_raw_sample = 24 }
        Self.applyRateControl(settings, to: context)
        let ogg = settings.codec == .opus || settings.codec == .vorbis
        if ogg {
            // The Ogg muxer writes the codec's headers from extradata.
            context.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER)
        }
        let opened = avcodec_open2(context, codec, nil)
        let capabilities = codec.pointee.capabilities
        allowsShortLastFrame = capabilities & Int32(AV_CODEC_CAP_SMALL_LAST_FRAME) != 0
            || capabilities & Int32(AV_CODEC_CAP_VARIABLE_FRAME_SIZE) != 0
        frameSize = capabilities & Int32(AV_CODEC_CAP_VARIABLE_FRAME_SIZE) != 0 ? 0 : Int(context.pointee.frame_size)
        guard opened >= 0 else {
            throw OutputError("Failed to open the \(name) encoder for \(inputFormat): \(FFmpegInspector.errorText(opened))")
        }

        if ogg {
            let muxer = try OggMuxer(codec: context)
            header = muxer.takeOutput()
            self.muxer = muxer
        } else if settings.codec == .flac {
            guard let extradata = context.pointee.extradata, context.pointee.extradata_size >= 34 else {
                throw OutputError("The flac encoder gave no STREAMINFO")
            }
            // "fLaC", then STREAMINFO as the last (only) metadata block: type 0 with the last-block bit, 24-bit length.
            header = Array("fLaC".utf8) + [0x80, 0, 0, 34] + Array(UnsafeBufferPointer(start: extradata, count: 34))
        }
    }

    deinit {
        av_frame_unref(frame)
        var frame: UnsafeMutablePointer<AVFrame>? = self.frame
        av_frame_free(&frame)
        var packet: UnsafeMutablePointer<AVPacket>? = self.packet
        av_packet_free(&packet)
        avcodec_free_context(&codecContext)
    }

    func encode(_ pcm: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(OutputError) {
        guard !finished, pcm.count > 0 else { return }
        let bytesPerFrame = inputFormat.bytesPerFrame
        let chunk = (frameSize > 0 ? frameSize : 1024) * bytesPerFrame
        var input = pcm[...]
        if !pending.isEmpty {
            let missing = min(chunk - pending.count, input.count)
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: input.prefix(missing)))
            input = input.dropFirst(missing)
            if pending.count == chunk {
                try sendPending(into: &output)
            }
        }
        while input.count >= chunk {
            try send(UnsafeRawBufferPointer(rebasing: input.prefix(chunk)), frames: chunk / bytesPerFrame, into: &output)
            input = input.dropFirst(chunk)
        }
        let whole = input.count - input.count % bytesPerFrame
        pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: input.prefix(whole)))
        muxer?.flush(into: &output)
    }

    func finish(into output: inout [UInt8]) {
        guard !finished, let codecContext else { return }
        finished = true
        if !pending.isEmpty {
            let frames = pending.count / inputFormat.bytesPerFrame
            if !allowsShortLastFrame, frameSize > frames {
                // A codec that takes no short frame gets the last one padded with silence.
                pending.append(contentsOf: repeatElement(0, count: (frameSize - frames) * inputFormat.bytesPerFrame))
            }
            try? sendPending(into: &output)
        }
        avcodec_send_frame(codecContext, nil)
        try? drain(into: &output)
        muxer?.finish(into: &output)
    }

    /// Encodes the bytes held back from earlier calls (one codec frame, or the short last one) and clears them.
    private func sendPending(into output: inout [UInt8]) throws(OutputError) {
        let bytes = pending
        pending.removeAll(keepingCapacity: true)
        var failure: OutputError?
        bytes.withUnsafeBytes { raw in
            do throws(OutputError) {
                try send(raw, frames: raw.count / inputFormat.bytesPerFrame, into: &output)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// Encodes one codec frame of interleaved `inputFormat` PCM.
    private func send(_ pcm: UnsafeRawBufferPointer, frames: Int, into output: inout [UInt8]) throws(OutputError) {
        guard let codecContext else { return }
        av_frame_unref(frame)
        frame.pointee.nb_samples = Int32(frames)
        frame.pointee.format = codecSampleFormat.rawValue
        frame.pointee.sample_rate = codecContext.pointee.sample_rate
        av_channel_layout_copy(&frame.pointee.ch_layout, &codecContext.pointee.ch_layout)
        guard av_frame_get_buffer(frame, 0) >= 0 else { throw OutputError("Out of memory") }
        Self.fill(frame, from: pcm, frames: frames, channels: inputFormat.channels, format: codecSampleFormat,
                  shiftLeft: inputFormat.sampleFormat == .s24)
        frame.pointee.pts = nextPTS
        nextPTS += Int64(frames)
        let status = avcodec_send_frame(codecContext, frame)
        guard status >= 0 else { throw OutputError("Failed to encode: \(FFmpegInspector.errorText(status))") }
        try drain(into: &output)
    }

    private func drain(into output: inout [UInt8]) throws(OutputError) {
        guard let codecContext else { return }
        while true {
            let status = avcodec_receive_packet(codecContext, packet)
            if status == nosignal_averror(EAGAIN) || status == nosignal_averror_eof() { return }
            guard status >= 0 else { throw OutputError("Failed to encode: \(FFmpegInspector.errorText(status))") }
            defer { av_packet_unref(packet) }
            if let muxer {
                try muxer.write(packet, from: codecContext.pointee.time_base)
            } else if let data = packet.pointee.data, packet.pointee.size > 0 {
                output.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)))
            }
        }
    }

    /// Copies interleaved PCM into the frame's layout: planar codecs (lame, vorbis) get one plane per channel;
    /// 24-bit input is left-justified, as FFmpeg's S32 expects.
    private static func fill(_ frame: UnsafeMutablePointer<AVFrame>, from pcm: UnsafeRawBufferPointer, frames: Int,
                             channels: Int, format: AVSampleFormat, shiftLeft: Bool) {
        guard let planes = frame.pointee.extended_data, let source = pcm.baseAddress else { return }
        let sampleBytes = Int(av_get_bytes_per_sample(format))
        if av_sample_fmt_is_planar(format) == 0 {
            let target = UnsafeMutableRawPointer(planes[0]!)
            if shiftLeft {
                for index in 0..<(frames * channels) {
                    let value = source.loadUnaligned(fromByteOffset: index * 4, as: Int32.self) << 8
                    target.storeBytes(of: value, toByteOffset: index * 4, as: Int32.self)
                }
            } else {
                target.copyMemory(from: source, byteCount: frames * channels * sampleBytes)
            }
            return
        }
        // Typed loops, the sample size decided outside them (debug builds run these as written); the caller's
        // bytes need not be aligned, in which case they are read unaligned.
        let aligned = Int(bitPattern: source) % sampleBytes == 0
        for channel in 0..<channels {
            if !aligned {
                let plane = UnsafeMutableRawPointer(planes[channel]!)
                for index in 0..<frames {
                    let from = (index * channels + channel) * sampleBytes
                    if sampleBytes == 2 {
                        plane.storeBytes(of: source.loadUnaligned(fromByteOffset: from, as: UInt16.self),
                                         toByteOffset: index * 2, as: UInt16.self)
                    } else {
                        plane.storeBytes(of: source.loadUnaligned(fromByteOffset: from, as: UInt32.self),
                                         toByteOffset: index * 4, as: UInt32.self)
                    }
                }
            } else if sampleBytes == 2 {
                let input = source.assumingMemoryBound(to: Int16.self)
                let plane = UnsafeMutableRawPointer(planes[channel]!).assumingMemoryBound(to: Int16.self)
                for index in 0..<frames { plane[index] = input[index * channels + channel] }
            } else {
                let input = source.assumingMemoryBound(to: UInt32.self)
                let plane = UnsafeMutableRawPointer(planes[channel]!).assumingMemoryBound(to: UInt32.self)
                for index in 0..<frames { plane[index] = input[index * channels + channel] }
            }
        }
    }

    /// The codec's sample format and the matching PCM callers must deliver. Lame takes 16-bit (as MPD's lame
    /// encoder does), Opus and Vorbis float; FLAC keeps 16-bit sources 16-bit and stores anything deeper as 24-bit.
    private static func sampleFormats(for codec: EncoderSettings.Codec, source: AudioFormat.SampleFormat)
        -> (AVSampleFormat, AudioFormat.SampleFormat) {
        switch codec {
        case .mp3: (AV_SAMPLE_FMT_S16P, .s16)
        case .opus: (AV_SAMPLE_FMT_FLT, .float)
        case .vorbis: (AV_SAMPLE_FMT_FLTP, .float)
        case .flac: source == .s16 ? (AV_SAMPLE_FMT_S16, .s16) : (AV_SAMPLE_FMT_S32, .s24)
        case .wave: (AV_SAMPLE_FMT_S16, .s16)
        }
    }

    /// Opus always runs at 48 kHz (the port says so and Ogg Opus players expect it); lame takes the MPEG rates,
    /// so an unsupported rate falls back to the nearest one above (or the highest).
    private static func sampleRate(for codec: EncoderSettings.Codec, requested: Int,
                                   codec avCodec: UnsafePointer<AVCodec>) -> Int {
        if codec == .opus { return 48000 }
        guard let list = avCodec.pointee.supported_samplerates else { return requested }
        var rates: [Int] = []
        var index = 0
        while list[index] != 0 { rates.append(Int(list[index])); index += 1 }
        if rates.isEmpty || rates.contains(requested) { return requested }
        return rates.filter { $0 >= requested }.min() ?? rates.max()!
    }

    /// MPD's `bitrate` (kbit/s, CBR/ABR) or `quality` (VBR, lame's `-V` scale 0…9 and Vorbis's -1…10, the scales
    /// FFmpeg's wrappers read from `global_quality / FF_QP2LAMBDA`). With neither, lame gets 128 kbit/s and Vorbis
    /// quality 3, MPD's defaults; Opus and FLAC keep their encoder's own defaults.
    private static func applyRateControl(_ settings: EncoderSettings, to context: UnsafeMutablePointer<AVCodecContext>) {
        switch settings.codec {
        case .mp3, .vorbis:
            if let quality = settings.quality ?? (settings.bitrate == nil && settings.codec == .vorbis ? 3 : nil) {
                context.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
                context.pointee.global_quality = Int32((quality * Double(FF_QP2LAMBDA)).rounded())
            } else {
                context.pointee.bit_rate = Int64(settings.bitrate ?? 128) * 1000
            }
        case .opus:
            if let bitrate = settings.bitrate { context.pointee.bit_rate = Int64(bitrate) * 1000 }
        case .flac, .wave:
            break
        }
    }
}

/// libavformat's Ogg muxer writing into memory through a custom AVIOContext.
private final class OggMuxer {
    /// Collects what the muxer writes; `Unmanaged` opaque of the AVIOContext.
    final class Sink {
        var bytes: [UInt8] = []
    }

    private let sink = Sink()
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var io: UnsafeMutablePointer<AVIOContext>?
    private let stream: UnsafeMutablePointer<AVStream>

    init(codec: UnsafeMutablePointer<AVCodecContext>) throws(OutputError) {
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        guard avformat_alloc_output_context2(&context, nil, "ogg", nil) >= 0, let context,
              let stream = avformat_new_stream(context, nil) else {
            throw OutputError("The Ogg muxer is not available in this FFmpeg")
        }
        self.context = context
        self.stream = stream
        let size: Int32 = 16384
        let buffer = av_malloc(Int(size))
        io = avio_alloc_context(buffer?.assumingMemoryBound(to: UInt8.self), size, 1,
                                Unmanaged.passUnretained(sink).toOpaque(), nil, { opaque, data, count in
            guard let opaque, let data, count > 0 else { return 0 }
            let sink = Unmanaged<Sink>.fromOpaque(opaque).takeUnretainedValue()
            sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(count)))
            return count
        }, nil)
        guard let io else { throw OutputError("Out of memory") }
        context.pointee.pb = io
        context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        avcodec_parameters_from_context(stream.pointee.codecpar, codec)
        stream.pointee.time_base = codec.pointee.time_base
        let status = avformat_write_header(context, nil)
        guard status >= 0 else {
            throw OutputError("Failed to start the Ogg stream: \(FFmpegInspector.errorText(status))")
        }
        avio_flush(io)
    }

    deinit {
        avformat_free_context(context)
        if io != nil {
            av_freep(&io!.pointee.buffer)
            avio_context_free(&io)
        }
    }

    /// Everything written so far (the header pages, right after init).
    func takeOutput() -> [UInt8] {
        defer { sink.bytes.removeAll(keepingCapacity: true) }
        return sink.bytes
    }

    func write(_ packet: UnsafeMutablePointer<AVPacket>, from timeBase: AVRational) throws(OutputError) {
        packet.pointee.stream_index = 0
        av_packet_rescale_ts(packet, timeBase, stream.pointee.time_base)
        let status = av_write_frame(context, packet)
        guard status >= 0 else { throw OutputError("Failed to write Ogg: \(FFmpegInspector.errorText(status))") }
    }

    /// Closes the page being filled (the muxer supports flushing) and hands out every finished page.
    func flush(into output: inout [UInt8]) {
        av_write_frame(context, nil)
        avio_flush(io)
        output.append(contentsOf: sink.bytes)
        sink.bytes.removeAll(keepingCapacity: true)
    }

    func finish(into output: inout [UInt8]) {
        av_write_trailer(context)
        avio_flush(io)
        output.append(contentsOf: sink.bytes)
        sink.bytes.removeAll(keepingCapacity: true)
    }
}
