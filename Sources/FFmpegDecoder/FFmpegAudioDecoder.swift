import CFFmpeg
import CFFmpegShim
import PlayerCore

/// Opens songs with libavformat/libavcodec: the decoder edge of the player.
public struct FFmpegDecoderFactory: AudioDecoderFactory {
    /// Opens the URLs it takes (`opens`: `http(s)://`, `ftp://`, … through libcurl, from the NetEase edge); any
    /// other URL (`rtsp://`, `hls+http://`, or `http://` without it) is opened by libavformat's own protocols.
    private let remote: (any RemoteInputFactory)?

    public init(remote: (any RemoteInputFactory)? = nil) {
        self.remote = remote
    }

    public func open(_ location: String) throws(DecoderError) -> any AudioDecoding {
        if let remote, FFmpegAudioDecoder.isRemote(location), remote.opens(location) {
            return try FFmpegAudioDecoder(location: location, input: remote.open(location))
        }
        return try FFmpegAudioDecoder(location: location)
    }

    public func open(_ location: String, input: any RemoteInput) throws(DecoderError) -> any AudioDecoding {
        try FFmpegAudioDecoder(location: location, input: input)
    }
}

/// One open song, decoded on the calling thread.
///
/// The PCM it produces is meant to be indistinguishable from what `ffmpeg -i SONG` decodes: libavcodec's own
/// trimming of encoder delay and padding (the MP3 LAME/Xing gapless header, MP4 edit lists, Opus pre-skip) is left
/// on, exactly as the `ffmpeg` command line leaves it, and samples are only re-laid-out (planar → interleaved),
/// never re-quantised. Only the 24-bit case changes values, by the exact `>> 8` that turns FFmpeg's left-justified
/// S32 into MPD's right-justified `S24_P32`.
public final class FFmpegAudioDecoder: AudioDecoding {
    public let format: AudioFormat
    public let duration: Double?
    public let bitrate: Int?
    public let replayGain: ReplayGainInfo
    public let mixRampStart: String?
    public let mixRampEnd: String?

    private let location: String
    private var formatContext: UnsafeMutablePointer<AVFormatContext>?
    private var codecContext: UnsafeMutablePointer<AVCodecContext>?
    private let packet: UnsafeMutablePointer<AVPacket>
    private let frame: UnsafeMutablePointer<AVFrame>
    private let streamIndex: Int32
    private let timeBase: AVRational
    /// Lossy codecs rebuild their state (MDCT overlap, MP3 bit reservoir, Opus energy prediction) from the packets
    /// before the first one they output, so a seek starts this many samples early and throws them away; lossless
    /// codecs need none.
    private let seekPreroll: Int64
    private let isNetworkStream: Bool
    /// The network input libavformat reads through, when a `RemoteInputFactory` opened the URL.
    private let remoteIO: RemoteIOContext?

    /// Where sample 0 is on the stream's clock: the timestamp of the first frame decoded from the start, after
    /// libavcodec dropped the encoder delay. Counting from it (not from `start_time`, which for Ogg Opus is before
    /// the pre-skip) makes `seek(to: t)` land on the same sample as decoding from the start and counting.
    private var originPTS: Int64 = 0
    /// The sample index (from `originPTS`) that follows the last frame seen; used for frames without a timestamp.
    private var nextSample: Int64 = 0
    /// After a seek: frames that end before this sample are dropped and the one that straddles it is cut.
    private var discardBefore: Int64?
    /// A frame already decoded but not yet handed out (the one `init` decoded to learn the real format).
    private var pending: [UInt8] = []
    private var draining = false
    private var finished = false
    /// Converts frames whose format differs from the first one (a chained Ogg stream with another rate, say), so
    /// `format` holds for the whole song.
    private var reformatter: FrameReformatter?

    private var announcedName = false
    private var lastStreamTitle: String?

