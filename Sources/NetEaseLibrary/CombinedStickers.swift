import Foundation
import MPDProtocol
import NetEase
import PlayerCore
import ServerPorts

/// The sticker database the protocol sees: MPD's SQLite stickers, except two names on NetEase songs
/// (`netease://song/<id>`). `liked` is NetEase's like (红心) both ways: it reads the like list (the synced
/// `Liked` folder, else NetEase's list) and `set`/`delete` like and unlike on NetEase. A song that is not liked
/// has no `liked` sticker, so `sticker find … liked` lists exactly the liked songs. `disliked` stays a local
/// sticker, but setting it puts the song in the personal FM's trash on NetEase and tells `onDisliked` (the
/// application skips the song if it is playing). Every other sticker, on any song, is stored locally as in MPD.
public final class CombinedStickers: StickerStore {
    let local: any StickerStore
    let catalog: NetEaseCatalog
    let onDisliked: @Sendable (String) -> Void

    public static let liked = "liked"
    public static let disliked = "disliked"

    /// `onDisliked` gets the song's URI after NetEase took the dislike.
    public init(local: any StickerStore, catalog: NetEaseCatalog, onDisliked: @escaping @Sendable (String) -> Void = { _ in }) {
        self.local = local
        self.catalog = catalog
        self.onDisliked = onDisliked
    }

    private func songID(_ type: String, _ uri: String) -> Int64? {
        type == "song" ? NetEaseCatalog.songID(uri) : nil
    }

    /// NetEase songs take stickers whether or not the sync stored them.
    public func vouchesFor(type: String, uri: String) -> Bool { songID(type, uri) != nil }

    private func isLiked(_ id: Int64) async throws -> Bool {
        try await likedURIs().contains(NetEaseURI.song(id))
    }

    /// The liked songs' URIs, newest first.
    private func likedURIs() async throws -> [String] {
        try await catalog.call("cannot read the liked songs") { try self.catalog.likedIDs().map(NetEaseURI.song) }
    }

    public func stickerValue(type: String, uri: String, name: String) async throws -> String? {
        if name == Self.liked, let id = songID(type, uri) { return try await isLiked(id) ? "1" : nil }
        return try await local.stickerValue(type: type, uri: uri, name: name)
    }

    public func setSticker(type: String, uri: String, name: String, value: String) async throws {
        guard let id = songID(type, uri), name == Self.liked || name == Self.disliked else {
            return try await local.setSticker(type: type, uri: uri, name: name, value: value)
        }
        let on = try Self.flag(name, value)
        if name == Self.liked {
            try await catalog.call("cannot \(on ? "like" : "unlike") \(uri)") { try self.catalog.setLiked(id, on) }
            return
        }
        if on {
            try await catalog.call("cannot dislike \(uri)") { try self.catalog.trash(id) }
        }
        try await local.setSticker(type: type, uri: uri, name: name, value: on ? "1" : "0")
        if on { onDisliked(uri) }
    }

    /// `inc`/`dec` of `liked` or `disliked` on a NetEase song, as MPD's SQL adjusts a value: an unset flag becomes
    /// `value`, a set one 1 ± `value`; the result must be a flag again.
    public func adjustSticker(type: String, uri: String, name: String, by value: String, subtracting: Bool) async throws {
        guard songID(type, uri) != nil, name == Self.liked || name == Self.disliked else {
            return try await local.adjustSticker(type: type, uri: uri, name: name, by: value, subtracting: subtracting)
        }
        let current = try await stickerValue(type: type, uri: uri, name: name).map { try Self.flag(name, $0) } ?? false
        guard current else { return try await setSticker(type: type, uri: uri, name: name, value: value) }
        let delta = Self.integer(value)
        try await setSticker(type: type, uri: uri, name: name, value: String(subtracting ? 1 &- delta : 1 &+ delta))
    }

