import Dispatch
import Foundation
import GRDB
import GRDBSQLite
import Logging
import Synchronization

/// The update's single database writer: applies the scanner's batches in order, one transaction each, on its own
/// serial queue, so writing one batch overlaps reading the next. At most one batch waits, which bounds memory.
///
/// The hot inserts bind and step prepared statements through SQLite's C API: GRDB's `execute(arguments:)` boxes
/// every argument and checks it, which was a large part of the writer's time at eight rows per song.
///
/// Two more costs are moved out of the way while an update writes:
/// - SQLite's automatic checkpoint (every 1,000 WAL pages, each with two `fsync`s) ran after nearly every batch;
///   it is off until the update ends; the next commit (the update's own final one) checkpoints if the WAL has grown
///   past the usual limit, once.
/// - Inserting into the `(tag, value)` index costs a random B-tree insert per tag row, about four times what
///   building the index from sorted rows costs. Once an update has added more songs than the database held when
///   it started (the first scan of a library, a new music directory), or a `rescan` has found a quarter of them
///   changed, the index is dropped ("bulk mode") and the indexer builds it again after the update, first of its
///   work (`LibraryIndexer`; building it here kept `updating_db` up ~0.8 s longer at 100,000 songs, a fifth of the
///   update). The index of unranked songs goes with it, and the trigger that drops a folder's packed songs when one
///   is inserted (every packed folder goes instead; the trigger is back when the update ends): by callgrind, a
///   tenth of a song's insert each (`LibraryDatabase.dropForBulk`). Queries stay correct meanwhile, only slower; a
///   process killed in between gets them back when it opens the database (`LibraryDatabase.repairIndexes`).
final class ScanWriter: @unchecked Sendable {
    private let database: any DatabaseWriter
    private let logger: Logger
    private let queue = DispatchQueue(label: "nosignal.update.writer")
    private let slots = DispatchSemaphore(value: 1)

    // Only touched on `queue`.
    /// Directory path → row id: the snapshot's, then those this update created.
    private var directoryIDs: [String: Int64] = [:]
    private var failure: (any Error)?
    private var modified = false
    private var removedSongs: [String] = []
    /// Songs in the database before the first batch (nil until then), and songs this update added.
    private var songsAtStart: Int?
    private var songsAdded = 0
    /// Songs that were in the database and this update wrote again because they changed.
    private var songsRewritten = 0
    private var bulk = false
    /// A `rescan` of the whole library reads every song again: bulk mode once a quarter of them has changed.
    private let rewritesEverything: Bool
    /// Set when a batch failed, so the walk stops instead of reading the rest of the library for nothing.
    private let failed = Atomic<Bool>(false)

    init(database: any DatabaseWriter, logger: Logger, rewritesEverything: Bool = false) {
        self.database = database
        self.logger = logger
        self.rewritesEverything = rewritesEverything
    }

    func seed(directoryIDs ids: [String: Int64]) {
        queue.sync { directoryIDs.merge(ids) { _, new in new } }
    }

    /// Queues a batch; waits while another batch is queued. Throws once a batch has failed (`finish` tells why).
    func submit(_ batch: PreparedBatch) throws {
        slots.wait()
        guard !failed.load(ordering: .relaxed) else {
            slots.signal()
            throw CancellationError()
        }
        queue.async { [self] in
            defer { slots.signal() }
            guard failure == nil else { return }
            do {
                try write(batch)
            } catch {
                failure = error
                failed.store(true, ordering: .relaxed)
            }
        }
    }

    /// Waits for the queued batches and turns automatic checkpoints back on (the indexer builds what bulk mode
    /// dropped); whether the batches changed the database and the songs they removed.
    func finish() throws -> (modified: Bool, removedSongs: [String]) {
        try queue.sync {
            if songsAtStart != nil {
                songsAtStart = nil
                let wasBulk = bulk
                bulk = false
                do {
                    try database.writeWithoutTransaction { db in
                        if wasBulk { try FolderSongs.createInsertTrigger(db) }
                        try db.execute(sql: "PRAGMA wal_autocheckpoint = \(LibraryDatabase.walAutocheckpoint)")
                    }
                } catch {
                    if failure == nil { failure = error }
                }
            }
            if let failure { throw failure }
            return (modified, removedSongs)
        }
    }

