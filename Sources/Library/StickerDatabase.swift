import GRDB
import MPDProtocol
import ServerPorts

/// MPD's sticker database (`src/sticker/Database.cxx`) in the library's SQLite file, in MPD's schema
/// (`sticker(type, uri, name, value)`, unique on `(type, uri, name)`).
public final class StickerDatabase: Sendable {
    let writer: any DatabaseWriter

    public init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    public convenience init(_ database: LibraryDatabase) {
        self.init(writer: database.writer)
    }

    public func stickerValue(type: String, uri: String, name: String) async throws -> String? {
        try await writer.read { db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM sticker WHERE type = ? AND uri = ? AND name = ?"),
                                arguments: [type, uri, name])
        }
    }

    public func setSticker(type: String, uri: String, name: String, value: String) async throws {
        try await writer.write { db in
            try db.execute(sql: """
                INSERT INTO sticker (type, uri, name, value) VALUES (?, ?, ?, ?)
                ON CONFLICT(type, uri, name) DO UPDATE SET value = excluded.value
                """, arguments: [type, uri, name, value])
        }
    }

    /// `StickerDatabase::IncValue`/`DecValue` (0.24), in MPD's SQL: an absent sticker is inserted as `value` (by
    /// `dec` too), a present one is updated to `value ± value` with SQLite's arithmetic on text (a leading number,
    /// otherwise 0).
    public func adjustSticker(type: String, uri: String, name: String, by value: String, subtracting: Bool) async throws {
        try await writer.write { db in
            try db.execute(sql: """
                INSERT INTO sticker (type, uri, name, value) VALUES (?, ?, ?, ?)
                ON CONFLICT(type, uri, name) DO UPDATE SET value = value \(subtracting ? "-" : "+") ?
                """, arguments: [type, uri, name, value, value])
        }
    }

    public func deleteSticker(type: String, uri: String, name: String?) async throws -> Bool {
        try await writer.write { db in
            if let name {
                try db.execute(sql: "DELETE FROM sticker WHERE type = ? AND uri = ? AND name = ?",
                               arguments: [type, uri, name])
            } else {
                try db.execute(sql: "DELETE FROM sticker WHERE type = ? AND uri = ?", arguments: [type, uri])
            }
            return db.changesCount > 0
        }
    }

    public func stickers(type: String, uri: String) async throws -> [(name: String, value: String)] {
        try await writer.read { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT name, value FROM sticker WHERE type = ? AND uri = ? ORDER BY name"),
                             arguments: [type, uri]).map { ($0[0], $0[1]) }
        }
    }

    /// `StickerDatabase::Find` (0.24): `=`, `<`, `>` compare the text, `eq`, `lt`, `gt` the value cast to an integer,
    /// `contains` and `starts_with` use `LIKE` (ASCII letters in any case, `%` and `_` as wildcards), as MPD's SQL
    /// does. Songs are matched at or below the directory `base`; other objects by `LIKE` on a prefix of their URI,
    /// as MPD does (`""`: everything). Without a sort they come in URI order.
    public func findStickers(type: String, base: String, name: String, comparison: StickerComparison?,
                             sort: StickerSort?, descending: Bool,
                             window: RangeArgument?) async throws -> [(uri: String, value: String)] {
        try await writer.read { db in
            var sql: SQL = "SELECT uri, value FROM sticker WHERE type = \(type) AND name = \(name)"
            if type != "song" {
                sql = sql + " AND uri LIKE (\(base) || '%')"
            } else if !base.isEmpty {
                let lower = base + "/"
                let upper = base + "0"
                sql = sql + " AND uri >= \(lower) AND uri < \(upper)"
            }
            if let comparison {
                let value = comparison.value
                switch comparison.op {
                case .equal: sql = sql + " AND value = \(value)"
                case .less: sql = sql + " AND value < \(value)"
                case .greater: sql = sql + " AND value > \(value)"
                case .integerEqual: sql = sql + " AND CAST(value AS INT) = \(value)"
                case .integerLess: sql = sql + " AND CAST(value AS INT) < \(value)"
                case .integerGreater: sql = sql + " AND CAST(value AS INT) > \(value)"
                case .contains: sql = sql + " AND value LIKE ('%' || \(value) || '%')"
                case .startsWith: sql = sql + " AND value LIKE (\(value) || '%')"
                }
            }
            let direction = descending ? "DESC" : "ASC"
            switch sort {
            case .value?: sql = sql + SQL(sql: " ORDER BY value \(direction), uri")
            case .valueInteger?: sql = sql + SQL(sql: " ORDER BY CAST(value AS INTEGER) \(direction), uri")
            case .uri?: sql = sql + SQL(sql: " ORDER BY uri \(direction)")
            case nil: sql = sql + " ORDER BY uri"
            }
            var rows = try Row.fetchAll(db, SQLRequest<Row>(literal: sql)).map { (uri: $0[0] as String, value: $0[1] as String) }
            if let window {
                let start = min(window.start, rows.count)
                let end = min(window.end ?? rows.count, rows.count)
                rows = start < end ? Array(rows[start..<end]) : []
            }
            return rows
        }
    }

    public func stickerNames() async throws -> [String] {
        try await writer.read { db in try String.fetchAll(db.cachedStatement(sql: "SELECT DISTINCT name FROM sticker ORDER BY name")) }
    }

    public func stickerNamesTypes(type: String?) async throws -> [(name: String, type: String)] {
        try await writer.read { db in
            if let type {
                return try Row.fetchAll(db.cachedStatement(sql: "SELECT DISTINCT name, type FROM sticker WHERE type = ? ORDER BY name"),
                                        arguments: [type]).map { ($0[0], $0[1]) }
            }
            return try Row.fetchAll(db.cachedStatement(sql: "SELECT DISTINCT name, type FROM sticker ORDER BY name, type"))
                .map { ($0[0], $0[1]) }
        }
    }
}
