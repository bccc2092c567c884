import GRDB
import GRDBSQLite
import PlayerCore

/// Each directory's songs in walk order, packed into one blob (`folder_songs`): what `add` of a folder and a
/// recursive listing read. Reading the rows instead cost SQLite a step through seven columns per song, half of an
/// `add` of a folder nothing had read (MPD has its songs in memory: at 10,000 songs it took half our time); one blob
/// per directory is one step, and the songs come out of it in order.
///
/// A directory's blob is good while none of its songs changed: triggers delete it when a song of the directory is
/// inserted, deleted or has a column the blob holds (or its rank) changed, and a directory's removal takes its blob
/// along (foreign key). Writers need to know nothing of it. `LibraryIndexer` packs the directories without a blob
/// after their songs are ranked (`packSome`, a chunk per transaction); readers fall back to the rows when a blob is
/// missing (while an update runs or the indexer has not caught up) or cannot be read, so an answer never depends on
/// whether it is there.
enum FolderSongs {
    static let table = "folder_songs"

    static func create(_ db: Database) throws {
        let columns = "uri, directory_id, duration, last_modified, added, audio_format, tags, walk_rank"
        try db.execute(sql: """
            CREATE TABLE \(table) (directory_id INTEGER PRIMARY KEY REFERENCES directory(id) ON DELETE CASCADE,
                songs BLOB NOT NULL);
            """)
        try createInsertTrigger(db)
        try db.execute(sql: """
            CREATE TRIGGER folder_songs_delete AFTER DELETE ON song WHEN OLD.directory_id IS NOT NULL BEGIN
                DELETE FROM \(table) WHERE directory_id = OLD.directory_id;
            END;
            """)
        try createUpdateTrigger(db, columns: columns)
    }

