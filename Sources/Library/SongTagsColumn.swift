import Foundation
import GRDB
import GRDBSQLite
import MPDProtocol
import PlayerCore

/// A song's tags in one column, `song.tags`, in their stored order and in `PackedTags`' form (names as MPD spells
/// them). A listing, `add` of a folder or a search result reads one row per song instead of one row per tag (`add`
/// of a 10,000-song folder read 70,000 tag rows) and copies the bytes into the `Song` as they are; `song_tag`
/// keeps the rows for what looks values up: filters, `list`, the search index. Whoever writes a song's tag rows
/// writes this column in the same transaction (`ScanWriter`, `MusicLibrary.insertTags`, the v12 migration).
/// NULL holds no tags.
enum SongTagsColumn {
    /// The column's value for tags in their stored order (`tag` is a `TagName` raw value).
    static func encode(_ tags: some Sequence<(tag: Int, value: String)>) -> [UInt8]? {
        var bytes: [UInt8] = []
        for (tag, value) in tags {
            guard let name = TagName(rawValue: tag) else { continue }
            PackedTags.append(name.mpdName.utf8, value.utf8, to: &bytes)
        }
        return bytes.isEmpty ? nil : bytes
    }

    /// The tags of column `column` of the current row.
    static func decode(_ row: OpaquePointer, _ column: Int32) -> PackedTags {
        guard let base = sqlite3_column_blob(row, column) else { return PackedTags() }
        let count = Int(sqlite3_column_bytes(row, column))
        return PackedTags(bytes: [UInt8](UnsafeRawBufferPointer(start: base, count: count)))
    }

    /// Writes the column from the tag rows: of every song that has some (the v12 migration), or of one song.
    static func rebuild(_ db: Database, songID: Int64? = nil) throws {
        let update = try db.makeStatement(sql: "UPDATE song SET tags = ? WHERE id = ?")
        var current = songID
        var tags: [(tag: Int, value: String)] = []
        func flush() throws {
            guard let id = current else { return }
            try update.execute(arguments: [encode(tags).map { Data($0) }, id])
            tags.removeAll(keepingCapacity: true)
        }
        let rows = try Row.fetchCursor(db, sql: """
            SELECT song_id, tag, value FROM song_tag \(songID == nil ? "" : "WHERE song_id = ?")
            ORDER BY song_id, position
            """, arguments: songID.map { [$0] } ?? [])
        while let row = try rows.next() {
            let id: Int64 = row[0]
            if id != current {
                try flush()
                current = id
            }
            tags.append((row[1], row[2]))
        }
        try flush()
    }
}
