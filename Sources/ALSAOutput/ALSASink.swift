import CALSA
import PlayerCore

#if canImport(Glibc)
import Glibc
#endif

/// MPD's `alsa` output on alsa-lib's blocking API. The engine gives each output its own thread, so a blocking
/// `snd_pcm_writei` is the simplest correct pacing: it returns once the card has room, which is what
/// `keepsTime` promises (MPD needs its own ring buffer and event loop only because its outputs share threads).
public final class ALSASink: AudioSink {
    /// The `audio_output` block's ALSA settings. `allowed_formats`, `format` and `dop` are the engine's business
    /// (or unsupported) and have no field here.
    public struct Settings: Equatable, Sendable {
        /// `device`: an ALSA PCM name (`default`, `hw:0,0`, `plughw:1`, a name from an asoundrc).
        public var device: String
        /// `buffer_time` in µs; nil keeps the device's default. MPD's default is 500 ms: long enough to ride out
        /// a busy machine, short enough that `cancel` feels instant.
        public var bufferTime: Int?
        /// `period_time` in µs; nil means a quarter of the buffer time, as MPD does.
        public var periodTime: Int?
        /// Whether the device plays in real time. nil detects it: alsa-lib's `null` PCM (alone or under `file`,
        /// `plug`, …) swallows data at any speed, so the engine must pace it by its own clock.
        public var keepsTime: Bool?

        public init(device: String = "default", bufferTime: Int? = 500_000, periodTime: Int? = nil,
                    keepsTime: Bool? = nil) {
            self.device = device
            self.bufferTime = bufferTime
            self.periodTime = periodTime
            self.keepsTime = keepsTime
        }
    }

    public let settings: Settings
    /// An ALSA configuration to resolve `device` in instead of the system's (`/usr/share/alsa/alsa.conf` and the
    /// asoundrc files). Tests use it to record into a file PCM without touching the environment, which alsa-lib
    /// caches per process.
    private let configText: String?

    private var pcm: OpaquePointer?
    private var config: OpaquePointer?
    private var format = AudioFormat.cd
    private var canPause = false
    private var paced = true

    public init(_ settings: Settings = Settings(), configText: String? = nil) {
        self.settings = settings
        self.configText = configText
    }

    /// A PCM defined by an in-memory ALSA configuration, e.g.
    /// `pcm.out { type file; slave.pcm { type null }; file "/tmp/x.raw"; format "raw" }`.
    public convenience init(device: String, configText: String, bufferTime: Int? = 500_000) {
        self.init(Settings(device: device, bufferTime: bufferTime), configText: configText)
    }

    deinit { close() }

    public var keepsTime: Bool { settings.keepsTime ?? paced }

    /// The format the device was set up with by the last `open`.
    public var openedFormat: AudioFormat? { pcm == nil ? nil : format }

    // MARK: open

    public func open(_ requested: AudioFormat) throws(OutputError) -> AudioFormat {
        close()
        let handle = try openHandle()
        do {
            format = try setUp(handle, requested)
        } catch {
            snd_pcm_close(handle)
            freeConfig()
            throw error
        }
        pcm = handle
        paced = Self.isPaced(handle)
        return format
    }

