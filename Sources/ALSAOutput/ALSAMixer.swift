import CALSA
import PlayerCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// MPD's `mixer_type "hardware"` for an ALSA output: the volume of a simple mixer element, on the same 0…100
/// scale MPD shows, so that `setvol 50` lands where it does with MPD.
///
/// The handle is opened on first use and kept (re-reading the element list costs a few ms); when the card goes
/// away the handle is dropped and the next call tries again, so a re-plugged USB DAC comes back by itself.
public final class ALSAMixer: HardwareMixer {
    public struct Settings: Equatable, Sendable {
        /// `mixer_device`, an ALSA control device (`default`, `hw:0`).
        public var device: String
        /// `mixer_control`; nil tries `PCM`, then `Master`.
        public var control: String?
        /// `mixer_index`, for cards with several elements of one name.
        public var index: Int

        public init(device: String = "default", control: String? = nil, index: Int = 0) {
            self.device = device
            self.control = control
            self.index = index
        }

        /// The control device that goes with a PCM name when `mixer_device` is not set: the card of a `hw:`/
        /// `plughw:` device (whose `default` control device may be another card), `default` otherwise.
        public static func defaultDevice(forPCM pcm: String) -> String {
            for prefix in ["hw:", "plughw:"] where pcm.hasPrefix(prefix) {
                let card = pcm.dropFirst(prefix.count).split(separator: ",", maxSplits: 1).first ?? ""
                if !card.isEmpty { return "hw:\(card)" }
            }
            return "default"
        }
    }

    public let settings: Settings

    private struct State {
        var handle: OpaquePointer?
        var element: OpaquePointer?
        /// A knob with fewer than 101 steps cannot hold every percentage: after `setvol 51` it may read back 50.
        /// While the element still reads what our last set produced, report what was asked for.
        var desired = -1
        var resulting = -1

        func controlName(_ settings: Settings) -> String {
            guard let element, let name = snd_mixer_selem_get_name(element) else { return settings.control ?? "PCM" }
            return String(cString: name)
        }
    }

    private let state = Mutex(State())

    public init(_ settings: Settings = Settings()) {
        self.settings = settings
    }

    deinit {
        state.withLock { Self.closeHandle(&$0) }
    }

    public func volume() throws(OutputError) -> Int? {
        try state.withLock { (state: inout State) throws(OutputError) -> Int? in
            let element = try openElement(&state)
            if let handle = state.handle {
                let err = snd_mixer_handle_events(handle)
                if err < 0 {
                    Self.closeHandle(&state)
                    throw OutputError("ALSA mixer \"\(settings.device)\": \(Self.describe(err))")
                }
            }
            guard let normalized = VolumeMapping.playbackVolume(of: element) else { return nil }
            let percent = Int(saturating: (normalized * 100).rounded())
            if state.resulting >= 0, percent == state.resulting { return state.desired }
            state.desired = -1
            state.resulting = -1
            return percent
        }
    }

    public func setVolume(_ percent: Int) throws(OutputError) {
        let percent = min(max(percent, 0), 100)
        try state.withLock { (state: inout State) throws(OutputError) in
            let element = try openElement(&state)
            let err = VolumeMapping.setPlaybackVolume(of: element, to: Double(percent) / 100)
            if err < 0 {
                if err == -ENODEV { Self.closeHandle(&state) }
                throw OutputError("Cannot set the volume of ALSA mixer control \"\(state.controlName(settings))\" "
                                  + "on \"\(settings.device)\": \(Self.describe(err))")
            }
            state.desired = percent
            state.resulting = VolumeMapping.playbackVolume(of: element).map { Int(saturating: ($0 * 100).rounded()) } ?? -1
        }
    }

    // MARK: the handle

    private func openElement(_ state: inout State) throws(OutputError) -> OpaquePointer {
        if let element = state.element { return element }
        var handle: OpaquePointer?
        var err = snd_mixer_open(&handle, 0)
        guard err == 0, let handle else {
            throw OutputError("Cannot open ALSA mixer \"\(settings.device)\": \(Self.describe(err))")
        }
        err = snd_mixer_attach(handle, settings.device)
        if err < 0 {
            snd_mixer_close(handle)
            throw OutputError("Cannot open ALSA mixer device \"\(settings.device)\" (no such sound card?): "
                              + Self.describe(err))
        }
        err = snd_mixer_selem_register(handle, nil, nil)
        if err == 0 { err = snd_mixer_load(handle) }
        if err < 0 {
            snd_mixer_close(handle)
            throw OutputError("Cannot load ALSA mixer \"\(settings.device)\": \(Self.describe(err))")
        }
        let names = settings.control.map { [$0] } ?? ["PCM", "Master"]
        for name in names {
            if let element = Self.find(name, index: settings.index, in: handle) {
                state.handle = handle
                state.element = element
                state.desired = -1
                state.resulting = -1
                return element
            }
        }
        snd_mixer_close(handle)
        let wanted = names.map { "\"\($0)\"" }.joined(separator: " or ")
        throw OutputError("ALSA mixer \"\(settings.device)\" has no playback volume control \(wanted)"
                          + (settings.index == 0 ? "" : " with index \(settings.index)"))
    }