    /// `delete … liked` unlikes; deleting all of a NetEase song's stickers unlikes it too (`liked` is one of them).
    public func deleteSticker(type: String, uri: String, name: String?) async throws -> Bool {
        guard let id = songID(type, uri), name == nil || name == Self.liked else {
            return try await local.deleteSticker(type: type, uri: uri, name: name)
        }
        var deleted = false
        if name == nil { deleted = try await local.deleteSticker(type: type, uri: uri, name: nil) }
        if try await isLiked(id) {
            try await catalog.call("cannot unlike \(uri)") { try self.catalog.setLiked(id, false) }
            deleted = true
        }
        return deleted
    }

    public func stickers(type: String, uri: String) async throws -> [(name: String, value: String)] {
        var stickers = try await local.stickers(type: type, uri: uri)
        guard let id = songID(type, uri) else { return stickers }
        // A `liked` stored before NetEase answered for it is not the truth.
        stickers.removeAll { $0.name == Self.liked }
        if try await isLiked(id) { stickers.append((Self.liked, "1")) }
        return stickers.sorted { Self.bytewise($0.name, $1.name) }
    }

    /// Local stickers as MPD finds them, plus NetEase's liked songs for `liked`. A base in the NetEase directory
    /// (`NetEase/Liked`, `NetEase/Playlists/Road trip`) selects the songs listed there, as `find … base` does;
    /// `NetEase` itself and `NetEase/Liked` hold every liked song.
    public func findStickers(type: String, base: String, name: String, comparison: StickerComparison?,
                             sort: StickerSort?, descending: Bool,
                             window: RangeArgument?) async throws -> [(uri: String, value: String)] {
        let inCatalog = catalog.contains(base)
        guard type == "song", name == Self.liked || inCatalog else {
            return try await local.findStickers(type: type, base: base, name: name, comparison: comparison,
                                                sort: sort, descending: descending, window: window)
        }
        let everyLiked = base.isEmpty || base == catalog.root || base == catalog.path(.liked)
        var members: Set<String>?
        if inCatalog, !(name == Self.liked && everyLiked) {
            let uri = base
            members = Set(try await catalog.call("cannot list \(base)") {
                try self.catalog.entries(uri: uri, recursive: true).compactMap(\.song?.uri)
            })
        }
        var rows = try await local.findStickers(type: type, base: inCatalog ? "" : base, name: name,
                                                comparison: comparison, sort: nil, descending: false, window: nil)
        if let members { rows.removeAll { !members.contains($0.uri) } } else if inCatalog { rows.removeAll { songID(type, $0.uri) == nil } }
        if name == Self.liked {
            rows.removeAll { songID(type, $0.uri) != nil }
            if base.isEmpty || inCatalog, Self.matches("1", comparison) {
                let liked = try await likedURIs()
                rows += liked.filter { members?.contains($0) ?? true }.map { ($0, "1") }
            }
        }
        return Self.window(Self.sorted(rows, by: sort, descending: descending), window)
    }

    public func stickerNames() async throws -> [String] {
        var names = try await local.stickerNames()
        if !names.contains(Self.liked), await hasLikes() {
            names.append(Self.liked)
            names.sort(by: Self.bytewise)
        }
        return names
    }

    public func stickerNamesTypes(type: String?) async throws -> [(name: String, type: String)] {
        var pairs = try await local.stickerNamesTypes(type: type)
        if type == nil || type == "song", !pairs.contains(where: { $0.name == Self.liked && $0.type == "song" }),
           await hasLikes() {
            pairs.append((Self.liked, "song"))
            pairs.sort { $0.name == $1.name ? Self.bytewise($0.type, $1.type) : Self.bytewise($0.name, $1.name) }
        }
        return pairs
    }

    /// Whether `liked` names any sticker; a NetEase failure only leaves it out of the name lists.
    private func hasLikes() async -> Bool {
        (try? await !likedURIs().isEmpty) ?? false
    }

    // MARK: Values

    /// The values `liked` and `disliked` take: 1 or 0, and the words clients use for a flag.
    static func flag(_ name: String, _ value: String) throws -> Bool {
        switch value.lowercased() {
        case "1", "true", "yes": return true
        case "0", "false", "no": return false
        default:
            throw PortError.invalid("the sticker \(name) of a NetEase song is 1 or 0 (or true/false, yes/no), not \"\(value)\"")
        }
    }

