import Foundation
import GRDB
import MPDProtocol
import PlayerCore
import Synchronization

/// The SQLite music database (GRDB). The schema grows with the library; the migrator is the one place it changes.
public final class LibraryDatabase: Sendable {
    public let writer: any DatabaseWriter
    private let indexer: LibraryIndexer

    /// Counts the transactions committed to the database; what was read at one value is still true while it holds
    /// (`ListingCache`). Every write goes through `writer`, whose commits a transaction observer counts.
    public var generation: UInt64 { commits.generation }
    private let commits = CommitCounter()

    /// Counts commits without observing any change (so GRDB installs no per-row hook for it).
    final class CommitCounter: TransactionObserver, Sendable {
        private let count = Atomic<UInt64>(0)
        var generation: UInt64 { count.load(ordering: .acquiring) }
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { count.add(1, ordering: .releasing) }
        func databaseDidRollback(_ db: Database) {}
    }

    public enum OpenError: Error, CustomStringConvertible {
        case notADatabase(path: String, reason: String)
        public var description: String {
            switch self {
            case .notADatabase(let path, let reason):
                "cannot use \(path) as the database (\(reason)); it is not a NoSignal SQLite database "
                    + "(an MPD tag_cache cannot be reused): move it away or set db_file to another path"
            }
        }
    }

