import MPDProtocol
import PlayerCore

/// Per-connection settings that commands read and change (`tagtypes`, `binarylimit`, `password`, …).
public struct ClientState: Sendable {
    public let id: Int
    /// Connected over the unix socket: `config` is allowed and `urlhandlers` adds `file://`.
    public let isLocal: Bool
    public var permission: Permission
    public var tagMask: TagMask = .all
    public var binaryLimit = 8192
    public var partition = PlayerState.defaultPartition
    /// MPD 0.24 `protocol` features; all off for a new client.
    public var protocolFeatures: Set<String> = []
    /// Idle events a command raised for this client alone (MPD's `idle_flags |= …` in `Client::SetPartition`); the
    /// session adds them to the client's pending events once the command is done.
    public var ownEvents: IdleSubsystems = []

    public init(id: Int, isLocal: Bool, permission: Permission) {
        self.id = id
        self.isLocal = isLocal
        self.permission = permission
    }
}
