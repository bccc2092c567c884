/// `single` and `consume` take 0, 1 or `oneshot` (which resets itself to 0 after one use).
public enum OneshotMode: String, Equatable, Sendable, CaseIterable {
    case off = "0"
    case on = "1"
    case oneshot
}

public enum ReplayGainMode: String, Equatable, Sendable, CaseIterable {
    case off, track, album, auto
}

/// The playback options shown in `status` and changed by the options commands; every change emits `options`.
public struct PlaybackOptions: Equatable, Sendable {
    public var `repeat` = false
    public var random = false
    public var single = OneshotMode.off
    public var consume = OneshotMode.off
    /// Seconds.
    public var crossfade: Double = 0
    /// Decibels; MPD's default is 0.
    public var mixrampDB: Float = 0
    /// Seconds; negative or NaN disables MixRamp (MPD prints it only when > 0).
    public var mixrampDelay: Float = -1
    public var replayGainMode = ReplayGainMode.off

    public init() {}

    // NaN never equals itself; compare the bit patterns so that setting `nan` twice is not a change.
    public static func == (a: PlaybackOptions, b: PlaybackOptions) -> Bool {
        a.repeat == b.repeat && a.random == b.random && a.single == b.single && a.consume == b.consume
            && a.crossfade == b.crossfade && a.mixrampDB.bitPattern == b.mixrampDB.bitPattern
            && a.mixrampDelay.bitPattern == b.mixrampDelay.bitPattern && a.replayGainMode == b.replayGainMode
    }
}