    private func write(_ batch: PreparedBatch) throws {
        if songsAtStart == nil {
            songsAtStart = try database.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
                return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM song") ?? 0
            }
        }
        var newSongs = 0
        for case .song(let index) in batch.operations where batch.files[index].existingID == nil {
            if case .song = batch.songs[index] { newSongs += 1 }
        }
        let enterBulk = !bulk && (songsAdded + newSongs > songsAtStart!
            || (rewritesEverything && songsRewritten > songsAtStart! / 4))
        // Foreign keys cost a lookup per inserted row (every tag row checks its song) but are only needed for the
        // cascades of deletions; the rows inserted here refer to rows that exist by construction.
        let deletes = batch.operations.contains { operation in
            switch operation {
            case .deleteSong, .deleteDirectory: return true
            case .song(let index):
                if case .unreadable = batch.songs[index] { return batch.files[index].removeIfUnreadable }
                return false
            default: return false
            }
        }
        let now = Int64(Date().timeIntervalSince1970)
        var changed = false
        var rewritten = 0
        var removed: [String] = []
        var created: [String: Int64] = [:]
        try database.writeWithoutTransaction { db in
            if !deletes { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
            defer { if !deletes { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
            try db.inTransaction {
                try write(batch, db, enterBulk: enterBulk, now: now, changed: &changed, rewritten: &rewritten,
                          removed: &removed, created: &created)
                return .commit
            }
        }
        if enterBulk { bulk = true }
        songsAdded += newSongs
        songsRewritten += rewritten
        directoryIDs.merge(created) { _, new in new }
        if changed { modified = true }
        removedSongs.append(contentsOf: removed)
    }

    private func write(_ batch: PreparedBatch, _ db: Database, enterBulk: Bool, now: Int64, changed: inout Bool,
                       rewritten: inout Int, removed: inout [String], created: inout [String: Int64]) throws {
        if enterBulk { try LibraryDatabase.dropForBulk(db) }
        let insertDirectory = try FastStatement(db, """
            INSERT INTO directory (path, parent_id, last_modified, unsorted) VALUES (?, ?, ?, ?)
            """)
        // New songs are plain inserts; a URI the snapshot did not know but the table has (not expected) takes
        // the upsert, which keeps the row (and its `added`) and replaces its tags.
        let insertSong = try FastStatement(db, """
            INSERT INTO song (uri, directory_id, source, duration, last_modified, added, audio_format, size, tags,
                has_playlist)
            VALUES (?, ?, 'local', ?, ?, ?, ?, ?, ?, ?)
            """)
        let upsertSong = try FastStatement(db, """
            INSERT INTO song (uri, directory_id, source, duration, last_modified, added, audio_format, size, tags,
                has_playlist)
            VALUES (?, ?, 'local', ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(uri) DO UPDATE SET directory_id = excluded.directory_id, duration = excluded.duration,
                last_modified = excluded.last_modified, audio_format = excluded.audio_format, size = excluded.size,
                tags = excluded.tags, has_playlist = excluded.has_playlist, walk_rank = NULL
            RETURNING id
            """)
        let updateSong = try FastStatement(db, """
            UPDATE song SET directory_id = ?, duration = ?, last_modified = ?, audio_format = ?, size = ?, tags = ?,
                has_playlist = ?, walk_rank = NULL
            WHERE id = ?
            """)
        // A song read again unchanged (`rescan`, a file touched but not edited) keeps its tag rows, its rank and its
        // search entry: what it holds is compared first (`IS`: NULL-safe), so that only what differs is written.
        let compareSong = try FastStatement(db, """
            SELECT tags IS ?1 AND directory_id IS ?2,
                duration IS ?3 AND last_modified IS ?4 AND audio_format IS ?5 AND size IS ?6 AND has_playlist IS ?8
            FROM song WHERE id = ?7
            """)
        let updateFile = try FastStatement(db, """
            UPDATE song SET duration = ?, last_modified = ?, audio_format = ?, size = ?, has_playlist = ? WHERE id = ?
            """)
        let deleteTags = try FastStatement(db, "DELETE FROM song_tag WHERE song_id = ?")
        var tagInserts = TagInserts()
        let noteForSearch = try FastStatement(db, SearchIndex.noteSQL)
        // MPD keeps directories an update found after their sorted siblings until the database is saved.
        var unsorted: Int64?
        func directoryID(_ path: String) throws -> Int64? {
            if let id = created[path] ?? directoryIDs[path] { return id }
            let id = try Int64.fetchOne(db, sql: "SELECT id FROM directory WHERE path = ?", arguments: [path])
            if let id { created[path] = id }
            return id
        }
        for operation in batch.operations {
            switch operation {
            case .createDirectory(let path, let parent, let mtime):
                if unsorted == nil {
                    unsorted = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(unsorted), 0) FROM directory")
                }
                unsorted! += 1
                insertDirectory.bind(1, path)
                insertDirectory.bind(2, try directoryID(parent))
                insertDirectory.bind(3, mtime)
                insertDirectory.bind(4, unsorted)
                try insertDirectory.run(db)
                created[path] = db.lastInsertedRowID
            case .touchDirectory(let path, let mtime):
                try db.execute(sql: "UPDATE directory SET last_modified = ? WHERE path = ?", arguments: [mtime, path])
            case .song(let index):
                let file = batch.files[index]
                switch batch.songs[index] {
                case .unreadable(let reason):
                    logger.warning("skipping \(file.uri): \(reason)")
                    if file.removeIfUnreadable {
                        try db.execute(sql: "DELETE FROM song WHERE uri = ?", arguments: [file.uri])
                        removed.append(file.uri)
                        changed = true
                    }
                case .song(let duration, let audioFormat, let hasPlaylist, let tags):
                    let playlistFlag: Int64 = hasPlaylist ? 1 : 0
                    changed = true
                    let directory = try directoryID(file.directory)
                    let tagsColumn = SongTagsColumn.encode(tags.lazy.map { ($0.tag, $0.value) })
                    let id: Int64
                    var existed = file.existingID != nil
                    if let existing = file.existingID {
                        compareSong.bind(1, tagsColumn)
                        compareSong.bind(2, directory)
                        compareSong.bind(3, duration)
                        compareSong.bind(4, file.mtime)
                        compareSong.bind(5, audioFormat)
                        compareSong.bind(6, file.size)
                        compareSong.bind(7, existing)
                        compareSong.bind(8, playlistFlag)
                        let same = try compareSong.firstRow(db) { (sqlite3_column_int($0, 0) != 0,
                                                                   sqlite3_column_int($0, 1) != 0) }
                        if let same, same.0 {
                            if !same.1 {
                                updateFile.bind(1, duration)
                                updateFile.bind(2, file.mtime)
                                updateFile.bind(3, audioFormat)
                                updateFile.bind(4, file.size)
                                updateFile.bind(5, playlistFlag)
                                updateFile.bind(6, existing)
                                try updateFile.run(db)
                            }
                            continue
                        }
                        rewritten += 1
                        updateSong.bind(1, directory)
                        updateSong.bind(2, duration)
                        updateSong.bind(3, file.mtime)
                        updateSong.bind(4, audioFormat)
                        updateSong.bind(5, file.size)
                        updateSong.bind(6, tagsColumn)
                        updateSong.bind(7, playlistFlag)
                        updateSong.bind(8, existing)
                        try updateSong.run(db)
                        id = existing
                    } else {
                        func bind(_ statement: FastStatement) {
                            statement.bind(1, file.uri)
                            statement.bind(2, directory)
                            statement.bind(3, duration)
                            statement.bind(4, file.mtime)
                            statement.bind(5, now)
                            statement.bind(6, audioFormat)
                            statement.bind(7, file.size)
                            statement.bind(8, tagsColumn)
                            statement.bind(9, playlistFlag)
                        }
                        bind(insertSong)
                        if try insertSong.runUnlessConstraint(db) {
                            id = db.lastInsertedRowID
                        } else {
                            bind(upsertSong)
                            id = try upsertSong.runReturningInt64(db)
                            existed = true
                        }
                    }
                    if existed {
                        deleteTags.bind(1, id)
                        try deleteTags.run(db)
                    }
                    try tagInserts.insert(tags, song: id, db)
                    noteForSearch.bind(1, id)
                    try noteForSearch.run(db)
                }
            case .deleteSong(let uri):
                try db.execute(sql: "DELETE FROM song WHERE uri = ?", arguments: [uri])
            case .playlist(let path, let directory, let mtime):
                try db.execute(sql: """
                    INSERT INTO db_playlist (path, directory_id, last_modified) VALUES (?, ?, ?)
                    ON CONFLICT(path) DO UPDATE SET last_modified = excluded.last_modified
                    """, arguments: [path, try directoryID(directory), mtime])
            case .deletePlaylist(let path):
                try db.execute(sql: "DELETE FROM db_playlist WHERE path = ?", arguments: [path])
            case .deleteDirectory(let path):
                try db.execute(sql: "DELETE FROM directory WHERE path = ?", arguments: [path])
                created[path] = nil
                directoryIDs[path] = nil
            }
        }
    }
}

/// A song's tag rows inserted a few per statement (`INSERT … VALUES (…), (…)`), their values read in place from one
/// buffer: a statement's step and reset, and SQLite's copy of each bound value, cost more than a row's insert itself.
/// By callgrind, on a first scan of 5,000 songs (seven tag rows each), the writer spent 97,000 instructions a song
/// with a statement a row and copied values, 66,000 with this and what bulk mode leaves out.
private struct TagInserts {
    static let rowsPerStatement = 8
    private var statements: [FastStatement?] = Array(repeating: nil, count: rowsPerStatement + 1)
    /// The values of the song being inserted, kept between songs for its capacity.
    private var bytes: [UInt8] = []