    /// Opens (creating it and its parent directories) the database file in WAL mode and migrates it. `afterIndexing`
    /// runs on the indexer's thread each time it has brought the derived tables up to date (`LibraryIndexer`).
    public init(path: String, afterIndexing: @escaping @Sendable () -> Void = {}) throws {
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty { try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) }
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        // Another connection's short write (the indexer of a database being closed, a tool) is waited for, not an
        // error: a reopen beside the indexer's last chunk failed with "database is locked" under CI load.
        configuration.busyMode = .timeout(10)
        // WAL with `synchronous = NORMAL`: commits do not wait for fsync (the database stays consistent; a power
        // cut may lose the last transactions, which the next update redoes). A scan commits once per directory.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            FilterFunctions.register(db)
            SearchIndex.register(db)
        }
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
            try Self.repairIndexes(pool)
            pool.add(transactionObserver: commits, extent: .databaseLifetime)
            writer = pool
            indexer = LibraryIndexer(writer: pool, whenDone: afterIndexing)
            indexer.request()
        } catch let error as GRDB.DatabaseError {
            throw OpenError.notADatabase(path: path, reason: error.message ?? "\(error.resultCode)")
        }
    }

    /// An in-memory database with the full schema, for tests.
    public init() throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            FilterFunctions.register(db)
            SearchIndex.register(db)
        }
        writer = try DatabaseQueue(configuration: configuration)
        try Self.migrator.migrate(writer)
        writer.add(transactionObserver: commits, extent: .databaseLifetime)
        indexer = LibraryIndexer(writer: writer)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-meta") { db in
            try db.create(table: "meta") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
        }
        migrator.registerMigration("v2-library") { db in
            try db.execute(sql: """
                CREATE TABLE directory (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE,
                    parent_id INTEGER REFERENCES directory(id) ON DELETE CASCADE, last_modified INTEGER);
                CREATE INDEX directory_parent ON directory(parent_id);
                INSERT INTO directory (path, parent_id, last_modified) VALUES ('', NULL, NULL);
                CREATE TABLE song (id INTEGER PRIMARY KEY, uri TEXT NOT NULL UNIQUE,
                    directory_id INTEGER REFERENCES directory(id) ON DELETE CASCADE,
                    source TEXT NOT NULL DEFAULT 'local', duration REAL, last_modified INTEGER, added INTEGER,
                    audio_format TEXT, size INTEGER);
                CREATE INDEX song_directory ON song(directory_id);
                CREATE TABLE song_tag (song_id INTEGER NOT NULL REFERENCES song(id) ON DELETE CASCADE,
                    tag INTEGER NOT NULL, position INTEGER NOT NULL, value TEXT NOT NULL, value_folded TEXT NOT NULL);
                CREATE INDEX song_tag_lookup ON song_tag(tag, value);
                CREATE INDEX song_tag_folded ON song_tag(tag, value_folded);
                CREATE INDEX song_tag_song ON song_tag(song_id, position);
                CREATE TABLE db_playlist (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE,
                    directory_id INTEGER REFERENCES directory(id) ON DELETE CASCADE, last_modified INTEGER);
                CREATE INDEX db_playlist_directory ON db_playlist(directory_id);
                CREATE TABLE sticker (type TEXT NOT NULL, uri TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL,
                    UNIQUE(type, uri, name));
                """)
        }
        // MPD sorts a directory's children only when it saves the database; directories that an update found
        // without changing anything stay at the end, in the order found, until then. `unsorted` keeps that order
        // (NULL once sorted).
        migrator.registerMigration("v3-directory-unsorted") { db in
            try db.execute(sql: "ALTER TABLE directory ADD COLUMN unsorted INTEGER")
        }
        LibraryQueries.registerMigrations(in: &migrator)
        // Tag rows clustered by song (`WITHOUT ROWID`, key `(song_id, position)`: a song's tags are stored together
        // and the key replaces the `(song_id, position)` index) with one secondary index, `(tag, value)`, whose
        // entries carry the key, so it covers "songs with tag T [= value]" and the `(tag, song_id)` index is no
        // longer needed. Every index on the eight rows a song has costs a random B-tree insert per row: with four, an
        // update of 100,000 songs spent most of its time there. `value_folded` stays in the rows: substring
        // searches scan them anyway; the exact folded match (rare: `==` inside `search`) reads them by key.
        migrator.registerMigration("v4-song-tag-clustered") { db in
            try db.execute(sql: """
                CREATE TABLE song_tag_clustered (song_id INTEGER NOT NULL REFERENCES song(id) ON DELETE CASCADE,
                    tag INTEGER NOT NULL, position INTEGER NOT NULL, value TEXT NOT NULL, value_folded TEXT NOT NULL,
                    PRIMARY KEY (song_id, position)) WITHOUT ROWID;
                INSERT OR REPLACE INTO song_tag_clustered (song_id, tag, position, value, value_folded)
                    SELECT song_id, tag, position, value, value_folded FROM song_tag ORDER BY song_id, position;
                DROP TABLE song_tag;
                ALTER TABLE song_tag_clustered RENAME TO song_tag;
                """)
            try createTagIndex(db)
        }
        // Collections of a remote source (NetEase) shown as a virtual tree. Their songs are ordinary `song` rows
        // (`source` names the source, no directory) so every query sees them; the tree lives apart from `directory`,
        // which an update prunes and walks as the music directory. An entry is a song's place in a directory (the same
        // song may be listed in several, or twice in one), so it is kept by position. `song_remote` finds a source's
        // songs and holds no row for a local one; SQLite uses it only for queries that also say `source <> 'local'`.
        migrator.registerMigration("v5-remote-collections") { db in
            try db.execute(sql: """
                CREATE TABLE remote_directory (path TEXT PRIMARY KEY, source TEXT NOT NULL, parent TEXT NOT NULL,
                    position INTEGER NOT NULL, reference TEXT, last_modified INTEGER);
                CREATE INDEX remote_directory_parent ON remote_directory(parent, position);
                CREATE TABLE remote_entry (directory TEXT NOT NULL REFERENCES remote_directory(path) ON DELETE CASCADE,
                    position INTEGER NOT NULL, song_id INTEGER NOT NULL REFERENCES song(id) ON DELETE CASCADE,
                    PRIMARY KEY (directory, position)) WITHOUT ROWID;
                CREATE INDEX remote_entry_song ON remote_entry(song_id);
                CREATE INDEX song_remote ON song(source) WHERE source <> 'local';
                """)
        }
        // MPD 0.24 compares case-insensitive filters in a canonical form (`CaseFolding`: NFKC case folding, ASCII
        // punctuation) where 0.23 only folded case: the stored folded values are computed again. ASCII values do not
        // change, so only the others are read back.
        migrator.registerMigration("v6-canonical-folding") { db in try refold(db) }
        // MPD gives up on a step of its canonical form when the result would pass twice the text's length (`Ⅻ` stays
        // `Ⅻ`); so does `CaseFolding` now: the values it folds differently are computed again.
        migrator.registerMigration("v7-canonical-folding-mpd-buffers") { db in try refold(db) }
        // The search index (`SearchIndex`), filled from the tag rows.
        migrator.registerMigration("v8-search-index") { db in
            try SearchIndex.create(db)
        }
        // MPD's walk order stored as ranks (`WalkRanks`), computed by the indexer.
        migrator.registerMigration("v9-walk-ranks") { db in
            try WalkRanks.create(db)
        }
        // Readers take stored values as printable (`Song.Tag(name:printable:)`); values stored before tags were kept
        // so (a control character became a space from 42b5a99 on) are made so here.
        migrator.registerMigration("v10-printable-values") { db in
            let rows = try Row.fetchAll(db, sql: "SELECT song_id, position, value FROM song_tag WHERE value GLOB ?",
                                        arguments: ["*[\u{01}-\u{1F}]*"])
            for row in rows {
                let value = Song.Tag.printable(row["value"])
                try db.execute(sql: "UPDATE song_tag SET value = ?, value_folded = ? WHERE song_id = ? AND position = ?",
                               arguments: [value, CaseFolding.fold(value), row["song_id"] as Int64, row["position"] as Int])
                try db.execute(sql: SearchIndex.noteSQL, arguments: [row["song_id"] as Int64])
            }
        }
        // A scan in walk order that stops at a window's end (`LibraryQueries.firstInWalkOrder`).
        migrator.registerMigration("v11-walk-indexes") { db in
            try WalkRanks.createWalkIndexes(db)
        }
        // Each song's tags in one column (`SongTagsColumn`), what listings and `add` read.
        migrator.registerMigration("v12-song-tags-column") { db in
            try db.execute(sql: "ALTER TABLE song ADD COLUMN tags BLOB")
            try SongTagsColumn.rebuild(db)
        }
        // How many songs have each tag (`TagPresence`), kept by the indexer. Counted here once, so that a new
        // database starts with its counts and the indexer has nothing to write when it is first asked.
        migrator.registerMigration("v13-tag-presence") { db in
            try TagPresence.create(db)
            try TagPresence.count(db)
        }
        // Each directory's songs packed in walk order (`FolderSongs`), made by the indexer.
        migrator.registerMigration("v14-folder-songs") { db in
            try FolderSongs.create(db)
        }
        // The whole library's album lists clients ask for most (`StoredLists`), made by the indexer.
        migrator.registerMigration("v15-stored-lists") { db in
            try StoredLists.create(db)
        }
        // Whether a song holds a playlist (an embedded cue sheet, `Tag::has_playlist`): listings print
        // `playlist: URI` after it. Songs scanned before are read again by the next update that finds them changed.
        migrator.registerMigration("v16-song-has-playlist") { db in
            try FolderSongs.addPlaylistFlag(db)
        }
        return migrator
    }

    /// Computes `value_folded` again for the values that are not ASCII (ASCII folds to lower case, which no
    /// change of the canonical form touches).
    private static func refold(_ db: Database) throws {
        let rows = try Row.fetchAll(db, sql: """
            SELECT song_id, position, value, value_folded FROM song_tag WHERE value GLOB '*[^\u{01}-\u{7F}]*'
            """)
        let update = try db.makeStatement(sql: "UPDATE song_tag SET value_folded = ? WHERE song_id = ? AND position = ?")
        for row in rows {
            let value: String = row["value"]
            let folded = CaseFolding.fold(value)
            if folded != row["value_folded"] as String {
                try update.execute(arguments: [folded, row["song_id"] as Int64, row["position"] as Int])
            }
        }
    }

    static let tagIndexName = "song_tag_lookup"

    /// The `(tag, value)` index of `song_tag` (see "v4-song-tag-clustered"); an update may drop it, and the indexer
    /// builds it again (`ScanWriter`'s bulk mode, `LibraryIndexer`).
    static func createTagIndex(_ db: Database) throws {
        try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(tagIndexName) ON song_tag(tag, value)")
    }

    /// Whether the indexes an update in bulk mode drops are there (`dropForBulk`; the indexer builds them again).
    static func hasBulkIndexes(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: """
            SELECT count(*) = 2 FROM sqlite_master WHERE type = 'index' AND name IN (?, ?)
            """), arguments: [tagIndexName, WalkRanks.unrankedSongsIndex]) ?? false
    }

    /// What an update in bulk mode leaves out while it writes (`ScanWriter`), each costing a random B-tree insert or
    /// a trigger program per song: the `(tag, value)` index, the index of unranked songs and the trigger that drops a
    /// directory's packed songs when a song is inserted (all packed songs go instead: the indexer packs them again).
    static func dropForBulk(_ db: Database) throws {
        try db.execute(sql: """
            DROP INDEX IF EXISTS \(tagIndexName);
            DROP INDEX IF EXISTS \(WalkRanks.unrankedSongsIndex);
            DROP TRIGGER IF EXISTS \(FolderSongs.insertTrigger);
            DELETE FROM \(FolderSongs.table);
            """)
    }

    /// The indexes `dropForBulk` dropped, built from the rows (a sort, not an insert per row): the indexer's first
    /// work after such an update, one transaction (~0.8 s at 100,000 songs).
    static func createBulkIndexes(_ db: Database) throws {
        try createTagIndex(db)
        try WalkRanks.createUnrankedSongsIndex(db)
    }

    /// Puts back what an update that did not finish (the process was killed) may have left out.
    static func repairIndexes(_ writer: any DatabaseWriter) throws {
        try writer.write { db in
            try createBulkIndexes(db)
            try FolderSongs.createInsertTrigger(db)
        }
    }

    /// SQLite's default, restored after an update (which turns automatic checkpoints off while it writes).
    static let walAutocheckpoint = 1000

    /// Starts bringing the walk ranks and the search index up to date in the background (`LibraryIndexer`).
    /// Queries are right meanwhile, only slower.
    public func updateIndexes() {
        indexer.request()
    }

    /// Brings the walk ranks and the search index up to date on the calling thread (tests, tools).
    public func catchUpIndexes() throws {
        try indexer.catchUp()
    }

    /// Holds the background indexing while an update job writes; `resumeIndexing` lets it go on (and asks it to).
    public func pauseIndexing() {
        indexer.pause()
    }

    public func resumeIndexing() {
        indexer.resume()
    }

    /// Stops the background indexing at the next chunk (at shutdown).
    public func stopIndexing() {
        indexer.stop()
    }

    /// Stops the background indexing and waits for the chunk under way (tests).
    public func stopIndexingAndWait() {
        indexer.stopAndWait()
    }

    /// Writes what is derived from a song's tag rows again (its tags column, its search index row) and drops the
    /// tag counts (`TagPresence`, counted again by the indexer): for tag rows written straight into the tables (the
    /// tests' fixtures) rather than by an update or a remote sync, which keep all of it as they write.
    public static func tagRowsWritten(_ db: Database, songID: Int64) throws {
        try SongTagsColumn.rebuild(db, songID: songID)
        try SearchIndex.reindex(db, id: songID)
        try TagPresence.invalidate(db)
    }

    public func schemaVersion() throws -> [String] {
        try writer.read { db in try Self.migrator.appliedMigrations(db) }
    }
}
