import Foundation
import GRDB
import MPDProtocol
import PlayerCore

/// One directory of a remote collection, as the sync writes it.
public struct RemoteDirectory: Sendable, Equatable {
    /// Relative and `/`-separated, without a leading slash ("NetEase/Playlists/Road trip"): where `lsinfo` shows it.
    public var path: String
    /// What the directory stands for ("netease://playlist/123"), so commands can go from a name back to the source.
    public var reference: String?
    /// UNIX seconds, shown as `Last-Modified`.
    public var lastModified: Int64?
    /// In order; may be empty (a directory of directories) and may list a song more than once.
    public var songs: [Song]

    public init(path: String, reference: String? = nil, lastModified: Int64? = nil, songs: [Song] = []) {
        self.path = path
        self.reference = reference
        self.lastModified = lastModified
        self.songs = songs
    }
}

/// A stored remote directory without its songs.
public struct RemoteDirectoryInfo: Sendable, Equatable {
    public var path: String
    public var reference: String?
    public var lastModified: Int64?
    /// The songs directly in it, repeats included.
    public var songCount: Int

    public init(path: String, reference: String?, lastModified: Int64?, songCount: Int) {
        self.path = path
        self.reference = reference
        self.lastModified = lastModified
        self.songCount = songCount
    }
}

/// Remote collections: what a source (NetEase) holds for the user, stored so that the database queries see its songs
/// like local ones and its virtual tree can be listed offline. The source's module does the fetching; this side only
/// stores whole snapshots, so a sync is one transaction and a failed one leaves the previous snapshot.
extension MusicLibrary {
    /// Replaces everything of `source` with `directories` in one write transaction. `directories` lists the whole
    /// tree: the root ("NetEase") and every directory up to each leaf, so that each path's parent is either one of
    /// them or the database root; siblings keep the order of the array. Songs are matched by URI: a known one keeps
    /// its row (its id, hence its place after the local songs in `find`, and `Added`), and its tags are rewritten
    /// only when they differ; the first occurrence of a URI is the one stored. The source's songs left in no
    /// directory are deleted (they stay playable by URI, so queues are not told).
    ///
    /// Returns whether anything a client can see changed; only then is `db_update` moved, as by an update that
    /// changed the database. Throws `LibraryError.argument` for a malformed tree, and when a path or song URI
    /// belongs to another source (or to the music directory); nothing is written then.
    public func replaceRemoteCollection(source: String, directories: [RemoteDirectory]) throws -> Bool {
        guard !source.isEmpty, source != "local" else { throw LibraryError.argument("Bad remote source '\(source)'") }
        var paths: Set<String> = []
        for directory in directories {
            guard Self.isSafeLocal(directory.path) else {
                throw LibraryError.argument("Malformed remote directory '\(directory.path)'")
            }
            guard paths.insert(directory.path).inserted else {
                throw LibraryError.argument("Remote directory '\(directory.path)' given twice")
            }
        }
        var planned: [PlannedDirectory] = []
        var nextPosition: [String: Int64] = [:]
        for directory in directories {
            let parent = Self.parent(of: directory.path)
            guard parent.isEmpty || paths.contains(parent) else {
                throw LibraryError.argument("Remote directory '\(directory.path)' without its parent")
            }
            let position = nextPosition[parent, default: 0]
            nextPosition[parent] = position + 1
            planned.append(PlannedDirectory(directory: directory, parent: parent, position: position))
        }
        // The songs, each once, with the tag rows a scan would store (`metadata_to_use` applies here too).
        var songs: [String: PlannedSong] = [:]
        var songOrder: [String] = []
        for directory in directories {
            for song in directory.songs where songs[song.uri] == nil {
                guard !song.uri.isEmpty else { throw LibraryError.argument("Remote song without a URI") }
                songs[song.uri] = PlannedSong(song, mask: tagMask)
                songOrder.append(song.uri)
            }
        }

        let now = Int64(Date().timeIntervalSince1970)
        return try database.writer.write { db in
            var changed = false
            let stored = try Self.storedRemoteSongs(db, source: source)
            var ids: [String: Int64] = [:]
            for uri in songOrder {
                let song = songs[uri]!
                if let old = stored[uri] {
                    ids[uri] = old.id
                    try Self.update(db, old, to: song, changed: &changed)
                } else {
                    ids[uri] = try Self.insert(db, song, source: source, now: now)
                    changed = true
                }
            }

            let storedDirectories = try Self.storedRemoteDirectories(db, source: source)
            for path in storedDirectories.keys where !paths.contains(path) {
                try db.execute(sql: "DELETE FROM remote_directory WHERE path = ?", arguments: [path])
                changed = true
            }
            for plan in planned {
                let directory = plan.directory
                let row = StoredDirectory(parent: plan.parent, position: plan.position, reference: directory.reference,
                                          lastModified: directory.lastModified)
                let old = storedDirectories[directory.path]
                if old == nil, let owner = try String.fetchOne(db.cachedStatement(sql: "SELECT source FROM remote_directory WHERE path = ?"), arguments: [directory.path]) {
                    throw LibraryError.argument("Remote directory '\(directory.path)' belongs to \(owner)")
                }
                if old != row {
                    try db.execute(sql: """
                        INSERT INTO remote_directory (path, source, parent, position, reference, last_modified)
                        VALUES (?, ?, ?, ?, ?, ?)
                        ON CONFLICT(path) DO UPDATE SET parent = excluded.parent, position = excluded.position,
                            reference = excluded.reference, last_modified = excluded.last_modified
                        """, arguments: [directory.path, source, row.parent, row.position, row.reference,
                                         row.lastModified])
                    changed = true
                }
                try Self.writeEntries(db, directory: directory.path, songIDs: directory.songs.map { ids[$0.uri]! },
                                      isNew: old == nil, changed: &changed)
            }

            try Self.deleteUnlistedSongs(db, source: source, changed: &changed)
            if changed { try Self.markUpdated(db, now: now) }
            return changed
        }
    }