    init(location: String, input: (any RemoteInput)? = nil) throws(DecoderError) {
        av_log_set_level(AV_LOG_QUIET)
        self.location = location
        isNetworkStream = Self.isRemote(location)
        if let input { remoteIO = try RemoteIOContext(input) } else { remoteIO = nil }

        var options: OpaquePointer? = nil
        var url = location
        var demuxer: UnsafePointer<AVInputFormat>? = nil
        if isNetworkStream && remoteIO == nil {
            let lower = location.lowercased()
            if lower.hasPrefix("http://") || lower.hasPrefix("https://") { av_dict_set(&options, "icy", "1", 0) }
            if lower.hasPrefix("hls+http://") || lower.hasPrefix("hls+https://") {
                // MPD's `hls+http://`: the playlist at the plain URL, read by libavformat's HLS demuxer (its `hls+`
                // protocol is the deprecated one, without encrypted or fragmented-MP4 segments).
                url = String(location.dropFirst("hls+".count))
                demuxer = av_find_input_format("hls")
            }
            // A network protocol that stops sending fails instead of holding the decoder thread forever.
            av_dict_set(&options, "rw_timeout", "30000000", 0)
        }
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        if let remoteIO {
            // libavformat reads through our AVIOContext (and leaves it to us to free); the URL is only a name
            // for probing.
            context = avformat_alloc_context()
            context?.pointee.pb = remoteIO.context
        }
        let status = avformat_open_input(&context, remoteIO == nil ? url : RemoteIOContext.probeName(location),
                                         demuxer, &options)
        av_dict_free(&options)
        if status < 0, let failure = remoteIO?.takeFailure() { throw failure }
        guard status >= 0, let context else {
            throw DecoderError("Failed to open \"\(location)\": \(FFmpegAudioDecoder.errorText(status))",
                               cause: "avformat_open_input() failed: \(FFmpegAudioDecoder.errorText(status))")
        }
        let found = avformat_find_stream_info(context, nil)
        guard found >= 0 else {
            var owned: UnsafeMutablePointer<AVFormatContext>? = context
            avformat_close_input(&owned)
            if let failure = remoteIO?.takeFailure() { throw failure }
            throw DecoderError("Failed to open \"\(location)\": \(FFmpegAudioDecoder.errorText(found))")
        }

        var codec: UnsafePointer<AVCodec>? = nil
        let index = av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0)
        guard index >= 0, let codec, let stream = context.pointee.streams[Int(index)] else {
            var owned: UnsafeMutablePointer<AVFormatContext>? = context
            avformat_close_input(&owned)
            let reason = index == nosignal_averror_decoder_not_found() ? "no decoder for its audio" : "no audio stream"
            throw DecoderError("Failed to open \"\(location)\": \(reason)")
        }
        guard let codecContext = avcodec_alloc_context3(codec) else {
            var owned: UnsafeMutablePointer<AVFormatContext>? = context
            avformat_close_input(&owned)
            throw DecoderError("Failed to open \"\(location)\": out of memory")
        }
        // From here on deinit releases everything.
        formatContext = context
        self.codecContext = codecContext
        packet = av_packet_alloc()!
        frame = av_frame_alloc()!
        streamIndex = index
        timeBase = stream.pointee.time_base
        for other in 0..<Int(context.pointee.nb_streams) where other != Int(index) {
            context.pointee.streams[other]?.pointee.discard = AVDISCARD_ALL // skip cover art and video packets
        }

        let parameters = stream.pointee.codecpar!
        avcodec_parameters_to_context(codecContext, parameters)
        // Lets libavcodec move a frame's timestamp past the samples it trims, as it does for the CLI.
        codecContext.pointee.pkt_timebase = stream.pointee.time_base
        let opened = avcodec_open2(codecContext, codec, nil)

        let nopts = nosignal_av_nopts_value()
        if stream.pointee.duration != nopts, stream.pointee.duration > 0 {
            duration = Double(stream.pointee.duration) * av_q2d(stream.pointee.time_base)
        } else if context.pointee.duration != nopts, context.pointee.duration > 0 {
            duration = Double(context.pointee.duration) / Double(AV_TIME_BASE)
        } else {
            duration = nil
        }
        let bits = parameters.pointee.bit_rate > 0 ? parameters.pointee.bit_rate : context.pointee.bit_rate
        bitrate = bits > 0 ? Int(bits / 1000) : nil // MPD truncates too

