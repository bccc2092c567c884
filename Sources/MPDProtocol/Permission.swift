/// MPD's permission bits (`src/Permission.hxx`). A command runs when the client holds every bit the
/// command needs. `player` was split from `control` in MPD 0.23.
public struct Permission: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let read = Permission(rawValue: 1)
    public static let add = Permission(rawValue: 2)
    public static let control = Permission(rawValue: 4)
    public static let admin = Permission(rawValue: 8)
    public static let player = Permission(rawValue: 16)

    public static let none: Permission = []
    /// What a client gets when no `password` is configured.
    public static let all: Permission = [.read, .add, .control, .admin, .player]

    /// The names used in `password "pw@read,add"` and `default_permissions`, in MPD's spelling.
    public static let names: [(String, Permission)] = [
        ("read", .read), ("add", .add), ("player", .player), ("control", .control), ("admin", .admin),
    ]

    /// Parses a comma-separated list such as `read,add,control`, as MPD does: empty items are skipped,
    /// names are exact (no trimming), and `control` implies `player` (compatibility with MPD ≤ 0.22).
    /// Throws the name that is not a permission.
    public init(parsing list: String) throws(UnknownPermission) {
        var result: Permission = []
        for name in list.split(separator: ",", omittingEmptySubsequences: true) {
            guard let match = Permission.names.first(where: { $0.0 == name }) else {
                throw UnknownPermission(name: String(name))
            }
            result.insert(match.1)
        }
        if result.contains(.control) { result.insert(.player) }
        self = result
    }
}

public struct UnknownPermission: Error, Equatable, Sendable {
    public let name: String
    public init(name: String) { self.name = name }
}