    /// `lsinfo` (one level: the subdirectories, then the songs in stored order) and `listall`/`listallinfo`
    /// (recursive: the directory itself, then as `list` walks a local directory: its songs, then each subdirectory
    /// followed by its contents) of a remote directory; nil when `path` is none.
    public func remoteEntries(path: String, recursive: Bool) throws -> [LibraryEntry]? {
        try database.writer.read { db -> [LibraryEntry]? in
            guard let modified = try Row.fetchOne(db.cachedStatement(sql: "SELECT last_modified FROM remote_directory WHERE path = ?"),
                                                  arguments: [path]) else { return nil }
            guard recursive else {
                var entries = try Self.remoteChildren(db, of: path).map {
                    LibraryEntry.directory(path: $0.path, lastModified: $0.lastModified)
                }
                let ids = try Self.entryIDs(db, directory: path)
                let songs = try Self.remoteSongs(db, ids: ids)
                entries.append(contentsOf: ids.compactMap { songs[$0].map(LibraryEntry.song) })
                return entries
            }
            // The subtree in two passes (its directories, then every entry below it) rather than per directory.
            let subtree = "path = ?1 OR substr(path, 1, length(?1) + 1) = ?1 || '/'"
            var children: [String: [(path: String, modified: Int64?)]] = [:]
            for row in try Row.fetchAll(db.cachedStatement(sql: """
                SELECT path, parent, last_modified FROM remote_directory WHERE \(subtree) ORDER BY parent, position
                """), arguments: [path]) {
                children[row[1], default: []].append((row[0], row[2]))
            }
            var entryIDs: [String: [Int64]] = [:]
            for row in try Row.fetchAll(db.cachedStatement(sql: """
                SELECT directory, song_id FROM remote_entry
                WHERE directory IN (SELECT path FROM remote_directory WHERE \(subtree)) ORDER BY directory, position
                """), arguments: [path]) {
                entryIDs[row[0], default: []].append(row[1])
            }
            let songs = try Self.remoteSongs(db, ids: Array(Set(entryIDs.values.joined())))
            var entries: [LibraryEntry] = [.directory(path: path, lastModified: modified[0])]
            func walk(_ directory: String) {
                entries.append(contentsOf: (entryIDs[directory] ?? []).compactMap { songs[$0].map(LibraryEntry.song) })
                for child in children[directory] ?? [] {
                    entries.append(.directory(path: child.path, lastModified: child.modified))
                    walk(child.path)
                }
            }
            walk(path)
            return entries
        }
    }

