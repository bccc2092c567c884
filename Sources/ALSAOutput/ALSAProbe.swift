import CALSA

/// Finds out whether the machine has a sound card, to choose the default output (ALSA or null).
public enum ALSAProbe {
    /// The number of sound cards ALSA sees.
    public static func soundCardCount() -> Int {
        var card: Int32 = -1
        var count = 0
        while snd_card_next(&card) == 0, card >= 0 { count += 1 }
        return count
    }

    /// Opens and closes a PCM by name (e.g. `null`), proving the alsa-lib code path works here.
    public static func canOpen(pcm name: String) -> Bool {
        var handle: OpaquePointer?
        guard snd_pcm_open(&handle, name, SND_PCM_STREAM_PLAYBACK, 0) == 0, let handle else { return false }
        snd_pcm_close(handle)
        return true
    }

    public static var libraryVersion: String { String(cString: snd_asoundlib_version()) }
}
