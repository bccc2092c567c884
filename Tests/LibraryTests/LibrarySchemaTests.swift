import FFmpegDecoder
import Foundation
import GRDB
@testable import Library
import Logging
import MPDProtocol
import PlayerCore
import Testing

/// Schema upgrades of existing database files, and the `(tag, value)` index an update may drop while it writes.
@Suite struct LibrarySchemaTests {
    static func temporaryPath() throws -> (directory: URL, path: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nosignal-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (directory, directory.appendingPathComponent("database.sqlite").path)
    }

    /// The database file at `path` migrated (up to `migration`, or all the way) without a `LibraryDatabase`, whose
    /// indexer (started by opening) would work on it on its own thread.
    static func migratedQueue(at path: String, upTo migration: String? = nil) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.prepareDatabase { db in SearchIndex.register(db) }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        if let migration {
            try LibraryDatabase.migrator.migrate(queue, upTo: migration)
        } else {
            try LibraryDatabase.migrator.migrate(queue)
        }
        return queue
    }

    static func hasTagIndex(_ writer: any DatabaseWriter) throws -> Bool {
        try writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?)",
                              arguments: [LibraryDatabase.tagIndexName]) ?? false
        }
    }

    @Test func aDatabaseFromBeforeTheClusteredTagTableKeepsItsTags() throws {
        let (directory, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            // The schema as it was before "v4-song-tag-clustered", with a song.
            let queue = try DatabaseQueue(path: path)
            try LibraryDatabase.migrator.migrate(queue, upTo: "queries-v1-tag-presence-index")
            try queue.write { db in
                try db.execute(sql: "INSERT INTO directory (path, parent_id) VALUES ('a', 1)")
                try db.execute(sql: "INSERT INTO song (uri, directory_id, duration) VALUES ('a/x.flac', 2, 1.5)")
                for (position, (tag, value)) in [(0, "B"), (0, "A"), (6, "Title"), (2, "Ålbum")].enumerated() {
                    try db.execute(sql: """
                        INSERT INTO song_tag (song_id, tag, position, value, value_folded) VALUES (1, ?, ?, ?, ?)
                        """, arguments: [tag, position, value, CaseFolding.fold(value)])
                }
            }
        }
        let database = try LibraryDatabase(path: path)
        #expect(try database.schemaVersion().contains("v4-song-tag-clustered"))
        let library = MusicLibrary(database: database, musicDirectory: directory.path, inspector: FFmpegInspector(),
                                   logger: Logger(label: "test"))
        let song = try #require(try library.song(uri: "a/x.flac"))
        #expect(song.tags.map(\.name) == ["Artist", "Artist", "Title", "Album"])
        #expect(song.tags.map(\.value) == ["B", "A", "Title", "Ålbum"])
        #expect(try Self.hasTagIndex(database.writer))
        let indexes = try database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'song_tag'")
        }
        #expect(indexes == [LibraryDatabase.tagIndexName])
        // Deleting the song still takes its tags along (the foreign key on the new table).
        try database.writer.write { db in try db.execute(sql: "DELETE FROM song") }
        #expect(try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM song_tag") } == 0)
    }

    /// A database whose folded values were made with MPD 0.23's case folding gets MPD 0.24's canonical form.
    @Test func aDatabaseFromBeforeTheCanonicalFoldingIsFoldedAgain() throws {
        let (directory, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let queue = try DatabaseQueue(path: path)
            try LibraryDatabase.migrator.migrate(queue, upTo: "v5-remote-collections")
            try queue.write { db in
                try db.execute(sql: "INSERT INTO directory (path, parent_id) VALUES ('a', 1)")
                try db.execute(sql: "INSERT INTO song (uri, directory_id, duration) VALUES ('a/x.flac', 2, 1.5)")
                for (position, (value, oldFold)) in [("ｶﾀｶﾅ", "ｶﾀｶﾅ"), ("ROCK", "rock")].enumerated() {
                    try db.execute(sql: """
                        INSERT INTO song_tag (song_id, tag, position, value, value_folded) VALUES (1, 6, ?, ?, ?)
                        """, arguments: [position, value, oldFold])
                }
            }
        }
        let database = try LibraryDatabase(path: path)
        let folded = try database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT value_folded FROM song_tag ORDER BY position")
        }
        #expect(folded == ["カタカナ", "rock"])
    }

    /// Values stored before tag values were kept printable lose their control characters (readers trust them).
    @Test func aDatabaseWithControlCharactersInValuesIsMadePrintable() throws {
        let (directory, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let queue = try LibrarySchemaTests.migratedQueue(at: path, upTo: "v9-walk-ranks")
            try queue.write { db in
                try db.execute(sql: "INSERT INTO directory (path, parent_id) VALUES ('a', 1)")
                try db.execute(sql: "INSERT INTO song (uri, directory_id, duration) VALUES ('a/x.flac', 2, 1.5)")
                for (position, value) in ["Tab\there", "Line\nBreak", "plain"].enumerated() {
                    try db.execute(sql: """
                        INSERT INTO song_tag (song_id, tag, position, value, value_folded) VALUES (1, 6, ?, ?, lower(?))
                        """, arguments: [position, value, value])
                }
            }
        }
        let database = try LibraryDatabase(path: path)
        let rows = try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT value, value_folded FROM song_tag ORDER BY position")
                .map { [$0[0] as String, $0[1] as String] }
        }
        #expect(rows == [["Tab here", "tab here"], ["Line Break", "line break"], ["plain", "plain"]])
        let song = try #require(try MusicLibrary(database: database, musicDirectory: directory.path,
                                                 inspector: FFmpegInspector(), logger: Logger(label: "test"))
            .song(uri: "a/x.flac"))
        #expect(song.tags.map(\.value) == ["Tab here", "Line Break", "plain"])
    }

    /// After an update in bulk mode the `(tag, value)` index is missing until the indexer builds it: answers are the
    /// same meanwhile (`list TAG` does not trust the tag counts without the index, whose walk would search it).
    @Test func answersAreRightUntilTheIndexerBuildsTheTagIndex() async throws {
        let fixture = try GeneratedLibrary()
        try fixture.library.database.catchUpIndexes()
        let reference = LibraryQueries(fixture.library.database)
        let (directory, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try LibraryDatabase(path: path)
        database.stopIndexingAndWait()
        let library = MusicLibrary(database: database, musicDirectory: fixture.music, inspector: FFmpegInspector(),
                                   logger: Logger(label: "test"))
        try library.runUpdate(uri: "", discard: false)
        #expect(try !Self.hasTagIndex(database.writer))
        let queries = LibraryQueries(database)
        let find = try FilterParser.parseQuery(arguments: ["artist", "Alpha"], command: .find, validateRegex: nil)
        let search = try FilterParser.parseQuery(arguments: ["(AlbumArtist contains 'a')"], command: .search,
                                                 validateRegex: nil)
        for query in [find, search] {
            #expect(try await queries.songs(matching: query).map(\.uri).sorted()
                    == reference.songs(matching: query).map(\.uri).sorted())
        }
        for tag in [TagName.artist, .genre, .date] {
            #expect(try await queries.list(ListQuery(tag: tag)) == reference.list(ListQuery(tag: tag)))
        }
        try database.catchUpIndexes()
        #expect(try Self.hasTagIndex(database.writer))
        for tag in [TagName.artist, .genre, .date] {
            #expect(try await queries.list(ListQuery(tag: tag)) == reference.list(ListQuery(tag: tag)))
        }
    }

    /// The first scan writes in bulk mode (no index while it writes); the indexer builds the index again after the
    /// update, and a scan that adds fewer songs than the database holds keeps it all along.
    @Test func updatesEndWithTheTagIndex() throws {
        let fixture = try GeneratedLibrary()
        let writer = fixture.library.database.writer
        try fixture.library.database.catchUpIndexes()
        #expect(try Self.hasTagIndex(writer))
        let autocheckpoint = try writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") }
        #expect(autocheckpoint == LibraryDatabase.walAutocheckpoint)
        try fixture.library.runUpdate(uri: "", discard: true)
        #expect(try Self.hasTagIndex(writer))
        let found = try writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM song_tag WHERE tag = 0 AND value = 'Alpha'")
        }
        #expect((found ?? 0) > 0)
    }
}

