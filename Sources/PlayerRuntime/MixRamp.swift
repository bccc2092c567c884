/// MixRamp tags (`MIXRAMP_START`, `MIXRAMP_END`): a song's loudness profile as `dB seconds` pairs separated by
/// `;`, dB rising. `overlap` finds when the profile reaches a level (`mixramp_interpolate` in MPD).
enum MixRamp {
    /// Seconds at which the profile reaches `db`, interpolated linearly between pairs; the first pair's time
    /// when `db` is below all of them; nil when the list is malformed or never reaches `db`.
    static func overlap(_ list: String, at db: Double) -> Double? {
        var last: (db: Double, seconds: Double)?
        for pair in list.split(separator: ";", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2, let level = Double(parts[0]), let seconds = Double(parts[1]) else { return nil }
            if level == db { return seconds }
            if level < db {
                last = (level, seconds)
                continue
            }
            guard let last else { return seconds }
            return last.seconds + (db - last.db) * (seconds - last.seconds) / (level - last.db)
        }
        return nil
    }
}