    private mutating func statement(rows: Int, _ db: Database) throws -> FastStatement {
        if let statement = statements[rows] { return statement }
        let values = Array(repeating: "(?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
        let statement = try FastStatement(db, """
            INSERT INTO song_tag (song_id, tag, position, value, value_folded) VALUES \(values)
            """)
        statements[rows] = statement
        return statement
    }

    /// Inserts `tags` of `song`.
    mutating func insert(_ tags: [ScannedSong.TagRow], song: Int64, _ db: Database) throws {
        guard !tags.isEmpty else { return }
        // Every value and its folded form, one after another: the bound pointers stay valid while `bytes` is not
        // touched, which is until the last statement has run.
        bytes.removeAll(keepingCapacity: true)
        for tag in tags {
            bytes.append(contentsOf: tag.value.utf8)
            bytes.append(contentsOf: tag.folded.utf8)
        }
        // A second reference for the pointers (no copy: nothing writes to `bytes` meanwhile), so that `statement`,
        // which changes `self`, can be called while they are out.
        let values = bytes
        try values.withUnsafeBytes { buffer in
            var offset = 0
            var start = 0
            while start < tags.count {
                let rows = min(Self.rowsPerStatement, tags.count - start)
                let statement = try statement(rows: rows, db)
                for row in 0..<rows {
                    let tag = tags[start + row]
                    let first = Int32(row * 5)
                    statement.bind(first + 1, song)
                    statement.bind(first + 2, Int64(tag.tag))
                    statement.bind(first + 3, Int64(tag.position))
                    let value = tag.value.utf8.count, folded = tag.folded.utf8.count
                    statement.bindBorrowed(first + 4, UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + value]))
                    offset += value
                    statement.bindBorrowed(first + 5, UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + folded]))
                    offset += folded
                }
                try statement.run(db)
                start += rows
            }
        }
    }
}