/// What an update in bulk mode leaves out while it writes besides the `(tag, value)` index: the index of unranked songs
/// and the trigger that drops a folder's packed songs when a song is inserted.
@Suite("Bulk mode (real ffmpeg, real SQLite)", .serialized)
struct BulkModeTests {
    static func exists(_ type: String, _ name: String, _ writer: any DatabaseWriter) throws -> Bool {
        try writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM sqlite_schema WHERE type = ? AND name = ?)",
                              arguments: [type, name]) ?? false
        }
    }

    /// A packed folder that gets a song in an update that enters bulk mode (it more than doubles the library) is
    /// read with that song at once; the trigger is back when the update ends, the indexes once the indexer ran.
    @Test func aPackedFolderGettingASongInBulkModeIsReadRight() throws {
        let fixture = try GeneratedLibrary()
        let database = fixture.library.database
        try database.catchUpIndexes()
        database.stopIndexingAndWait()
        let untagged = try #require(try database.writer.read { db in try MusicLibrary.directoryID(db, path: "Untagged") })
        #expect(try database.writer.read { db in try FolderSongs.songs(db, in: untagged) } != nil)
        let songsBefore = try fixture.library.stats().songs
        let source = fixture.music + "/Untagged/silence.wav"
        try FileManager.default.copyItem(atPath: source, toPath: fixture.music + "/Untagged/zz-new.wav")
        try FileManager.default.createDirectory(atPath: fixture.music + "/More", withIntermediateDirectories: false)
        for index in 0..<songsBefore {
            try FileManager.default.copyItem(atPath: source, toPath: fixture.music + "/More/\(index).wav")
        }
        #expect(try fixture.library.runUpdate(uri: "", discard: false))

        let writer = database.writer
        #expect(try !LibrarySchemaTests.hasTagIndex(writer))
        #expect(try !Self.exists("index", WalkRanks.unrankedSongsIndex, writer))
        #expect(try Self.exists("trigger", FolderSongs.insertTrigger, writer))
        let fresh = MusicLibrary(database: database, musicDirectory: fixture.music, inspector: FFmpegInspector(),
                                 logger: Logger(label: "test"))
        let rows = try writer.read { db in try MusicLibrary.Tree.rowSongs(db, in: untagged) }
        #expect(rows.contains { $0.uri == "Untagged/zz-new.wav" })
        #expect(try Array(fresh.songsForQueue(uri: "Untagged")) == rows)
        #expect(try fresh.songsForQueue(uri: "More").count == songsBefore)

        try database.catchUpIndexes()
        #expect(try LibrarySchemaTests.hasTagIndex(writer))
        #expect(try Self.exists("index", WalkRanks.unrankedSongsIndex, writer))
        #expect(try writer.read(WalkRanks.complete))
        #expect(try writer.read(FolderSongs.complete))
        #expect(try writer.read { db in try FolderSongs.songs(db, in: untagged) } == rows)
        // The trigger works again: a song inserted into the folder drops its blob.
        try writer.write { db in
            try db.execute(sql: "INSERT INTO song (uri, directory_id) VALUES ('Untagged/zzz.wav', ?)", arguments: [untagged])
        }
        #expect(try writer.read { db in try FolderSongs.songs(db, in: untagged) } == nil)
    }

    /// A process killed during an update in bulk mode gets the indexes and the trigger back when it opens the file.
    @Test func openingPutsBackWhatBulkModeLeftOut() throws {
        let (directory, path) = try LibrarySchemaTests.temporaryPath()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Made and damaged without a `LibraryDatabase`, whose indexer (started by opening) would put the indexes back
        // on its own thread, racing the checks below (it did once under CI load).
        do {
            let queue = try LibrarySchemaTests.migratedQueue(at: path)
            try queue.write(LibraryDatabase.dropForBulk)
            #expect(try !LibrarySchemaTests.hasTagIndex(queue))
            #expect(try !Self.exists("index", WalkRanks.unrankedSongsIndex, queue))
            #expect(try !Self.exists("trigger", FolderSongs.insertTrigger, queue))
        }
        let writer = try LibraryDatabase(path: path).writer
        #expect(try Self.exists("index", WalkRanks.unrankedSongsIndex, writer))
        #expect(try Self.exists("trigger", FolderSongs.insertTrigger, writer))
        #expect(try LibrarySchemaTests.hasTagIndex(writer))
    }
}