        let tags = FFmpegAudioDecoder.pairs(context.pointee.metadata) + FFmpegAudioDecoder.pairs(stream.pointee.metadata)
        func tag(_ key: String) -> String? {
            let wanted = key.lowercased()
            return tags.first { $0.0.lowercased() == wanted }?.1
        }
        var gain = ReplayGainInfo(trackGain: tag("REPLAYGAIN_TRACK_GAIN").flatMap(FFmpegAudioDecoder.leadingNumber),
                                  trackPeak: tag("REPLAYGAIN_TRACK_PEAK").flatMap(FFmpegAudioDecoder.leadingNumber),
                                  albumGain: tag("REPLAYGAIN_ALBUM_GAIN").flatMap(FFmpegAudioDecoder.leadingNumber),
                                  albumPeak: tag("REPLAYGAIN_ALBUM_PEAK").flatMap(FFmpegAudioDecoder.leadingNumber))
        if gain.isEmpty { FFmpegAudioDecoder.readReplayGainSideData(stream, into: &gain) }
        replayGain = gain
        mixRampStart = tag("MIXRAMP_START")
        mixRampEnd = tag("MIXRAMP_END")

        let lossless = FFmpegAudioDecoder.isLossless(parameters.pointee.codec_id)
        let rate = Int64(max(parameters.pointee.sample_rate, 1))
        seekPreroll = lossless ? 0 : max(Int64(parameters.pointee.seek_preroll), rate / 5)

        guard opened >= 0 else {
            format = .cd
            throw DecoderError("Failed to open \"\(location)\": \(FFmpegAudioDecoder.errorText(opened))")
        }