    private static func find(_ name: String, index: Int, in handle: OpaquePointer) -> OpaquePointer? {
        var element = snd_mixer_first_elem(handle)
        while let current = element {
            if snd_mixer_elem_get_type(current) == SND_MIXER_ELEM_SIMPLE,
               snd_mixer_selem_has_playback_volume(current) != 0,
               snd_mixer_selem_get_index(current) == index,
               let cName = snd_mixer_selem_get_name(current),
               String(cString: cName).lowercased() == name.lowercased() {
                return current
            }
            element = snd_mixer_elem_next(current)
        }
        return nil
    }

    private static func closeHandle(_ state: inout State) {
        if let handle = state.handle { snd_mixer_close(handle) }
        state.handle = nil
        state.element = nil
    }

    static func describe(_ err: Int32) -> String {
        guard let text = snd_strerror(err) else { return "error \(err)" }
        return String(cString: text)
    }
}


/// Maps a mixer element to 0…1 the way MPD (and alsamixer) do, so that the percentages agree with MPD's:
/// positions follow perceived loudness (the cube root of the amplitude factor, i.e. 10^(dB/60)) when the
/// element reports a dB range wider than 24 dB; a narrow dB range is spread linearly in dB; an element without
/// dB information is linear in its raw register steps.
enum VolumeMapping {
    /// Ranges up to this many hundredths of a dB are mapped linearly in dB.
    static let linearDBLimit = 2400

    static func playbackVolume(of element: OpaquePointer) -> Double? {
        var low = 0
        var high = 0
        if snd_mixer_selem_get_playback_dB_range(element, &low, &high) == 0, low < high {
            var value = 0
            guard snd_mixer_selem_get_playback_dB(element, SND_MIXER_SCHN_FRONT_LEFT, &value) == 0 else { return nil }
            if high - low <= linearDBLimit { return Double(value - low) / Double(high - low) }
            let level = loudness(value - high)
            guard low != Int(SND_CTL_TLV_DB_GAIN_MUTE) else { return level }
            let floor = loudness(low - high)
            return (level - floor) / (1 - floor)
        }
        guard snd_mixer_selem_get_playback_volume_range(element, &low, &high) == 0, low < high else { return nil }
        var value = 0
        guard snd_mixer_selem_get_playback_volume(element, SND_MIXER_SCHN_FRONT_LEFT, &value) == 0 else { return nil }
        return Double(value - low) / Double(high - low)
    }

    /// Sets all channels, rounding up so that a small step up is never lost on a coarse knob. Returns alsa-lib's
    /// error code.
    static func setPlaybackVolume(of element: OpaquePointer, to volume: Double) -> Int32 {
        var low = 0
        var high = 0
        if snd_mixer_selem_get_playback_dB_range(element, &low, &high) == 0, low < high {
            if volume <= 0 { return snd_mixer_selem_set_playback_dB_all(element, low, 1) }
            if volume >= 1 { return snd_mixer_selem_set_playback_dB_all(element, high, 1) }
            if high - low <= linearDBLimit {
                return snd_mixer_selem_set_playback_dB_all(element, low + Int((volume * Double(high - low)).rounded(.up)), 1)
            }
            var level = volume
            if low != Int(SND_CTL_TLV_DB_GAIN_MUTE) {
                let floor = loudness(low - high)
                level = volume * (1 - floor) + floor
            }
            let centiDB = Int((6000 * log10(level)).rounded(.up)) + high
            return snd_mixer_selem_set_playback_dB_all(element, centiDB, 1)
        }
        let err = snd_mixer_selem_get_playback_volume_range(element, &low, &high)
        guard err == 0 else { return err }
        let raw = volume <= 0 ? low : volume >= 1 ? high : low + Int((volume * Double(high - low)).rounded(.up))
        return snd_mixer_selem_set_playback_volume_all(element, raw)
    }

    /// 10^(dB/60) for a level in hundredths of a dB: the perceived loudness of an amplitude change.
    static func loudness(_ centiDB: Int) -> Double {
        pow(10, Double(centiDB) / 6000)
    }
}