    /// A flag's value as SQLite's arithmetic reads text: a whole number, or 0.
    static func integer(_ text: String) -> Int { Int(text.trimmingCharacters(in: .whitespaces)) ?? 0 }

    /// SQLite's order of text (`ORDER BY name`): bytewise.
    static func bytewise(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// `StickerDatabase.findStickers`'s comparisons for values not stored there (the `liked` flags, `1`): `=`, `<`,
    /// `>` as SQLite compares text (bytewise); `eq`, `lt`, `gt` as integers (a value that is no number is text, which
    /// SQLite orders after every integer); `contains`, `starts_with` as `LIKE` without wildcards (ASCII letters in
    /// any case).
    static func matches(_ stored: String, _ comparison: StickerComparison?) -> Bool {
        guard let comparison else { return true }
        let value = comparison.value
        let a = Array(stored.utf8)
        let b = Array(value.utf8)
        func folded(_ bytes: [UInt8]) -> [UInt8] { bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 } }
        switch comparison.op {
        case .equal: return a == b
        case .less: return a.lexicographicallyPrecedes(b)
        case .greater: return b.lexicographicallyPrecedes(a)
        case .integerEqual, .integerLess, .integerGreater:
            let number = integer(stored)
            guard let other = Int(value.trimmingCharacters(in: .whitespaces)) else {
                return comparison.op == .integerLess
            }
            switch comparison.op {
            case .integerEqual: return number == other
            case .integerLess: return number < other
            default: return number > other
            }
        case .startsWith: return folded(a).starts(with: folded(b))
        case .contains:
            let (x, y) = (folded(a), folded(b))
            guard y.count <= x.count else { return false }
            return y.isEmpty || (0...(x.count - y.count)).contains { x[$0..<($0 + y.count)].elementsEqual(y) }
        }
    }

    /// The orders of `sticker find … sort`: by URI (also without a sort), by value, or by the value's leading
    /// integer (`CAST(value AS INTEGER)`), ties by URI.
    static func sorted(_ rows: [(uri: String, value: String)], by sort: StickerSort?, descending: Bool)
        -> [(uri: String, value: String)]
    {
        func uriOrder(_ x: (uri: String, value: String), _ y: (uri: String, value: String)) -> Bool {
            bytewise(x.uri, y.uri)
        }
        switch sort {
        case .value?:
            return rows.sorted { x, y in
                let (a, b) = (Array(x.value.utf8), Array(y.value.utf8))
                if a == b { return uriOrder(x, y) }
                return descending ? b.lexicographicallyPrecedes(a) : a.lexicographicallyPrecedes(b)
            }
        case .valueInteger?:
            return rows.sorted { x, y in
                let (a, b) = (leadingInteger(x.value), leadingInteger(y.value))
                if a == b { return uriOrder(x, y) }
                return descending ? a > b : a < b
            }
        case .uri? where descending:
            return rows.sorted { uriOrder($1, $0) }
        default:
            return rows.sorted(by: uriOrder)
        }
    }

    /// SQLite's `CAST(text AS INTEGER)`: the leading (signed) digits after spaces, 0 when there are none.
    static func leadingInteger(_ text: String) -> Int64 {
        var digits = Substring(text.drop { $0 == " " })
        var sign: Int64 = 1
        if let first = digits.first, first == "-" || first == "+" {
            if first == "-" { sign = -1 }
            digits = digits.dropFirst()
        }
        var value: Int64 = 0
        for character in digits {
            guard let digit = character.wholeNumberValue, character.isASCII else { break }
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, carry) = shifted.addingReportingOverflow(Int64(digit))
            guard !overflow, !carry else { return sign > 0 ? .max : .min }
            value = next
        }
        return sign * value
    }

    static func window(_ rows: [(uri: String, value: String)], _ window: RangeArgument?) -> [(uri: String, value: String)] {
        guard let window else { return rows }
        let start = min(window.start, rows.count)
        let end = min(window.end ?? rows.count, rows.count)
        return start < end ? Array(rows[start..<end]) : []
    }
}