/// The plans SQLite makes for the search index's conditions: a song's own tag rows are read by its key. Through the
/// `(tag, value)` index, a correlated test reads every row of the tag for each song (a search of a 91,000-song
/// library with a fallback tag took 25 s that way).
@Suite struct SearchIndexPlanTests {
    @Test(arguments: ["(AlbumArtist contains 'rass')", "(ArtistSort contains 'tra')", "(Title contains 'abc')",
                      "(any contains 'xyz')", "(!(AlbumSort contains 'zoe'))", "(Album starts_with 'abc')"])
    func correlatedTestsUseTheSongsKey(filter: String) throws {
        let database = try LibraryDatabase()
        let query = try FilterParser.parseQuery(arguments: [filter], command: .search, validateRegex: nil)
        let translation = FilterSQL.translate(query.expression)
        let (plan, sql) = try database.writer.read { db in
            let plan = try Row.fetchAll(db, SQLRequest<Row>(literal: "EXPLAIN QUERY PLAN " + translation.withClause
                                                                + "SELECT s.id FROM song s WHERE " + translation.condition))
                .map { $0["detail"] as String }
            return (plan, try translation.condition.build(db).sql)
        }
        #expect(sql.contains("song_search"))
        let correlated = plan.filter { $0.contains("song_tag") && !$0.contains("PRIMARY KEY") }
        #expect(correlated.isEmpty, "\(plan)")
    }
}
