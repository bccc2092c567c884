/// The idle subsystems in MPD's bit and output order (`src/protocol/IdleFlags.cxx`).
public struct IdleSubsystems: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let database = IdleSubsystems(rawValue: 1 << 0)
    public static let storedPlaylist = IdleSubsystems(rawValue: 1 << 1)
    public static let playlist = IdleSubsystems(rawValue: 1 << 2)
    public static let player = IdleSubsystems(rawValue: 1 << 3)
    public static let mixer = IdleSubsystems(rawValue: 1 << 4)
    public static let output = IdleSubsystems(rawValue: 1 << 5)
    public static let options = IdleSubsystems(rawValue: 1 << 6)
    public static let sticker = IdleSubsystems(rawValue: 1 << 7)
    public static let update = IdleSubsystems(rawValue: 1 << 8)
    public static let subscription = IdleSubsystems(rawValue: 1 << 9)
    public static let message = IdleSubsystems(rawValue: 1 << 10)
    public static let neighbor = IdleSubsystems(rawValue: 1 << 11)
    public static let mount = IdleSubsystems(rawValue: 1 << 12)
    public static let partition = IdleSubsystems(rawValue: 1 << 13)

    /// `idle` with no argument waits for everything, including bits no name exists for (MPD uses `~0`).
    public static let all = IdleSubsystems(rawValue: ~0)

    public static let names: [String] = [
        "database", "stored_playlist", "playlist", "player", "mixer", "output", "options", "sticker", "update",
        "subscription", "message", "neighbor", "mount", "partition",
    ]

    /// Parses one subsystem name case-insensitively (`idle_parse_name`).
    public init?(name: String) {
        let lowered = name.lowercased()
        guard let index = Self.names.firstIndex(of: lowered) else { return nil }
        self.init(rawValue: 1 << UInt32(index))
    }

    /// The `changed: X` names for these flags, in MPD's order.
    public var names: [String] {
        Self.names.enumerated().compactMap { contains(IdleSubsystems(rawValue: 1 << UInt32($0.offset))) ? $0.element : nil }
    }
}
