import MPDProtocol

/// MPD's sticker database (`src/sticker/StickerDatabase.cxx`): `(type, uri, name) → value` in SQLite, MPD's
/// schema. Implemented by the `Library` module. Validation that needs the music database (a `song` sticker needs
/// the song) is done by the commands through `DatabaseQueries`, except for the objects the store vouches for.
public protocol StickerStore: Sendable {
    /// nil when there is no such sticker.
    func stickerValue(type: String, uri: String, name: String) async throws -> String?
    func setSticker(type: String, uri: String, name: String, value: String) async throws
    /// `sticker inc|dec` (0.24), as MPD's SQL does it: an absent sticker is stored as `value` (also by `dec`), a
    /// present one becomes its old value plus (`dec`: minus) `value`, both read as SQLite reads numbers.
    func adjustSticker(type: String, uri: String, name: String, by value: String, subtracting: Bool) async throws
    /// One sticker, or all of the object's when `name` is nil; false when nothing was deleted.
    func deleteSticker(type: String, uri: String, name: String?) async throws -> Bool
    /// The object's stickers, sorted by name.
    func stickers(type: String, uri: String) async throws -> [(name: String, value: String)]
    /// `sticker find`: objects with sticker `name` under `base` (`""`: all; a song's directory for `song`, a prefix of
    /// the URI in any case for the other types), optionally compared by `comparison`, sorted by `sort` (URI order
    /// without one) and cut to `window`.
    func findStickers(type: String, base: String, name: String, comparison: StickerComparison?, sort: StickerSort?,
                      descending: Bool, window: RangeArgument?) async throws -> [(uri: String, value: String)]
    /// `stickernames`: the distinct names, sorted.
    func stickerNames() async throws -> [String]
    /// `stickernamestypes [TYPE]`: distinct (name, type) pairs.
    func stickerNamesTypes(type: String?) async throws -> [(name: String, type: String)]
    /// Whether the store vouches for an object the music database need not hold: a streaming catalogue's song
    /// (`netease://song/<id>`) takes stickers whether or not the sync stored it. Cheap: the event loop asks.
    func vouchesFor(type: String, uri: String) -> Bool
}

extension StickerStore {
    public func vouchesFor(type: String, uri: String) -> Bool { false }
}

/// `sticker find … NAME OP VALUE` (MPD 0.24): which values match. The command parses the operator, so a store
/// only ever sees one it knows.
public struct StickerComparison: Sendable, Equatable {
    public enum Operator: String, Sendable, CaseIterable {
        /// `=`, `<`, `>`: the values as text, as SQLite compares them.
        case equal = "=", less = "<", greater = ">"
        /// `eq`, `lt`, `gt`: the values as integers (`CAST(value AS INT)`).
        case integerEqual = "eq", integerLess = "lt", integerGreater = "gt"
        /// `contains`, `starts_with`: SQL `LIKE` (ASCII letters in any case, `%` and `_` as wildcards).
        case contains, startsWith = "starts_with"
    }

    public var op: Operator
    public var value: String

    public init(_ op: Operator, _ value: String) {
        self.op = op
        self.value = value
    }
}

/// `sticker find … sort KEY` (MPD 0.24): by URI, by value as text, or by the value's leading integer.
public enum StickerSort: String, Sendable, CaseIterable {
    case uri, value, valueInteger = "value_int"
}