    private func openHandle() throws(OutputError) -> OpaquePointer {
        var handle: OpaquePointer?
        let err: Int32
        if let configText {
            var top: OpaquePointer?
            var input: OpaquePointer?
            guard snd_config_top(&top) == 0, let top else {
                throw OutputError("Cannot create an ALSA configuration for device \"\(settings.device)\"")
            }
            var loaded: Int32 = 0
            configText.utf8CString.withUnsafeBufferPointer { text in
                loaded = snd_input_buffer_open(&input, text.baseAddress, text.count - 1)
                if loaded == 0, let input {
                    loaded = snd_config_load(top, input)
                    snd_input_close(input)
                }
            }
            guard loaded == 0 else {
                snd_config_delete(top)
                throw OutputError("Invalid ALSA configuration for device \"\(settings.device)\": "
                                  + Self.describe(loaded))
            }
            config = top
            err = snd_pcm_open_lconf(&handle, settings.device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK, top)
        } else {
            err = snd_pcm_open(&handle, settings.device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
        }
        guard err == 0, let handle else {
            freeConfig()
            let hint = err == -ENOENT ? " (no such PCM, or no sound card)" : ""
            throw OutputError("Failed to open ALSA device \"\(settings.device)\": \(Self.describe(err))\(hint)")
        }
        // Opened non-blocking so that a card held by another program fails at once (EBUSY) instead of hanging
        // the output thread until it is free; playback itself blocks.
        snd_pcm_nonblock(handle, 0)
        return handle
    }

    private func freeConfig() {
        if let config { snd_config_delete(config) }
        config = nil
    }

    /// Hardware and software parameters, the way MPD sets them: the asked format, or the best one the device
    /// takes; the nearest rate and channel count (the engine converts to whatever comes back); buffer and period
    /// near the settings; playback starts once the buffer is full but for one period.
    private func setUp(_ handle: OpaquePointer, _ requested: AudioFormat) throws(OutputError) -> AudioFormat {
        var hw: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&hw) == 0, let hw else { throw failure("snd_pcm_hw_params_malloc", -ENOMEM) }
        defer { snd_pcm_hw_params_free(hw) }

        try check(snd_pcm_hw_params_any(handle, hw), "snd_pcm_hw_params_any")
        try check(snd_pcm_hw_params_set_access(handle, hw, SND_PCM_ACCESS_RW_INTERLEAVED),
                  "snd_pcm_hw_params_set_access")

        var result = requested
        var chosen: AudioFormat.SampleFormat?
        for candidate in Self.fallbackOrder(for: requested.sampleFormat)
        where snd_pcm_hw_params_set_format(handle, hw, Self.alsaFormat(candidate)) == 0 {
            chosen = candidate
            break
        }
        guard let chosen else {
            throw OutputError("ALSA device \"\(settings.device)\" supports none of the sample formats "
                              + "float, 32, 24 and 16 bit")
        }
        result.sampleFormat = chosen

        var channels = UInt32(requested.channels)
        try check(snd_pcm_hw_params_set_channels_near(handle, hw, &channels),
                  "cannot set \(requested.channels) channels, snd_pcm_hw_params_set_channels_near")
        result.channels = Int(channels)

        var rate = UInt32(requested.sampleRate)
        try check(snd_pcm_hw_params_set_rate_near(handle, hw, &rate, nil),
                  "cannot set \(requested.sampleRate) Hz, snd_pcm_hw_params_set_rate_near")
        guard rate > 0 else { throw OutputError("ALSA device \"\(settings.device)\" refuses \(requested.sampleRate) Hz") }
        result.sampleRate = Int(rate)

        var bufferTime: UInt32 = 0
        if let wanted = settings.bufferTime, wanted > 0 {
            bufferTime = UInt32(wanted)
            try check(snd_pcm_hw_params_set_buffer_time_near(handle, hw, &bufferTime, nil),
                      "snd_pcm_hw_params_set_buffer_time_near")
        } else if snd_pcm_hw_params_get_buffer_time(hw, &bufferTime, nil) < 0 {
            bufferTime = 0
        }
        var periodTime = UInt32(settings.periodTime ?? 0)
        if periodTime == 0, bufferTime >= 10_000 { periodTime = bufferTime / 4 }
        if periodTime > 0 {
            try check(snd_pcm_hw_params_set_period_time_near(handle, hw, &periodTime, nil),
                      "snd_pcm_hw_params_set_period_time_near")
        }
        try check(snd_pcm_hw_params(handle, hw), "snd_pcm_hw_params")

        var bufferSize: snd_pcm_uframes_t = 0
        var periodSize: snd_pcm_uframes_t = 0
        try check(snd_pcm_hw_params_get_buffer_size(hw, &bufferSize), "snd_pcm_hw_params_get_buffer_size")
        try check(snd_pcm_hw_params_get_period_size(hw, &periodSize, nil), "snd_pcm_hw_params_get_period_size")
        canPause = snd_pcm_hw_params_can_pause(hw) == 1

        var sw: OpaquePointer?
        guard snd_pcm_sw_params_malloc(&sw) == 0, let sw else { throw failure("snd_pcm_sw_params_malloc", -ENOMEM) }
        defer { snd_pcm_sw_params_free(sw) }
        try check(snd_pcm_sw_params_current(handle, sw), "snd_pcm_sw_params_current")
        let period = max(periodSize, 1)
        try check(snd_pcm_sw_params_set_start_threshold(handle, sw, bufferSize > period ? bufferSize - period : 1),
                  "snd_pcm_sw_params_set_start_threshold")
        try check(snd_pcm_sw_params_set_avail_min(handle, sw, period), "snd_pcm_sw_params_set_avail_min")
        try check(snd_pcm_sw_params(handle, sw), "snd_pcm_sw_params")

        try check(snd_pcm_prepare(handle), "snd_pcm_prepare")
        return result
    }