    /// The subdirectories of a remote directory in their order (of `""`: the roots of the remote collections),
    /// e.g. for `listplaylists` and for finding a playlist's id by its name.
    public func remoteChildren(of path: String) throws -> [RemoteDirectoryInfo] {
        try database.writer.read { db in try Self.remoteChildren(db, of: path) }
    }

    /// The remote directory at `path`, if any.
    public func remoteDirectory(path: String) throws -> RemoteDirectoryInfo? {
        try database.writer.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.directoryInfoColumns) FROM remote_directory d WHERE d.path = ?"),
                             arguments: [path]).map(Self.directoryInfo)
        }
    }
}

/// Edits of one remote directory, for changes the user makes through NoSignal (a like, a playlist edit): the
/// source already holds the new state, so the stored copy follows at once instead of waiting for the next sync.
extension MusicLibrary {
    /// The song URIs of a remote directory's entries, in order (repeats kept); nil when there is no such directory.
    /// Cheaper than `remoteEntries` when only membership matters (is this song liked?).
    public func remoteSongURIs(path: String) throws -> [String]? {
        try database.writer.read { db -> [String]? in
            guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM remote_directory WHERE path = ?"), arguments: [path]) != nil
            else { return nil }
            return try String.fetchAll(db.cachedStatement(sql: """
                SELECT song.uri FROM remote_entry JOIN song ON song.id = remote_entry.song_id
                WHERE remote_entry.directory = ? ORDER BY remote_entry.position
                """), arguments: [path])
        }
    }

    /// Replaces the songs, reference and time of one directory of `source`, creating it when missing as child
    /// number `index` of its parent (at the end when nil or too large). The parent must be a directory of
    /// `source` (or the database root). Songs follow the rules of `replaceRemoteCollection`: known ones keep their
    /// rows, new ones are inserted, and the source's songs left in no directory are deleted. Subdirectories of
    /// an existing directory stay.
    ///
    /// Outside an update job nobody else tells the clients, so a visible change moves `db_update` and announces
    /// `database` here. Returns whether anything changed.
    public func replaceRemoteDirectory(source: String, _ directory: RemoteDirectory, at index: Int? = nil) throws
        -> Bool
    {
        guard !source.isEmpty, source != "local" else { throw LibraryError.argument("Bad remote source '\(source)'") }
        guard Self.isSafeLocal(directory.path) else {
            throw LibraryError.argument("Malformed remote directory '\(directory.path)'")
        }
        var planned: [String: PlannedSong] = [:]
        var order: [String] = []
        for song in directory.songs where planned[song.uri] == nil {
            guard !song.uri.isEmpty else { throw LibraryError.argument("Remote song without a URI") }
            planned[song.uri] = PlannedSong(song, mask: tagMask)
            order.append(song.uri)
        }
        let parent = Self.parent(of: directory.path)
        let now = Int64(Date().timeIntervalSince1970)
        let changed = try database.writer.write { db -> Bool in
            var changed = false
            let owner = try String.fetchOne(db.cachedStatement(sql: "SELECT source FROM remote_directory WHERE path = ?"),
                                            arguments: [directory.path])
            if let owner, owner != source {
                throw LibraryError.argument("Remote directory '\(directory.path)' belongs to \(owner)")
            }
            if owner == nil {
                if !parent.isEmpty {
                    let parentOwner = try String.fetchOne(db.cachedStatement(sql: "SELECT source FROM remote_directory WHERE path = ?"),
                                                          arguments: [parent])
                    guard parentOwner == source else {
                        throw LibraryError.argument("Remote directory '\(directory.path)' without its parent")
                    }
                }
                let positions = try Int64.fetchAll(db.cachedStatement(sql: """
                    SELECT position FROM remote_directory WHERE parent = ? ORDER BY position
                    """), arguments: [parent])
                let position: Int64
                if let index, index >= 0, index < positions.count {
                    position = positions[index]
                    try db.execute(sql: "UPDATE remote_directory SET position = position + 1 WHERE parent = ? AND position >= ?",
                                   arguments: [parent, position])
                } else {
                    position = (positions.last ?? -1) + 1
                }
                try db.execute(sql: """
                    INSERT INTO remote_directory (path, source, parent, position, reference, last_modified)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """, arguments: [directory.path, source, parent, position, directory.reference,
                                     directory.lastModified])
                changed = true
            } else {
                try db.execute(sql: """
                    UPDATE remote_directory SET reference = ?, last_modified = ?
                    WHERE path = ? AND (reference IS NOT ? OR last_modified IS NOT ?)
                    """, arguments: [directory.reference, directory.lastModified, directory.path, directory.reference,
                                     directory.lastModified])
                if db.changesCount > 0 { changed = true }
            }
            var ids: [String: Int64] = [:]
            for uri in order {
                let song = planned[uri]!
                if let old = try Self.storedRemoteSong(db, uri: uri, source: source) {
                    ids[uri] = old.id
                    try Self.update(db, old, to: song, changed: &changed)
                } else {
                    ids[uri] = try Self.insert(db, song, source: source, now: now)
                    changed = true
                }
            }
            try Self.writeEntries(db, directory: directory.path, songIDs: directory.songs.map { ids[$0.uri]! },
                                  isNew: false, changed: &changed)
            try Self.deleteUnlistedSongs(db, source: source, changed: &changed)
            if changed { try Self.markUpdated(db, now: now) }
            return changed
        }
        if changed {
            database.updateIndexes()
            announce([Change(.database)])
        }
        return changed
    }

