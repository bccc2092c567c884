import GRDB
import GRDBSQLite
import MPDProtocol

/// How many songs have each tag, kept in `tag_presence` for `list TAG` of the whole library. The values come from
/// the `(tag, value)` index a few rows per value (`LibraryQueries.distinctValues`); whether `""` belongs to them
/// (some song lacks the tag) comes from here. Before, one walk of every row of the tag told both: 100,000 rows for
/// `list artist` on 100k songs (25–40 ms the first time; MPD walks its songs in 20–30).
///
/// The counts are good while no song changed since they were made: writers note the songs whose tags they write
/// (`search_pending`, for the search index), a deleted song empties the table (trigger), and `LibraryIndexer`
/// empties it when it takes pending songs and counts again once none is left. A query trusts the counts only
/// when, in its own read transaction, nothing is pending, the row for all songs (`allSongs`) matches the songs
/// there are and the `(tag, value)` index is there.
enum TagPresence {
    static let table = "tag_presence"
    /// The row whose `songs` is the number of songs counted.
    static let allSongs = -1

    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE \(table) (tag INTEGER PRIMARY KEY, songs INTEGER NOT NULL);
            CREATE TRIGGER song_tag_presence_stale AFTER DELETE ON song BEGIN DELETE FROM \(table); END;
            """)
    }

    /// Whether the counts are there (the indexer counts when they are not and nothing is pending).
    static func isCounted(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM \(table) WHERE tag = \(allSongs))"))
            ?? false
    }

    /// Drops the counts, and the lists made with them (`StoredLists`): songs are about to change them.
    static func invalidate(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM \(table)")
        try StoredLists.invalidate(db)
    }

    /// Counts every tag's songs: one pass over the tag rows in key order, where a song's rows lie together.
    static func count(_ db: Database) throws {
        let tags = TagName.allCases.count
        var songsWithTag = [Int](repeating: 0, count: tags)
        var lastSong = [Int64](repeating: -1, count: tags)
        try LibraryQueries.forEachRow(db, "SELECT song_id, tag FROM song_tag ORDER BY song_id, position") { row in
            let song = sqlite3_column_int64(row, 0)
            let tag = Int(sqlite3_column_int64(row, 1))
            guard tag >= 0, tag < tags, lastSong[tag] != song else { return }
            lastSong[tag] = song
            songsWithTag[tag] += 1
        }
        try db.execute(sql: "DELETE FROM \(table)")
        let insert = try db.makeStatement(sql: "INSERT INTO \(table) (tag, songs) VALUES (?, ?)")
        for (tag, songs) in songsWithTag.enumerated() where songs > 0 { try insert.execute(arguments: [tag, songs]) }
        try db.execute(sql: "INSERT INTO \(table) (tag, songs) SELECT \(allSongs), count(*) FROM song")
    }

    /// The number of songs and of those with `tag`, when the counts are good.
    static func counts(_ db: Database, tag: TagName) throws -> (songs: Int, withTag: Int)? {
        var result: (songs: Int, withTag: Int)?
        try LibraryQueries.forEachRow(db, SQL(sql: """
            SELECT \(currentCondition), (SELECT songs FROM \(table) WHERE tag = \(allSongs)),
                coalesce((SELECT songs FROM \(table) WHERE tag = ?), 0),
                EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = '\(LibraryDatabase.tagIndexName)')
            """, arguments: [tag.rawValue])) { row in
            // The walk that uses the counts searches the `(tag, value)` index; without it (after an update in bulk
            // mode, until the indexer builds it) each search would read every tag row.
            guard sqlite3_column_int(row, 0) == 1, sqlite3_column_int(row, 3) == 1 else { return }
            result = (Int(sqlite3_column_int64(row, 1)), Int(sqlite3_column_int64(row, 2)))
        }
        return result
    }

    /// SQL that is true when the counts are made and no song changed since (a deleted song empties them, a written
    /// one is pending): what a query checks, in its own read transaction, before it trusts them or what was made
    /// with them (`StoredLists`).
    static let currentCondition = """
        (SELECT songs FROM \(table) WHERE tag = \(allSongs)) = (SELECT count(*) FROM song) \
        AND NOT EXISTS (SELECT 1 FROM \(SearchIndex.pending))
        """
}