    /// The asked format first, then the integer formats from the most to the least precise, so that nothing is
    /// lost when the device allows it (MPD probes 24 before 32 bit; 32 is never worse); float last, for the rare
    /// plugin that takes nothing else.
    static func fallbackOrder(for format: AudioFormat.SampleFormat) -> [AudioFormat.SampleFormat] {
        [format] + ([.s32, .s24, .s16, .float] as [AudioFormat.SampleFormat]).filter { $0 != format }
    }

    /// `.s24` is 24-bit samples in the low bits of 32-bit little-endian words, which is exactly ALSA's
    /// `S24_LE` (the packed 3-byte layout is `S24_3LE`).
    static func alsaFormat(_ format: AudioFormat.SampleFormat) -> snd_pcm_format_t {
        switch format {
        case .s16: SND_PCM_FORMAT_S16_LE
        case .s24: SND_PCM_FORMAT_S24_LE
        case .s32: SND_PCM_FORMAT_S32_LE
        case .float: SND_PCM_FORMAT_FLOAT_LE
        }
    }

    /// alsa-lib's `null` PCM discards data without waiting, wherever it sits in the plugin chain (`file` over
    /// `null` is the usual recorder). The type of the top PCM only tells about the top, so the chain is read from
    /// `snd_pcm_dump`, which names every slave.
    static func isPaced(_ handle: OpaquePointer) -> Bool {
        if snd_pcm_type(handle) == SND_PCM_TYPE_NULL { return false }
        var output: OpaquePointer?
        guard snd_output_buffer_open(&output) == 0, let output else { return true }
        defer { snd_output_close(output) }
        guard snd_pcm_dump(handle, output) == 0 else { return true }
        var text: UnsafeMutablePointer<CChar>?
        let length = snd_output_buffer_string(output, &text)
        guard let text, length > 0 else { return true }
        let dump = String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
        return !dump.contains("Null PCM")
    }

    // MARK: playback

    public func write(_ data: UnsafeRawBufferPointer) throws(OutputError) {
        guard let pcm else { throw OutputError("ALSA device \"\(settings.device)\" is not open") }
        guard let base = data.baseAddress else { return }
        let frameSize = format.bytesPerFrame
        let frames = data.count / frameSize
        var done = 0
        var recoveries = 0
        try makeWritable(pcm)
        while done < frames {
            let written = snd_pcm_writei(pcm, base + done * frameSize, snd_pcm_uframes_t(frames - done))
            if written > 0 {
                done += written
                recoveries = 0
                continue
            }
            recoveries += 1
            guard recoveries <= 16 else {
                throw failure("snd_pcm_writei keeps failing", written == 0 ? -EIO : Int32(written))
            }
            if written == 0 || written == -Int(EAGAIN) {
                _ = snd_pcm_wait(pcm, 100)
            } else if written != -Int(EINTR) {
                try recover(pcm, Int32(written))
            }
        }
    }