    /// Gives a directory of `source` a new last path component (a playlist renamed on NetEase), with everything
    /// below it; it keeps its place among its siblings and its songs. False when `source` has no such directory;
    /// throws when `newPath` is not a sibling's path or is taken. Moves `db_update` and announces `database`.
    public func renameRemoteDirectory(source: String, path: String, to newPath: String) throws -> Bool {
        guard Self.isSafeLocal(newPath), Self.parent(of: newPath) == Self.parent(of: path) else {
            throw LibraryError.argument("Malformed remote directory '\(newPath)'")
        }
        guard newPath != path else { return false }
        let now = Int64(Date().timeIntervalSince1970)
        let changed = try database.writer.write { db -> Bool in
            let owner = try String.fetchOne(db.cachedStatement(sql: "SELECT source FROM remote_directory WHERE path = ?"),
                                            arguments: [path])
            guard owner == source else { return false }
            guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM remote_directory WHERE path = ?"), arguments: [newPath])
                == nil
            else { throw LibraryError.argument("Remote directory '\(newPath)' exists") }
            // The entries and subdirectories name their directory by path: they move in the same transaction.
            try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
            for (table, column) in [("remote_directory", "path"), ("remote_directory", "parent"),
                                    ("remote_entry", "directory")] {
                try db.execute(sql: """
                    UPDATE \(table) SET \(column) = ?2 || substr(\(column), length(?1) + 1)
                    WHERE \(column) = ?1 OR substr(\(column), 1, length(?1) + 1) = ?1 || '/'
                    """, arguments: [path, newPath])
            }
            try Self.markUpdated(db, now: now)
            return true
        }
        if changed {
            database.updateIndexes()
            announce([Change(.database)])
        }
        return changed
    }

    /// Removes a directory of `source` with everything below it (a playlist deleted on NetEase); the songs left
    /// in no directory go too. Moves `db_update` and announces `database` when it existed.
    public func removeRemoteDirectory(source: String, path: String) throws -> Bool {
        let now = Int64(Date().timeIntervalSince1970)
        let changed = try database.writer.write { db -> Bool in
            try db.execute(sql: """
                DELETE FROM remote_directory WHERE source = ?1 AND (path = ?2 OR substr(path, 1, length(?2) + 1) = ?2 || '/')
                """, arguments: [source, path])
            guard db.changesCount > 0 else { return false }
            var changed = true
            try Self.deleteUnlistedSongs(db, source: source, changed: &changed)
            try Self.markUpdated(db, now: now)
            return changed
        }
        if changed {
            database.updateIndexes()
            announce([Change(.database)])
        }
        return changed
    }
}

extension MusicLibrary {
    struct PlannedDirectory {
        var directory: RemoteDirectory
        var parent: String
        var position: Int64
    }

    struct StoredDirectory: Equatable {
        var parent: String
        var position: Int64
        var reference: String?
        var lastModified: Int64?
    }