        // The first frame settles the real format (HE-AAC, for one, doubles the rate the header announced) and
        // proves the file holds audio at all.
        var first: (format: AudioFormat, samples: [UInt8])?
        do {
            first = try FFmpegAudioDecoder.decodeFirstFrame(context, codecContext, packet, frame, index, location)
        } catch {
            format = .cd
            throw remoteIO?.takeFailure() ?? error
        }
        guard let first else {
            format = .cd
            if let failure = remoteIO?.takeFailure() { throw failure }
            throw DecoderError("Failed to decode \"\(location)\": no audio found")
        }
        format = first.format
        pending = first.samples
        originPTS = FFmpegAudioDecoder.timestamp(of: frame) ?? 0
        nextSample = Int64(frame.pointee.nb_samples)
        av_frame_unref(frame)
    }

    deinit {
        av_frame_free_wrapper(frame)
        av_packet_free_wrapper(packet)
        avcodec_free_context(&codecContext)
        avformat_close_input(&formatContext)
    }

    // MARK: Reading

    public func read(into buffer: inout [UInt8]) throws(DecoderError) -> Bool {
        if !pending.isEmpty {
            buffer.append(contentsOf: pending)
            pending = []
            return true
        }
        while !finished {
            if try receiveFrame(into: &buffer) { return true }
        }
        return false
    }

    /// Pulls one frame out of the codec (feeding it packets as needed) and appends what survives seeking's
    /// discard. Returns false when nothing was appended yet (try again); sets `finished` at the end.
    private func receiveFrame(into buffer: inout [UInt8]) throws(DecoderError) -> Bool {
        guard let codecContext, let formatContext else { finished = true; return false }
        let received = avcodec_receive_frame(codecContext, frame)
        if received >= 0 {
            defer { av_frame_unref(frame) }
            return try deliver(frame, into: &buffer)
        }
        if received == nosignal_averror_eof() || draining { finished = true; return false }
        // EAGAIN: the codec wants more input. Any other error is a damaged frame libavcodec already dropped;
        // carry on with the next packet, as MPD does.
        let readStatus = av_read_frame(formatContext, packet)
        if readStatus == nosignal_averror(EAGAIN) { return false }
        if readStatus < 0 {
            if let failure = remoteIO?.takeFailure() { throw failure }
            // The end, a cut-off file, or a demuxer that lost sync for good end the song where the audio ends;
            // a failing input (network, disk) is an error the player reports.
            let ended = readStatus == nosignal_averror_eof() || readStatus == nosignal_averror_invaliddata()
                || formatContext.pointee.pb?.pointee.eof_reached ?? 0 != 0
            guard ended else { throw DecoderError("Failed to decode \"\(location)\": \(Self.errorText(readStatus))") }
            draining = true
            avcodec_send_packet(codecContext, nil)
            return false
        }
        defer { av_packet_unref(packet) }
        guard packet.pointee.stream_index == streamIndex else { return false }
        // An undecodable packet is skipped; the error shows up again only if no packet ever decodes.
        _ = avcodec_send_packet(codecContext, packet)
        return false
    }

    /// Places a decoded frame on the song's sample clock and appends the part at or after a pending seek target.
    private func deliver(_ frame: UnsafeMutablePointer<AVFrame>, into buffer: inout [UInt8]) throws(DecoderError) -> Bool {
        let count = Int64(frame.pointee.nb_samples)
        let start: Int64
        if let pts = Self.timestamp(of: frame) {
            start = av_rescale_q_rnd(pts - originPTS, timeBase, AVRational(num: 1, den: Int32(format.sampleRate)),
                                     AV_ROUND_NEAR_INF)
        } else {
            start = nextSample
        }
        nextSample = start + count
        var skip: Int64 = 0
        if let target = discardBefore {
            if start + count <= target { return false }
            skip = max(0, target - start)
            discardBefore = nil
        }
        guard count > skip else { return false }
        let layout = layoutOf(frame)
        if layout.matches(format) {
            Self.appendInterleaved(frame, skipping: Int(skip), as: format, to: &buffer)
        } else {
            if reformatter?.source != layout {
                reformatter = try FrameReformatter(from: layout, to: format, location: location)
            }
            reformatter!.convert(frame, skipping: Int(skip), into: &buffer)
        }
        return true
    }

    // MARK: Seeking

    /// `UInt32.max` milliseconds: the furthest a client can ask for (`MPDTime`).
    static let longestSeek = 4_294_967.295

    public func seek(to seconds: Double) throws(DecoderError) {
        guard let formatContext, let codecContext else { throw DecoderError("Failed to seek \"\(location)\"") }
        if let pb = formatContext.pointee.pb, pb.pointee.seekable == 0 {
            throw DecoderError("Failed to seek \"\(location)\": the stream is not seekable")
        }
        let rate = AVRational(num: 1, den: Int32(format.sampleRate))
        // Clamped to MPD's longest seek (2^32 ms), far past the end of any song, so that no arithmetic below or in
        // FFmpeg's rescaling can overflow.
        let seconds = min(max(0, seconds), Self.longestSeek)
        let target = Int64((seconds * Double(format.sampleRate)).rounded())
        // Not clamped at 0: before sample 0 there may be packets (AAC priming, Opus pre-skip) the codec needs
        // to warm up; seeking to a negative timestamp reaches the first packet.
        let from = target - seekPreroll
        let timestamp = originPTS + av_rescale_q(from, rate, timeBase)
        var status = Self.seek(formatContext, streamIndex, to: timestamp)
        if status < 0, from < 0 {
            // Some demuxers (MP3's) refuse timestamps before the stream; the start will do.
            status = Self.seek(formatContext, streamIndex, to: originPTS)
        }
        guard status >= 0 else {
            if let failure = remoteIO?.takeFailure() { throw failure }
            throw DecoderError("Failed to seek \"\(location)\": \(Self.errorText(status))")
        }
        avcodec_flush_buffers(codecContext)
        pending = []
        draining = false
        finished = false
        discardBefore = target
        nextSample = from
    }

    /// To the last keyframe at or before `timestamp`.
    private static func seek(_ context: UnsafeMutablePointer<AVFormatContext>, _ stream: Int32,
                             to timestamp: Int64) -> Int32 {
        let status = avformat_seek_file(context, stream, Int64.min, timestamp, timestamp, 0)
        if status >= 0 { return status }
        return av_seek_frame(context, stream, timestamp, AVSEEK_FLAG_BACKWARD)
    }

    // MARK: Stream tags

    public func takeStreamTags() -> [Song.Tag]? {
        guard isNetworkStream, let pb = formatContext?.pointee.pb else { return nil }
        // Through a `RemoteInput`, ICY metadata was taken out of the stream before libavformat saw it.
        var tags: [Song.Tag] = remoteIO?.input.takeMetadata() ?? []
        if remoteIO == nil && !announcedName {
            announcedName = true
            if let headers = Self.option(pb, "icy_metadata_headers"),
               let name = Self.icyHeader("icy-name", in: headers), !name.isEmpty {
                tags.append(Song.Tag("Name", name))
            }
        }
        if remoteIO == nil, let packet = Self.option(pb, "icy_metadata_packet"),
           let title = Self.streamTitle(in: packet),
           title != lastStreamTitle {
            lastStreamTitle = title
            if !title.isEmpty { tags.append(Song.Tag("Title", title)) }
        }
        // Icecast's Ogg stations announce songs as chained Ogg streams, each with new Vorbis comments, which
        // libavformat puts on the stream and flags as updated.
        if let stream = formatContext?.pointee.streams[Int(streamIndex)],
           stream.pointee.event_flags & AVSTREAM_EVENT_FLAG_METADATA_UPDATED != 0 {
            stream.pointee.event_flags &= ~AVSTREAM_EVENT_FLAG_METADATA_UPDATED
            let comments = Self.pairs(stream.pointee.metadata)
            for name in ["Artist", "Title"] {
                if let value = comments.first(where: { $0.0.lowercased() == name.lowercased() })?.1, !value.isEmpty {
                    tags.append(Song.Tag(name, value))
                }
            }
        }
        return tags.isEmpty ? nil : tags
    }

    private static func option(_ pb: UnsafeMutablePointer<AVIOContext>, _ name: String) -> String? {
        guard let value = nosignal_av_opt_get_string(pb, name) else { return nil }
        defer { av_free(value) }
        return String(cString: value)
    }

    /// `icy-name: Radio X\r\n` lines as libavformat keeps them.
    static func icyHeader(_ name: String, in headers: String) -> String? {
        for line in headers.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].trimmingSpaces().lowercased() == name.lowercased() {
                return String(line[line.index(after: colon)...].trimmingSpaces())
            }
        }
        return nil
    }

    /// `StreamTitle='Artist - Title';StreamUrl='…';` — the title ends at the first `';` (a lone quote may be part
    /// of the title), as MPD's `IcyMetaDataParser` reads it.
    static func streamTitle(in packet: String) -> String? {
        let characters = Array(packet.utf8)
        let key = Array("StreamTitle='".utf8)
        guard let start = characters.firstRange(of: key)?.upperBound else { return nil }
        var end = characters.count
        if let close = characters[start...].firstRange(of: Array("';".utf8)) {
            end = close.lowerBound
        } else if characters.last == UInt8(ascii: "'") {
            end -= 1
        }
        return String(decoding: characters[start..<max(start, end)], as: UTF8.self)
    }

    // MARK: Frames

    /// What a decoded frame holds, to decide whether it can be copied straight into `format`.
    struct FrameLayout: Equatable {
        var sampleFormat: AVSampleFormat
        var rate: Int32
        var channels: Int32
        var bitsPerRawSample: Int32

        init(sampleFormat: AVSampleFormat, rate: Int32, channels: Int32, bitsPerRawSample: Int32) {
            self.sampleFormat = sampleFormat
            self.rate = rate
            self.channels = channels
            self.bitsPerRawSample = bitsPerRawSample
        }

        /// Whether frames of this layout map onto `format` without resampling or remixing.
        func matches(_ format: AudioFormat) -> Bool {
            Int(rate) == format.sampleRate && Int(channels) == format.channels
                && FFmpegAudioDecoder.sampleFormat(for: sampleFormat, bits: bitsPerRawSample) == format.sampleFormat
        }
    }

    private func layoutOf(_ frame: UnsafeMutablePointer<AVFrame>) -> FrameLayout {
        FrameLayout(sampleFormat: AVSampleFormat(rawValue: frame.pointee.format), rate: frame.pointee.sample_rate,
                    channels: frame.pointee.ch_layout.nb_channels,
                    bitsPerRawSample: codecContext?.pointee.bits_per_raw_sample ?? 0)
    }

    /// MPD's mapping of FFmpeg's sample formats (`ffmpeg_sample_format` plus the FLAC plugin's 24-bit case).
    static func sampleFormat(for format: AVSampleFormat, bits: Int32) -> AudioFormat.SampleFormat? {
        switch format {
        case AV_SAMPLE_FMT_U8, AV_SAMPLE_FMT_U8P, AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S16P: .s16
        case AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S32P: bits > 16 && bits <= 24 ? .s24 : .s32
        case AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_DBL, AV_SAMPLE_FMT_DBLP: .float
        default: nil
        }
    }

    /// Copies `frame` from sample `skip` on into `buffer`, interleaving planes and narrowing to `format`. The
    /// frame's layout must match `format` (see `FrameLayout.matches`).
    static func appendInterleaved(_ frame: UnsafeMutablePointer<AVFrame>, skipping skip: Int, as format: AudioFormat,
                                  to buffer: inout [UInt8]) {
        let source = AVSampleFormat(rawValue: frame.pointee.format)
        let channels = Int(frame.pointee.ch_layout.nb_channels)
        let count = Int(frame.pointee.nb_samples) - skip
        guard count > 0, channels > 0, let planes = frame.pointee.extended_data else { return }
        let planar = av_sample_fmt_is_planar(source) != 0
        let sourceBytes = Int(av_get_bytes_per_sample(source))

        if !planar, format.sampleFormat != .s24, source != AV_SAMPLE_FMT_U8, source != AV_SAMPLE_FMT_DBL,
           let data = planes[0] {
            // Already interleaved in the output representation: one copy.
            let bytes = UnsafeRawBufferPointer(start: data + skip * channels * sourceBytes,
                                               count: count * channels * sourceBytes)
            buffer.append(contentsOf: bytes)
            return
        }

        let samples = count * channels
        let shift: Int32 = format.sampleFormat == .s24 ? 8 : 0
        // Typed loops with the format switch outside them: this runs for every sample, and debug builds do not
        // hoist the switch or specialise generics (a per-sample switch decoded MP3 at only 7× real time).
        let bytes = [UInt8](unsafeUninitializedCapacity: samples * format.sampleFormat.bytes) { out, initialized in
            let target = UnsafeMutableRawPointer(out.baseAddress!)
            for channel in 0..<channels {
                let plane = UnsafeRawPointer(planar ? planes[channel]! : planes[0]!)
                let step = planar ? 1 : channels
                var from = skip * step + (planar ? 0 : channel)
                var to = channel
                switch source {
                case AV_SAMPLE_FMT_U8, AV_SAMPLE_FMT_U8P:
                    let input = plane.assumingMemoryBound(to: UInt8.self)
                    let output = target.assumingMemoryBound(to: Int16.self)
                    for _ in 0..<count {
                        output[to] = (Int16(input[from]) - 128) << 8
                        from += step
                        to += channels
                    }
                case AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S16P:
                    let input = plane.assumingMemoryBound(to: Int16.self)
                    let output = target.assumingMemoryBound(to: Int16.self)
                    for _ in 0..<count {
                        output[to] = input[from]
                        from += step
                        to += channels
                    }
                case AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S32P:
                    let input = plane.assumingMemoryBound(to: Int32.self)
                    let output = target.assumingMemoryBound(to: Int32.self)
                    for _ in 0..<count {
                        output[to] = input[from] >> shift
                        from += step
                        to += channels
                    }
                case AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_FLTP:
                    let input = plane.assumingMemoryBound(to: Float.self)
                    let output = target.assumingMemoryBound(to: Float.self)
                    for _ in 0..<count {
                        output[to] = input[from]
                        from += step
                        to += channels
                    }
                case AV_SAMPLE_FMT_DBL, AV_SAMPLE_FMT_DBLP:
                    let input = plane.assumingMemoryBound(to: Double.self)
                    let output = target.assumingMemoryBound(to: Float.self)
                    for _ in 0..<count {
                        output[to] = Float(input[from])
                        from += step
                        to += channels
                    }
                default:
                    target.initializeMemory(as: UInt8.self, repeating: 0, count: samples * format.sampleFormat.bytes)
                }
            }
            initialized = samples * format.sampleFormat.bytes
        }
        buffer.append(contentsOf: bytes)
    }

    /// Decodes until the first frame with samples, as `init` needs it, leaving it in `frame`.
    private static func decodeFirstFrame(_ context: UnsafeMutablePointer<AVFormatContext>,
                                         _ codec: UnsafeMutablePointer<AVCodecContext>,
                                         _ packet: UnsafeMutablePointer<AVPacket>,
                                         _ frame: UnsafeMutablePointer<AVFrame>, _ index: Int32,
                                         _ location: String) throws(DecoderError)
        -> (format: AudioFormat, samples: [UInt8])? {
        var draining = false
        var lastError: Int32 = 0
        while true {
            let received = avcodec_receive_frame(codec, frame)
            if received >= 0 {
                if frame.pointee.nb_samples > 0 {
                    let bits = codec.pointee.bits_per_raw_sample
                    let source = AVSampleFormat(rawValue: frame.pointee.format)
                    guard let sampleFormat = sampleFormat(for: source, bits: bits) else {
                        throw DecoderError("Failed to decode \"\(location)\": unsupported sample format")
                    }
                    let format = AudioFormat(sampleRate: Int(frame.pointee.sample_rate), sampleFormat: sampleFormat,
                                             channels: Int(frame.pointee.ch_layout.nb_channels))
                    guard format.sampleRate > 0, format.channels > 0 else {
                        throw DecoderError("Failed to decode \"\(location)\": invalid audio format")
                    }
                    var samples: [UInt8] = []
                    appendInterleaved(frame, skipping: 0, as: format, to: &samples)
                    return (format, samples)
                }
                av_frame_unref(frame)
                continue
            }
            if received == nosignal_averror_eof() { break }
            if received != nosignal_averror(EAGAIN) {
                lastError = received
                if draining { break }
                continue
            }
            if draining { break }
            let status = av_read_frame(context, packet)
            if status < 0 {
                if status != nosignal_averror_eof() { lastError = status }
                draining = true
                avcodec_send_packet(codec, nil)
                continue
            }
            if packet.pointee.stream_index == index {
                let sent = avcodec_send_packet(codec, packet)
                if sent < 0 && sent != nosignal_averror(EAGAIN) { lastError = sent }
            }
            av_packet_unref(packet)
        }
        if lastError != 0 {
            throw DecoderError("Failed to decode \"\(location)\": \(errorText(lastError))")
        }
        return nil
    }

    // MARK: Helpers

    /// A URL (`scheme://…`) rather than a file path.
    static func isRemote(_ location: String) -> Bool {
        let bytes = location.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > bytes.startIndex,
              bytes[colon...].starts(with: "://".utf8) else { return false }
        return bytes[..<colon].allSatisfy { byte in
            let character = Character(Unicode.Scalar(byte))
            return byte < 0x80 && (character.isLetter || character.isNumber || "+-.".contains(character))
        }
    }

    static func timestamp(of frame: UnsafeMutablePointer<AVFrame>) -> Int64? {
        let nopts = nosignal_av_nopts_value()
        if frame.pointee.best_effort_timestamp != nopts { return frame.pointee.best_effort_timestamp }
        if frame.pointee.pts != nopts { return frame.pointee.pts }
        return nil
    }

    static func isLossless(_ codec: AVCodecID) -> Bool {
        guard let descriptor = avcodec_descriptor_get(codec) else { return false }
        return descriptor.pointee.props & AV_CODEC_PROP_LOSSLESS != 0
    }

    /// FFmpeg's `AV_PKT_DATA_REPLAYGAIN` (from ID3 `RVA2`/`TXXX` in MP3, and MP4's own atoms): gains in microbels
    /// with `INT32_MIN` meaning unknown, peaks in 1/100000 with 0 meaning unknown.
    private static func readReplayGainSideData(_ stream: UnsafeMutablePointer<AVStream>, into gain: inout ReplayGainInfo) {
        var trackGain: Int32 = 0, albumGain: Int32 = 0
        var trackPeak: UInt32 = 0, albumPeak: UInt32 = 0
        guard nosignal_stream_replaygain(stream, &trackGain, &trackPeak, &albumGain, &albumPeak) == 0 else { return }
        if trackGain != Int32.min { gain.trackGain = Double(trackGain) / 100_000 }
        if trackPeak != 0 { gain.trackPeak = Double(trackPeak) / 100_000 }
        if albumGain != Int32.min { gain.albumGain = Double(albumGain) / 100_000 }
        if albumPeak != 0 { gain.albumPeak = Double(albumPeak) / 100_000 }
    }

    /// `-6.50 dB` → -6.5, `0.98` → 0.98; like `strtod`, the number at the start counts and the rest is ignored.
    static func leadingNumber(_ text: String) -> Double? {
        let trimmed = text.trimmingSpaces()
        var end = trimmed.startIndex
        var seenDigit = false
        var seenDot = false
        var seenExponent = false
        for (offset, character) in zip(0..., trimmed) {
            if character.isASCII, character.isNumber {
                seenDigit = true
            } else if (character == "+" || character == "-") && offset == 0 {
            } else if character == "." && !seenDot && !seenExponent {
                seenDot = true
            } else if (character == "e" || character == "E") && seenDigit && !seenExponent {
                seenExponent = true
            } else if (character == "+" || character == "-"),
                      let previous = trimmed[..<trimmed.index(trimmed.startIndex, offsetBy: offset)].last,
                      previous == "e" || previous == "E" {
            } else {
                break
            }
            end = trimmed.index(after: end)
        }
        var number = Substring(trimmed[..<end])
        while let last = number.last, !(last.isASCII && last.isNumber) && last != "." { number = number.dropLast() }
        return seenDigit ? Double(number) : nil
    }

    static func pairs(_ dictionary: OpaquePointer?) -> [(String, String)] {
        FFmpegInspector.pairs(dictionary)
    }

    static func errorText(_ code: Int32) -> String {
        FFmpegInspector.errorText(code)
    }
}

