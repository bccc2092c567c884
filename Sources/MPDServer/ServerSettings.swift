import MPDProtocol

/// What the server needs from the configuration, already validated by the composition root.
public struct ServerSettings: Sendable {
    /// The greeting's protocol version. Clients switch features on it, so it only names a version whose
    /// command set is complete.
    public var protocolVersion = "0.24.0"

    /// MPD 0.24 changed `idle` to consume only the subscribed events.
    public var idleKeepsUnsubscribedEvents: Bool {
        let parts = protocolVersion.split(separator: ".").compactMap { Int($0) }
        return parts.count >= 2 && (parts[0], parts[1]) >= (0, 24)
    }
    public var passwords: [String: Permission] = [:]
    public var defaultPermissions: Permission = .all
    public var localPermissions: Permission = .all
    public var maxConnections = 100
    /// Seconds without a line before a non-idle client is dropped.
    public var connectionTimeout = 60
    public var maxCommandListSize = 2048 * 1024
    public var maxOutputBufferSize = 8192 * 1024
    /// What a client's unsent output may reach before it is dropped: MPD's buffer is a fixed 16 KiB part plus a
    /// `max_output_buffer_size` overflow part (`PeakBuffer`), so that much more fits.
    public var outputBufferLimit: Int { maxOutputBufferSize + 16384 }
    /// Tags the server reads at all (`metadata_to_use`); clients narrow it with `tagtypes`.
    public var globalTagMask = TagMask.defaultGlobal
    public var musicDirectory: String?
    public var playlistDirectory: String?
    /// `decoders` output: plugin name, suffixes, MIME types.
    public var decoders: [DecoderPlugin] = []
    /// `urlhandlers` output, without `file://` (added for local clients).
    public var urlSchemes: [String] = []

    public init() {}
}

public struct DecoderPlugin: Sendable, Equatable {
    public var name: String
    public var suffixes: [String]
    public var mimeTypes: [String]

    public init(name: String, suffixes: [String], mimeTypes: [String]) {
        self.name = name
        self.suffixes = suffixes
        self.mimeTypes = mimeTypes
    }
}
