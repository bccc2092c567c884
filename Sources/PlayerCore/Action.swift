/// What can happen to the player state. Client commands become actions; effect results come back as actions.
public enum Action: Equatable, Sendable {
    case setRepeat(Bool)
    case setRandom(Bool)
    case setSingle(OneshotMode)
    case setConsume(OneshotMode)
    case setCrossfade(seconds: Double)
    case setMixrampDB(Float)
    case setMixrampDelay(Float)
    case setReplayGainMode(ReplayGainMode)
    /// `setvol`: absolute 0…100.
    case setVolume(Int)
    /// `volume`: relative −100…100, clamped.
    case changeVolume(by: Int)
    case clearError
}

/// What the store must do outside the reducer. Plain values so reducer tests are plain assertions.
public enum Effect: Equatable, Sendable {
    /// Apply a volume to the partition's mixer.
    case applyVolume(partition: String, volume: Int)
    /// Announce a change that a state diff cannot see (MPD emits some events even when nothing changed,
    /// e.g. `setvol` to the same volume still emits `mixer`).
    case announce(Change)
    /// The persistent state (queue, options, volume) changed and should be written.
    case persistState
}

/// A change of the state, as observers see it. The server maps these to idle subsystems in one table.
public struct Change: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case queue, player, options, mixer, outputs, partitions, storedPlaylists, database, stickers
    }
    public var kind: Kind
    /// The partition it happened in, or nil for server-wide changes.
    public var partition: String?

    public init(_ kind: Kind, partition: String? = nil) {
        self.kind = kind
        self.partition = partition
    }
}
