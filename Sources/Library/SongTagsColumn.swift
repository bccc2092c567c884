import Foundation
import GRDB
import GRDBSQLite
import MPDProtocol
import PlayerCore

/// A song's tags in one column, `song.tags`, in their stored order. A listing, `add` of a folder or a search
/// result reads one row per song instead of one row per tag (`add` of a 10,000-song folder read 70,000 tag rows);
/// `song_tag` keeps the rows for what looks values up: filters, `list`, the search index. Whoever writes a song's
/// tag rows writes this column in the same transaction (`ScanWriter`, `MusicLibrary.insertTags`, the v12 migration).
///
/// Each tag is its `TagName` number (one byte), the value's length in UTF-8 bytes (LEB128), then those bytes.
/// NULL holds no tags.
enum SongTagsColumn {
    /// The column's value for tags in their stored order (`tag` is a `TagName` raw value).
    static func encode(_ tags: some Sequence<(tag: Int, value: String)>) -> [UInt8]? {
        var bytes: [UInt8] = []
        for (tag, value) in tags {
            bytes.append(UInt8(truncatingIfNeeded: tag))
            var length = value.utf8.count
            while length >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: length) | 0x80)
                length >>= 7
            }
            bytes.append(UInt8(length))
            bytes.append(contentsOf: value.utf8)
        }
        return bytes.isEmpty ? nil : bytes
    }

    /// The tags of column `column` of the current row (values are stored printable, as `Song.Tag` keeps them).
    static func decode(_ row: OpaquePointer, _ column: Int32) -> [Song.Tag] {
        guard let base = sqlite3_column_blob(row, column) else { return [] }
        return decode(UnsafeRawBufferPointer(start: base, count: Int(sqlite3_column_bytes(row, column))))
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) -> [Song.Tag] {
        var tags: [Song.Tag] = []
        var index = 0
        while index < bytes.count {
            let tag = TagName(rawValue: Int(bytes[index]))
            index += 1
            var length = 0
            var shift = 0
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                length |= Int(byte & 0x7F) << shift
                shift += 7
                if byte < 0x80 || shift > 56 { break }
            }
            let end = min(bytes.count, index + length)
            if let tag {
                if tags.isEmpty { tags.reserveCapacity(8) }
                tags.append(Song.Tag(name: tag.mpdName, printable: String(
                    decoding: UnsafeRawBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)))
            }
            index = end
        }
        return tags
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