    /// Brings the PCM back to a state that takes data: after a pause, a drain or a cancel the next write resumes.
    private func makeWritable(_ pcm: OpaquePointer) throws(OutputError) {
        switch snd_pcm_state(pcm) {
        case SND_PCM_STATE_PAUSED:
            if snd_pcm_pause(pcm, 0) < 0 { try check(snd_pcm_prepare(pcm), "snd_pcm_prepare") }
        case SND_PCM_STATE_SETUP, SND_PCM_STATE_XRUN, SND_PCM_STATE_OPEN:
            try check(snd_pcm_prepare(pcm), "snd_pcm_prepare")
        case SND_PCM_STATE_SUSPENDED:
            try recover(pcm, -ESTRPIPE)
        case SND_PCM_STATE_DISCONNECTED:
            throw failure("device disconnected", -ENODEV)
        default:
            break
        }
    }

    /// An underrun restarts the stream; a suspended card (system sleep) is resumed, or restarted when the driver
    /// cannot resume. Anything else (the card was unplugged, the driver failed) is the end of this output.
    private func recover(_ pcm: OpaquePointer, _ err: Int32) throws(OutputError) {
        switch err {
        case -EPIPE:
            try check(snd_pcm_prepare(pcm), "snd_pcm_prepare after an underrun")
        case -ESTRPIPE:
            var result = snd_pcm_resume(pcm)
            var tries = 0
            while result == -EAGAIN, tries < 50 {
                usleep(100_000)
                tries += 1
                result = snd_pcm_resume(pcm)
            }
            if result < 0 { try check(snd_pcm_prepare(pcm), "snd_pcm_prepare after a suspend") }
        default:
            if snd_pcm_state(pcm) == SND_PCM_STATE_PAUSED, snd_pcm_pause(pcm, 0) == 0 { return }
            throw failure("snd_pcm_writei", err)
        }
    }

    public func drain() {
        guard let pcm else { return }
        if snd_pcm_state(pcm) == SND_PCM_STATE_PAUSED { _ = snd_pcm_pause(pcm, 0) }
        switch snd_pcm_state(pcm) {
        case SND_PCM_STATE_RUNNING, SND_PCM_STATE_PREPARED:
            _ = snd_pcm_drain(pcm)
        default:
            break
        }
        _ = snd_pcm_prepare(pcm)
    }

    public func cancel() {
        guard let pcm else { return }
        _ = snd_pcm_drop(pcm)
        _ = snd_pcm_prepare(pcm)
    }

    /// Pauses in hardware when the device can; otherwise the engine simply stops writing, the device runs dry,
    /// and the next write recovers from the underrun.
    public func pause() {
        guard let pcm, canPause, snd_pcm_state(pcm) == SND_PCM_STATE_RUNNING else { return }
        _ = snd_pcm_pause(pcm, 1)
    }

    public func close() {
        if let pcm {
            if snd_pcm_state(pcm) == SND_PCM_STATE_PAUSED { _ = snd_pcm_pause(pcm, 0) }
            snd_pcm_close(pcm)
        }
        pcm = nil
        freeConfig()
    }

    // MARK: errors

    private func check(_ err: Int32, _ what: String) throws(OutputError) {
        if err < 0 { throw failure(what, err) }
    }

    private func failure(_ what: String, _ err: Int32) -> OutputError {
        switch -err {
        case ENODEV, EBADFD, ENXIO, EIO:
            OutputError("ALSA device \"\(settings.device)\" is gone (\(what): \(Self.describe(err)))")
        default:
            OutputError("ALSA device \"\(settings.device)\": \(what) failed: \(Self.describe(err))")
        }
    }

    static func describe(_ err: Int32) -> String {
        guard let text = snd_strerror(err) else { return "error \(err)" }
        return String(cString: text)
    }
}
