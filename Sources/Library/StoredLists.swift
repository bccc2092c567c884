import Foundation
import GRDB
import GRDBSQLite
import MPDProtocol
import PlayerCore

/// The answers of the whole-library `list … group …` queries clients send when they open their album views, kept
/// in `stored_list` by the indexer, so that the first such `list` after an update reads one row instead of every
/// song's tags (`LibraryQueries.groupedValues`: ~0.6 s at 1,000,000 songs, where MPD walks its tree in 0.5–0.8 s).
///
/// They are made when the tag counts are (`TagPresence`: nothing pending, every song counted), from a read of the
/// library, and stored only if the library is still as it was read. `TagPresence.invalidate` drops them with the
/// counts, and a deleted song drops them (trigger); a query trusts them only when, in its own read transaction,
/// nothing is pending and the counts' row for all songs matches the songs there are, as `TagPresence.counts` does.
enum StoredLists {
    static let table = "stored_list"

    /// The levels (outermost first, as `ListQuery` keeps them with the listed tag last) of the lists kept:
    /// `list album group albumartist` (MPDroid and ncmpcpp's album views) and M.A.L.P.'s album view, `list album
    /// group albumartist group albumartistsort group musicbrainz_albumid group date`. Each costs one pass over the
    /// library's tags after every change.
    static let kept: [[TagName]] = [
        [.albumArtist, .album],
        [.date, .musicBrainzAlbumID, .albumArtistSort, .albumArtist, .album],
    ]

    private static let keptKeys = Set(kept.map(key))

    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE \(table) (levels TEXT PRIMARY KEY, answer BLOB NOT NULL);
            CREATE TRIGGER song_stored_list_stale AFTER DELETE ON song BEGIN DELETE FROM \(table); END;
            """)
    }

    static func invalidate(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM \(table)")
    }

    /// Whether every kept list is there.
    static func areMade(_ db: Database) throws -> Bool {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM \(table)")) == kept.count
    }

    /// Computes the kept lists from a read of the library and stores them if nothing changed since; false when
    /// something did (the indexer has pending songs to take first) or the counts are not made.
    static func make(_ writer: any DatabaseWriter) throws -> Bool {
        let answers = try writer.read { db -> [(String, [UInt8])]? in
            guard try isCurrent(db) else { return nil }
            return try kept.map { levels in
                (key(levels), pack(try LibraryQueries.scannedGroupedValues(levels, expression: .and([]), db)))
            }
        }
        guard let answers else { return false }
        return try writer.write { db in
            guard try isCurrent(db) else { return false }
            try invalidate(db)
            let insert = try db.makeStatement(sql: "INSERT INTO \(table) (levels, answer) VALUES (?, ?)")
            for (levels, answer) in answers { try insert.execute(arguments: [levels, Data(answer)]) }
            return true
        }
    }

    /// The stored answer of the whole-library list with these levels, when it is kept and current.
    static func rows(_ levels: [TagName], _ db: Database) throws -> [[String]]? {
        let wanted = key(levels)
        guard keptKeys.contains(wanted) else { return nil }
        var rows: [[String]]?
        try LibraryQueries.forEachRow(db, SQL(sql: """
            SELECT answer FROM \(table) WHERE levels = ? AND (\(TagPresence.currentCondition))
            """, arguments: [wanted])) { row in
            let bytes = sqlite3_column_blob(row, 0)
            rows = unpack(UnsafeBufferPointer(start: bytes?.assumingMemoryBound(to: UInt8.self),
                                              count: Int(sqlite3_column_bytes(row, 0))), levels: levels.count)
        }
        return rows
    }

    private static func isCurrent(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT \(TagPresence.currentCondition)")) ?? false
    }

    private static func key(_ levels: [TagName]) -> String {
        levels.map { String($0.rawValue) }.joined(separator: ",")
    }

    /// Each row's values in order, each as its length (LEB128) and bytes (`PackedTags`' fields).
    static func pack(_ rows: [[String]]) -> [UInt8] {
        var bytes: [UInt8] = []
        for row in rows {
            for value in row {
                PackedTags.appendLength(value.utf8.count, to: &bytes)
                bytes.append(contentsOf: value.utf8)
            }
        }
        return bytes
    }

    /// Rows of `levels` values out of `pack`'s bytes; nil where they are damaged.
    static func unpack(_ bytes: UnsafeBufferPointer<UInt8>, levels: Int) -> [[String]]? {
        var rows: [[String]] = []
        var position = 0
        // Outer levels repeat row after row: one string each, shared (compared by their bytes in place).
        var last = [String](repeating: "", count: levels)
        var lastField = [UnsafeBufferPointer<UInt8>](repeating: UnsafeBufferPointer(start: nil, count: 0),
                                                     count: levels)
        while position < bytes.count {
            var row: [String] = []
            row.reserveCapacity(levels)
            for level in 0..<levels {
                guard let field = PackedTags.field(bytes, &position) else { return nil }
                let previous = lastField[level]
                if previous.baseAddress == nil || previous.count != field.count
                    || (field.count > 0 && memcmp(previous.baseAddress!, field.baseAddress!, field.count) != 0) {
                    last[level] = String(decoding: field, as: UTF8.self)
                    lastField[level] = field
                }
                row.append(last[level])
            }
            rows.append(row)
        }
        return rows
    }
}
