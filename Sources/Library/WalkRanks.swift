import GRDB
import GRDBSQLite
import MPDProtocol

/// MPD's walk order (`WalkOrder`), stored: `directory.walk_rank` is a directory's preorder rank in the sorted tree
/// and `song.walk_rank` a song's rank among the songs of its directory (`song_cmp`). A listing, `add` of a folder or
/// a `find` then orders by two integers instead of comparing ICU collation keys of albums and file names on every
/// call (on 10,000 songs that sort was a fifth of `add`'s time; a windowed search over 91,000 songs took a second).
///
/// A rank is NULL until it is known: writers never compute one (ranking 100,000 songs takes about a second, which
/// `update` would pay). A row that an update inserts or changes gets NULL (`ScanWriter`), and so do the directories
/// whose place changes when a save sorts them (`unsorted`). `LibraryIndexer` then ranks in the background after an
/// update and when the database opens (`rankSome`, a chunk per transaction):
/// - every directory again when one of them has no rank (a directory's rank depends on all of the tree above it);
/// - the songs of each directory that holds a song without a rank, all of them (their order among each other).
///
/// Removing a row keeps the order of the others, so deletions need nothing. Readers use the ranks of a set of
/// siblings only when every one of them has its rank, and fall back to comparing collation keys otherwise (while an
/// update runs), so an answer never depends on whether the ranks are there.
enum WalkRanks {
    /// The columns and the indexes of what is left to rank; the root's rank is 0 from the start (a new database has
    /// nothing to rank, so opening it commits nothing).
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE directory ADD COLUMN walk_rank INTEGER;
            ALTER TABLE song ADD COLUMN walk_rank INTEGER;
            CREATE INDEX directory_unranked ON directory(id) WHERE walk_rank IS NULL;
            CREATE INDEX song_unranked ON song(directory_id) WHERE walk_rank IS NULL AND directory_id IS NOT NULL;
            UPDATE directory SET walk_rank = 0 WHERE path = '';
            """)
    }

    /// The index of songs without a rank, which `complete` and `rankSome` read. An update in bulk mode drops it while
    /// it writes (`LibraryDatabase.dropForBulk`).
    static let unrankedSongsIndex = "song_unranked"

    static func createUnrankedSongsIndex(_ db: Database) throws {
        try db.execute(sql: """
            CREATE INDEX IF NOT EXISTS \(unrankedSongsIndex) ON song(directory_id)
                WHERE walk_rank IS NULL AND directory_id IS NOT NULL
            """)
    }

    /// The indexes a scan in walk order reads (`LibraryQueries.firstInWalkOrder`): directories by rank, each one's
    /// songs by rank. `song_walk` replaces `song_directory`, its prefix.
    static func createWalkIndexes(_ db: Database) throws {
        try db.execute(sql: """
            CREATE INDEX directory_walk ON directory(walk_rank);
            CREATE INDEX song_walk ON song(directory_id, walk_rank);
            DROP INDEX song_directory;
            """)
    }

    /// Whether every directory and every song of the tree has its rank: one lookup in each partial index, asked by
    /// every `find` and `search`.
    static func complete(_ db: Database) throws -> Bool {
        let songs = try unrankedSongs(db)
        return try Bool.fetchOne(db.cachedStatement(sql: """
            SELECT NOT EXISTS (SELECT 1 FROM directory WHERE walk_rank IS NULL)
                AND NOT EXISTS (SELECT 1 FROM \(songs) WHERE walk_rank IS NULL AND directory_id IS NOT NULL)
            """)) ?? false
    }

    /// The songs' table for a query of its unranked rows: through their partial index, named (`INDEXED BY`). Left to
    /// itself the planner, which has no statistics, read the covering `song_walk` instead, every song's entry (0.2 ms
    /// of a 0.6 ms `find` at 10,000 songs; `rankSome` read it again from the start for every chunk). While an update
    /// in bulk mode has dropped the index (with the `(tag, value)` one: `LibraryDatabase.hasBulkIndexes` is false
    /// until the indexer builds both again), the table alone (a scan; ranks are missing then anyway).
    private static func unrankedSongs(_ db: Database) throws -> String {
        try LibraryDatabase.hasBulkIndexes(db) ? "song INDEXED BY \(unrankedSongsIndex)" : "song"
    }

    /// Directories whose songs one transaction ranks.
    static let chunk = 500

    /// Ranks every directory when one has no rank, and the songs of up to `chunk` directories that hold a song
    /// without one; false when there was nothing to rank.
    static func rankSome(_ db: Database) throws -> Bool {
        var ranked = false
        if try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM directory WHERE walk_rank IS NULL)") == true {
            try rankDirectories(db)
            ranked = true
        }
        let songs = try unrankedSongs(db)
        let directories = try Int64.fetchAll(db, sql: """
            SELECT DISTINCT directory_id FROM \(songs) WHERE walk_rank IS NULL AND directory_id IS NOT NULL
                LIMIT \(chunk)
            """)
        guard !directories.isEmpty else { return ranked }
        var entries: [Int64: [WalkOrder.Entry]] = [:]
        var ids: [Int64] = []
        for chunk in LibraryQueries.chunks(directories) {
            try LibraryQueries.forEachRow(db, SQL(sql: """
                SELECT id, directory_id, uri FROM song WHERE directory_id IN (SELECT value FROM json_each(?))
                """, arguments: [chunk])) { row in
                let id = sqlite3_column_int64(row, 0)
                ids.append(id)
                entries[sqlite3_column_int64(row, 1), default: []].append(
                    WalkOrder.Entry(id: id, directory: nil, album: nil, disc: 0, track: 0,
                                    uri: RawColumn.text(row, 2) ?? ""))
            }
        }
        let tags = try LibraryQueries.songOrderTags(ids, db)
        let position = LibraryQueries.SongIndex(ids)
        let update = try FastStatement(db, "UPDATE song SET walk_rank = ? WHERE id = ?")
        for (_, var songs) in entries {
            for index in songs.indices {
                guard let values = position[songs[index].id].map({ tags[$0] }) else { continue }
                songs[index].album = values.album
                songs[index].disc = values.disc
                songs[index].track = values.track
            }
            for (rank, index) in WalkOrder.songOrder(songs).enumerated() {
                update.bind(1, Int64(rank))
                update.bind(2, songs[index].id)
                try update.run(db)
            }
        }
        return true
    }

    /// Ranks everything on the calling thread.
    static func rankAll(_ db: Database) throws {
        while try rankSome(db) {}
    }

    /// Every directory's preorder rank, written where it changed.
    private static func rankDirectories(_ db: Database) throws {
        var paths: [String: (id: Int64, rank: Int64?)] = [:]
        var unsorted: [String: Int64] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, path, unsorted, walk_rank FROM directory") {
            let path: String = row[1]
            paths[path] = (row[0], row[3])
            if let order: Int64 = row[2] { unsorted[path] = order }
        }
        let ranks = WalkOrder.directoryRanks(Set(paths.keys), unsorted: unsorted)
        let update = try db.cachedStatement(sql: "UPDATE directory SET walk_rank = ? WHERE id = ?")
        for (path, directory) in paths {
            guard let rank = ranks[path].map(Int64.init), rank != directory.rank else { continue }
            try update.execute(arguments: [rank, directory.id])
        }
    }
}