    /// Migration v16: the songs' `has_playlist` column, which the blob holds too (its trigger watches it; the
    /// blobs are packed again by the indexer).
    static func addPlaylistFlag(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE song ADD COLUMN has_playlist INTEGER NOT NULL DEFAULT 0;
            DROP TRIGGER IF EXISTS folder_songs_update;
            DELETE FROM \(table);
            """)
        try createUpdateTrigger(db, columns: """
            uri, directory_id, duration, last_modified, added, audio_format, tags, walk_rank, has_playlist
            """)
    }

    private static func createUpdateTrigger(_ db: Database, columns: String) throws {
        try db.execute(sql: """
            CREATE TRIGGER folder_songs_update AFTER UPDATE OF \(columns) ON song
                WHEN OLD.directory_id IS NOT NULL OR NEW.directory_id IS NOT NULL BEGIN
                DELETE FROM \(table) WHERE directory_id IN (OLD.directory_id, NEW.directory_id);
            END;
            """)
    }

    /// The trigger for inserted songs. An update in bulk mode drops it while it writes, with every blob
    /// (`LibraryDatabase.dropForBulk`), and creates it again when it ends.
    static let insertTrigger = "folder_songs_insert"

    static func createInsertTrigger(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TRIGGER IF NOT EXISTS \(insertTrigger) AFTER INSERT ON song WHEN NEW.directory_id IS NOT NULL BEGIN
                DELETE FROM \(table) WHERE directory_id = NEW.directory_id;
            END
            """)
    }

    /// Directories one transaction packs.
    static let chunk = 200

    /// Packs up to `chunk` directories that have no blob; false when every one has its blob.
    static func packSome(_ db: Database) throws -> Bool {
        let directories = try Int64.fetchAll(db, sql: """
            SELECT id FROM directory WHERE id NOT IN (SELECT directory_id FROM \(table)) LIMIT \(chunk)
            """)
        guard !directories.isEmpty else { return false }
        let insert = try FastStatement(db, "INSERT INTO \(table) (directory_id, songs) VALUES (?, ?)")
        for directory in directories {
            // Read from the rows: there is no blob to read them from.
            insert.bind(1, directory)
            insert.bind(2, encode(try MusicLibrary.Tree.rowSongs(db, in: directory)))
            try insert.run(db)
        }
        return true
    }

    /// Whether every directory has its blob.
    static func complete(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: """
            SELECT NOT EXISTS (SELECT 1 FROM directory WHERE id NOT IN (SELECT directory_id FROM \(table)))
            """)) ?? false
    }

    /// The songs of directory `id` in walk order, or nil when it has no blob (or one that cannot be read).
    static func songs(_ db: Database, in id: Int64) throws -> [Song]? {
        let statement = try db.cachedStatement(sql: "SELECT songs FROM \(table) WHERE directory_id = ?")
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        sqlite3_bind_int64(handle, 1, id)
        let code = sqlite3_step(handle)
        if code == SQLITE_DONE { return nil }
        guard code == SQLITE_ROW else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code),
                                message: db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) })
        }
        // Even no songs take a byte (their count): an empty blob is a damaged one.
        let count = Int(sqlite3_column_bytes(handle, 0))
        guard count > 0, let base = sqlite3_column_blob(handle, 0) else { return nil }
        return decode(UnsafeRawBufferPointer(start: base, count: count))
    }

    // MARK: - The blob

    // The number of songs (a length), then per song: the URI (length, bytes), a byte of flags saying which of the rest
    // are there (and whether the song holds a playlist), the duration (8 bytes, an IEEE double), the modification time and the time added (8 bytes each), the
    // audio format (length, bytes), and the packed tags (length, bytes; `PackedTags`). Lengths are LEB128, numbers
    // little-endian.
    private static let hasDuration: UInt8 = 1, hasModified: UInt8 = 2, hasAdded: UInt8 = 4, hasFormat: UInt8 = 8,
        hasPlaylist: UInt8 = 16

    static func encode(_ songs: [Song]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(songs.count * 160)
        func appendField(_ field: some Collection<UInt8>) {
            PackedTags.appendLength(field.count, to: &bytes)
            bytes.append(contentsOf: field)
        }
        func append(_ value: UInt64) {
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        PackedTags.appendLength(songs.count, to: &bytes)
        for song in songs {
            appendField(song.uri.utf8)
            var flags: UInt8 = 0
            if song.duration != nil { flags |= hasDuration }
            if song.lastModified != nil { flags |= hasModified }
            if song.added != nil { flags |= hasAdded }
            if song.audioFormat != nil { flags |= hasFormat }
            if song.hasPlaylist { flags |= hasPlaylist }
            bytes.append(flags)
            if let duration = song.duration { append(duration.bitPattern) }
            if let modified = song.lastModified { append(UInt64(bitPattern: modified)) }
            if let added = song.added { append(UInt64(bitPattern: added)) }
            if let format = song.audioFormat { appendField(format.utf8) }
            appendField(song.packedTags.bytes)
        }
        return bytes
    }

    /// The songs of a blob, or nil when it is damaged.
    static func decode(_ blob: UnsafeRawBufferPointer) -> [Song]? {
        var reader = Reader(blob)
        // Each song is made in place in the array's storage: appending it copied it (a retain and a release of each
        // of its texts).
        guard let count = reader.length(), count <= blob.count else { return nil }
        var damaged = false
        var formats = RecentText()
        let songs = [Song](unsafeUninitializedCapacity: count) { storage, initialized in
            while initialized < count {
                guard let fields = reader.song(&formats) else {
                    damaged = true
                    return
                }
                (storage.baseAddress! + initialized).initialize(to: Song(
                    uri: String(decoding: fields.uri, as: UTF8.self), packedTags: PackedTags(bytes: Array(fields.tags)),
                    duration: fields.duration, lastModified: fields.modified, added: fields.added,
                    audioFormat: fields.format, hasPlaylist: fields.hasPlaylist))
                initialized += 1
            }
        }
        return damaged || !reader.atEnd ? nil : songs
    }

    /// Reads a blob front to back; every read checks that the bytes are there. Lengths and length-prefixed bytes
    /// are read as `PackedTags` reads its own.
    private struct Reader {
        private let all: UnsafeBufferPointer<UInt8>
        private var index = 0

        init(_ blob: UnsafeRawBufferPointer) {
            all = blob.assumingMemoryBound(to: UInt8.self)
        }

        var atEnd: Bool { index >= all.count }

        mutating func byte() -> UInt8? {
            guard index < all.count else { return nil }
            defer { index += 1 }
            return all[index]
        }

        mutating func length() -> Int? { PackedTags.length(all, &index) }

        mutating func bytes() -> UnsafeBufferPointer<UInt8>? { PackedTags.field(all, &index) }

        /// A song's fields; the texts as bytes of the blob, but for the audio format, which repeats.
        typealias Fields = (uri: UnsafeBufferPointer<UInt8>, tags: UnsafeBufferPointer<UInt8>, duration: Double?,
                            modified: Int64?, added: Int64?, format: String?, hasPlaylist: Bool)

        mutating func song(_ formats: inout RecentText) -> Fields? {
            guard let uri = bytes(), let flags = byte() else { return nil }
            var duration: Double?, modified: Int64?, added: Int64?, format: String?
            if flags & hasDuration != 0 {
                guard let bits = word() else { return nil }
                duration = Double(bitPattern: bits)
            }
            if flags & hasModified != 0 {
                guard let value = word() else { return nil }
                modified = Int64(bitPattern: value)
            }
            if flags & hasAdded != 0 {
                guard let value = word() else { return nil }
                added = Int64(bitPattern: value)
            }
            if flags & hasFormat != 0 {
                guard let text = bytes() else { return nil }
                format = formats.text(text)
            }
            guard let tags = bytes() else { return nil }
            return (uri, tags, duration, modified, added, format, flags & hasPlaylist != 0)
        }

        mutating func word() -> UInt64? {
            guard all.count - index >= 8 else { return nil }
            defer { index += 8 }
            return UInt64(littleEndian: UnsafeRawPointer(all.baseAddress! + index).loadUnaligned(as: UInt64.self))
        }
    }
}
