public enum PlayState: String, Equatable, Sendable {
    case stop, play, pause
}

/// The player of one partition as the reducer sees it. Elapsed time is not state: the engine is asked on demand.
public struct PlayerStatus: Equatable, Sendable {
    public var state = PlayState.stop
    /// Index into the queue's `order` of the current song; survives `stop` as in MPD.
    public var currentOrder: Int?
    /// The last playback error, shown as `error:` until `clearerror` or the next start.
    public var error: String?

    public init() {}
}