/// Converts frames whose layout differs from the song's first frame into the song's format (libswresample),
/// so a mid-stream format change does not reach the player.
private final class FrameReformatter {
    let source: FFmpegAudioDecoder.FrameLayout
    private let target: AudioFormat
    private var swr: OpaquePointer?

    init(from source: FFmpegAudioDecoder.FrameLayout, to target: AudioFormat, location: String) throws(DecoderError) {
        self.source = source
        self.target = target
        guard let context = FFmpegPCMConverter.makeContext(
            from: source.sampleFormat, Int(source.rate), Int(source.channels),
            to: FFmpegPCMConverter.avFormat(target.sampleFormat), target.sampleRate, target.channels) else {
            throw DecoderError("Failed to decode \"\(location)\": cannot convert a change of audio format")
        }
        swr = context
    }

    deinit { swr_free(&swr) }

    func convert(_ frame: UnsafeMutablePointer<AVFrame>, skipping skip: Int, into buffer: inout [UInt8]) {
        let sourceFormat = AVSampleFormat(rawValue: frame.pointee.format)
        let planar = av_sample_fmt_is_planar(sourceFormat) != 0
        let channels = Int(frame.pointee.ch_layout.nb_channels)
        let sampleBytes = Int(av_get_bytes_per_sample(sourceFormat))
        let count = Int(frame.pointee.nb_samples) - skip
        guard count > 0, let planes = frame.pointee.extended_data else { return }
        var inputs: [UnsafePointer<UInt8>?] = (0..<(planar ? channels : 1)).map { plane in
            UnsafePointer(planes[plane]!.advanced(by: skip * sampleBytes * (planar ? 1 : channels)))
        }
        let capacity = Int(swr_get_out_samples(swr, Int32(count))) + 16
        var converted = [UInt8](unsafeUninitializedCapacity: capacity * target.bytesPerFrame) { raw, initialized in
            var output: UnsafeMutablePointer<UInt8>? = raw.baseAddress
            let produced = inputs.withUnsafeMutableBufferPointer { input in
                swr_convert(swr, &output, Int32(capacity), input.baseAddress, Int32(count))
            }
            initialized = max(0, Int(produced)) * target.bytesPerFrame
        }
        if target.sampleFormat == .s24 { FFmpegPCMConverter.narrowS32ToS24(&converted) }
        buffer.append(contentsOf: converted)
    }
}

private func av_frame_free_wrapper(_ frame: UnsafeMutablePointer<AVFrame>) {
    var pointer: UnsafeMutablePointer<AVFrame>? = frame
    av_frame_free(&pointer)
}

private func av_packet_free_wrapper(_ packet: UnsafeMutablePointer<AVPacket>) {
    var pointer: UnsafeMutablePointer<AVPacket>? = packet
    av_packet_free(&pointer)
}

extension StringProtocol {
    func trimmingSpaces() -> SubSequence {
        var text = self[...]
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return text
    }
}