    struct RemoteTagRow: Equatable {
        var tag: Int
        /// The index among the song's tags (masked ones included), as a scan stores it.
        var position: Int
        var value: String
    }

    /// A song's row as the sync writes it.
    struct PlannedSong {
        var uri: String
        var duration: Double?
        var lastModified: Int64?
        /// Nil: the time the song was first stored.
        var added: Int64?
        var audioFormat: String?
        var tags: [RemoteTagRow]

        init(_ song: Song, mask: TagMask) {
            uri = song.uri
            duration = song.duration
            lastModified = song.lastModified
            added = song.added
            audioFormat = song.audioFormat
            tags = song.tags.enumerated().compactMap { position, tag in
                guard let name = TagName(parsing: tag.name), mask.contains(name) else { return nil }
                return RemoteTagRow(tag: name.rawValue, position: position, value: tag.value)
            }
        }
    }

    struct StoredSong {
        var id: Int64
        var duration: Double?
        var lastModified: Int64?
        var added: Int64?
        var audioFormat: String?
        var tags: [RemoteTagRow] = []
    }

    /// The source's songs by URI, with their tag rows.
    static func storedRemoteSongs(_ db: GRDB.Database, source: String) throws -> [String: StoredSong] {
        var songs: [String: StoredSong] = [:]
        var uris: [Int64: String] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: """
            SELECT id, uri, duration, last_modified, added, audio_format FROM song
            WHERE source = ?1 AND source <> 'local'
            """), arguments: [source]) {
            let uri: String = row[1]
            uris[row[0]] = uri
            songs[uri] = StoredSong(id: row[0], duration: row[2], lastModified: row[3], added: row[4],
                                    audioFormat: row[5])
        }
        let tags = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT song_id, tag, position, value FROM song_tag
            WHERE song_id IN (SELECT id FROM song WHERE source = ?1 AND source <> 'local') ORDER BY song_id, position
            """), arguments: [source])
        while let row = try tags.next() {
            guard let uri = uris[row[0]] else { continue }
            songs[uri]!.tags.append(RemoteTagRow(tag: row[1], position: row[2], value: row[3]))
        }
        return songs
    }

    /// One stored song of the source by URI, with its tag rows; nil when the source has none with that URI.
    static func storedRemoteSong(_ db: GRDB.Database, uri: String, source: String) throws -> StoredSong? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT id, duration, last_modified, added, audio_format FROM song WHERE uri = ? AND source = ?
            """), arguments: [uri, source]) else { return nil }
        var song = StoredSong(id: row[0], duration: row[1], lastModified: row[2], added: row[3], audioFormat: row[4])
        song.tags = try Row.fetchAll(db.cachedStatement(sql: "SELECT tag, position, value FROM song_tag WHERE song_id = ? ORDER BY position"),
                                     arguments: [song.id]).map { RemoteTagRow(tag: $0[0], position: $0[1], value: $0[2]) }
        return song
    }

    /// The source's songs that no remote directory lists any more (they stay playable by URI).
    static func deleteUnlistedSongs(_ db: GRDB.Database, source: String, changed: inout Bool) throws {
        try db.execute(sql: """
            DELETE FROM song WHERE source = ?1 AND source <> 'local'
                AND NOT EXISTS (SELECT 1 FROM remote_entry WHERE remote_entry.song_id = song.id)
            """, arguments: [source])
        if db.changesCount > 0 { changed = true }
    }

    /// `db_update` moves as after an update that changed the database.
    static func markUpdated(_ db: GRDB.Database, now: Int64) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('db_update', ?)", arguments: [String(now)])
    }

    static func insert(_ db: GRDB.Database, _ song: PlannedSong, source: String, now: Int64) throws -> Int64 {
        if let owner = try String.fetchOne(db.cachedStatement(sql: "SELECT source FROM song WHERE uri = ?"), arguments: [song.uri]) {
            throw LibraryError.argument("Song '\(song.uri)' belongs to \(owner)")
        }
        try db.execute(sql: """
            INSERT INTO song (uri, directory_id, source, duration, last_modified, added, audio_format)
            VALUES (?, NULL, ?, ?, ?, ?, ?)
            """, arguments: [song.uri, source, song.duration, song.lastModified, song.added ?? now, song.audioFormat])
        let id = db.lastInsertedRowID
        try insertTags(db, song.tags, id: id)
        return id
    }

    static func update(_ db: GRDB.Database, _ old: StoredSong, to song: PlannedSong, changed: inout Bool) throws {
        let added = song.added ?? old.added
        if old.duration != song.duration || old.lastModified != song.lastModified || old.added != added
            || old.audioFormat != song.audioFormat {
            try db.execute(sql: """
                UPDATE song SET duration = ?, last_modified = ?, added = ?, audio_format = ? WHERE id = ?
                """, arguments: [song.duration, song.lastModified, added, song.audioFormat, old.id])
            changed = true
        }
        if old.tags != song.tags {
            try db.execute(sql: "DELETE FROM song_tag WHERE song_id = ?", arguments: [old.id])
            try insertTags(db, song.tags, id: old.id)
            changed = true
        }
    }

    static func insertTags(_ db: GRDB.Database, _ tags: [RemoteTagRow], id: Int64) throws {
        let insert = try db.cachedStatement(sql: """
            INSERT INTO song_tag (song_id, tag, position, value, value_folded) VALUES (?, ?, ?, ?, ?)
            """)
        for tag in tags {
            try insert.execute(arguments: [id, tag.tag, tag.position, tag.value, CaseFolding.fold(tag.value)])
        }
        let column = SongTagsColumn.encode(tags.sorted { $0.position < $1.position }.lazy.map { ($0.tag, $0.value) })
        try db.execute(sql: "UPDATE song SET tags = ? WHERE id = ?", arguments: [column.map { Data($0) }, id])
        try db.execute(sql: SearchIndex.noteSQL, arguments: [id])
    }

    static func storedRemoteDirectories(_ db: GRDB.Database, source: String) throws -> [String: StoredDirectory] {
        var directories: [String: StoredDirectory] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: """
            SELECT path, parent, position, reference, last_modified FROM remote_directory WHERE source = ?
            """), arguments: [source]) {
            directories[row[0]] = StoredDirectory(parent: row[1], position: row[2], reference: row[3],
                                                  lastModified: row[4])
        }
        return directories
    }

    /// The song ids of a directory's entries, in order.
    /// Replaces a directory's entries with `songIDs` (in order) unless they are already those; `isNew`: nothing
    /// stored yet, so there is nothing to read back.
    static func writeEntries(_ db: GRDB.Database, directory: String, songIDs: [Int64], isNew: Bool,
                             changed: inout Bool) throws {
        let stored = isNew ? [] : try entryIDs(db, directory: directory)
        guard stored != songIDs else { return }
        try db.execute(sql: "DELETE FROM remote_entry WHERE directory = ?", arguments: [directory])
        let insert = try db.cachedStatement(sql: "INSERT INTO remote_entry (directory, position, song_id) VALUES (?, ?, ?)")
        for (position, id) in songIDs.enumerated() {
            try insert.execute(arguments: [directory, position, id])
        }
        changed = true
    }

    static func entryIDs(_ db: GRDB.Database, directory: String) throws -> [Int64] {
        try Int64.fetchAll(db.cachedStatement(sql: "SELECT song_id FROM remote_entry WHERE directory = ? ORDER BY position"),
                           arguments: [directory])
    }

    static func remoteChildren(_ db: GRDB.Database, of path: String) throws -> [RemoteDirectoryInfo] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT \(directoryInfoColumns) FROM remote_directory d WHERE d.parent = ? ORDER BY d.position
            """), arguments: [path]).map(directoryInfo)
    }

    static let directoryInfoColumns = """
        d.path, d.reference, d.last_modified, (SELECT COUNT(*) FROM remote_entry e WHERE e.directory = d.path)
        """

    static func directoryInfo(_ row: Row) -> RemoteDirectoryInfo {
        RemoteDirectoryInfo(path: row[0], reference: row[1], lastModified: row[2], songCount: row[3])
    }

    /// Songs with their tags by id (each id once, whatever the order of `ids`).
    static func remoteSongs(_ db: GRDB.Database, ids: [Int64]) throws -> [Int64: Song] {
        try LibraryQueries.songsByID(Array(Set(ids)), db)
    }
}
