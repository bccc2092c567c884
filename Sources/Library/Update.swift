import Dispatch
import Foundation
import GRDB
import Logging
import MPDProtocol
import PlayerCore
import Synchronization

/// MPD's update job bookkeeping (`src/db/update/Service.cxx`, `Queue.hxx`): ids count up to 2^15 and wrap to 1,
/// one job runs at a time, at most 32 wait.
struct UpdateQueue: Sendable {
    static let maximumID = 1 << 15
    static let maximumQueued = 32

    struct Job: Sendable {
        var id: Int
        var uri: String
        var discard: Bool
    }

    var lastID = 0
    var running: Job?
    var queued: [Job] = []
    /// Set at shutdown: the running walk stops at the next directory and queued jobs are dropped.
    var cancelled = false

    mutating func nextID() -> Int {
        let id = lastID + 1 > Self.maximumID ? 1 : lastID + 1
        lastID = id
        return id
    }
}

extension MusicLibrary {
    /// The id of the job running now, for `status`'s `updating_db`.
    public var runningUpdateID: Int? { updates.withLock { $0.running?.id } }

    /// `update`/`rescan`: queues a job and returns its id at once. The job runs on a background thread; the
    /// `update` idle event fires when it starts and ends, `database` when it changed anything.
    @discardableResult
    public func enqueueUpdate(uri raw: String, discard: Bool) throws -> Int {
        let uri = try Self.normalize(raw)
        let (id, start): (Int, Bool) = try updates.withLock { state in
            if state.cancelled { throw LibraryError.updateBusy("Update queue is full") }
            if state.running != nil {
                guard state.queued.count < UpdateQueue.maximumQueued else {
                    throw LibraryError.updateBusy("Update queue is full")
                }
                let id = state.nextID()
                state.queued.append(.init(id: id, uri: uri, discard: discard))
                return (id, false)
            }
            let id = state.nextID()
            state.running = .init(id: id, uri: uri, discard: discard)
            return (id, true)
        }
        if start {
            announce([Change(.update)])
            startWorker()
        }
        return id
    }

    private func startWorker() {
        Thread.detachNewThread { [self] in
            while let job = updates.withLock({ $0.running }) {
                var modified = false
                do {
                    modified = try runUpdate(uri: job.uri, discard: job.discard)
                } catch is CancellationError {
                    logger.notice("database update cancelled")
                } catch {
                    logger.error("database update failed: \(error)")
                }
                // The next queued job starts without an event of its own (`UpdateService::RunDeferred`). The job
                // leaves `status` and its events go out under one lock, as MPD does both on its main thread: a
                // client that sees `updating_db` gone has its `update`/`database` events queued already, and one
                // woken by the event no longer sees the job.
                updates.withLock { state in
                    state.running = state.queued.isEmpty ? nil : state.queued.removeFirst()
                    announce(modified ? [Change(.update), Change(.database)] : [Change(.update)])
                }
            }
        }
    }

    /// Stops the update jobs (at shutdown): the running walk ends at the next directory, queued jobs are dropped.
    public func cancelUpdates() {
        updates.withLock { state in
            state.cancelled = true
            state.queued = []
        }
    }

    var isCancelled: Bool { updates.withLock { $0.cancelled } }

    /// Waits until no update job runs or waits (for tests and start-up).
    public func waitForUpdates() async {
        while updates.withLock({ $0.running != nil }) { try? await Task.sleep(for: .milliseconds(20)) }
    }

    /// Runs one update synchronously on the calling thread; true when the database changed.
    @discardableResult
    public func runUpdate(uri: String, discard: Bool) throws -> Bool {
        var scanner = Scanner(library: self, discard: discard)
        try scanner.update(uri: uri)
        // MPD saves its database (and so moves `db_update`) when the update changed it, or when it had never
        // been saved (`UpdateService::Task`).
        let modified = scanner.modified
        if !scanner.removedSongs.isEmpty { songsRemoved(scanner.removedSongs) }
        try database.writer.write { db in
            let saved = try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM meta WHERE key = 'db_update')") ?? false
            if modified || !saved {
                try Self.pruneEmptyDirectories(db)
                try db.execute(sql: "UPDATE directory SET unsorted = NULL WHERE unsorted IS NOT NULL")
            }
            let stamp = String(Int64(Date().timeIntervalSince1970))
            try db.execute(sql: modified
                ? "INSERT OR REPLACE INTO meta (key, value) VALUES ('db_update', ?)"
                : "INSERT OR IGNORE INTO meta (key, value) VALUES ('db_update', ?)", arguments: [stamp])
        }
        return modified
    }
}

extension MusicLibrary {
    /// `Directory::PruneEmpty`: removes directories without songs, playlists or (remaining) subdirectories,
    /// deepest first; never the root.
    static func pruneEmptyDirectories(_ db: GRDB.Database) throws {
        repeat {
            try db.execute(sql: """
                DELETE FROM directory WHERE path <> ''
                    AND NOT EXISTS (SELECT 1 FROM song WHERE song.directory_id = directory.id)
                    AND NOT EXISTS (SELECT 1 FROM db_playlist WHERE db_playlist.directory_id = directory.id)
                    AND NOT EXISTS (SELECT 1 FROM directory AS child WHERE child.parent_id = directory.id)
                """)
        } while db.changesCount > 0
    }
}

/// Walks the music directory and brings the database in line with it (`src/db/update/Walk.cxx`): directories are
/// followed (also through symlinks, stopping at loops), files with a decoder suffix become songs, playlist files
/// become `playlist:` entries, files with newlines in their names are skipped, and directories that vanished are
/// removed (empty ones only when the update changed something, see `pruneEmptyDirectories`). Unchanged files (same mtime) are not read again unless `discard` (rescan).
struct Scanner {
    let library: MusicLibrary
    let discard: Bool
    let suffixes: Set<String>
    var modified = false
    /// URIs of the songs this update deleted.
    var removedSongs: [String] = []
    static let playlistSuffixes: Set<String> = ["m3u", "m3u8", "pls", "xspf", "asx"]

    init(library: MusicLibrary, discard: Bool) {
        self.library = library
        self.discard = discard
        self.suffixes = library.inspector.suffixes
    }

    var writer: any DatabaseWriter { library.database.writer }

    mutating func update(uri: String) throws {
        let path = library.absolutePath(uri)
        var info = stat()
        let exists = stat(path, &info) == 0
        if uri.isEmpty {
            guard exists, info.st_mode & S_IFMT == S_IFDIR else {
                library.logger.error("music directory \(path) is not a readable directory")
                return
            }
            let rootID = try writer.write { db in try MusicLibrary.directoryID(db, path: "")! }
            _ = try walkDirectory(uri: "", id: rootID, ancestors: [Self.key(info)])
            return
        }
        let name = String(uri.split(separator: "/").last!)
        let parentURI = MusicLibrary.parent(of: uri)
        guard exists else {
            try deleteName(uri)
            return
        }
        // Make sure the parents exist (`DirectoryMakeUriParentChecked`).
        let parentID = try ensureDirectoryChain(parentURI)
        if info.st_mode & S_IFMT == S_IFDIR {
            let id = try ensureDirectory(uri: uri, parentID: parentID, mtime: Int64(info.st_mtim.tv_sec))
            _ = try walkDirectory(uri: uri, id: id, ancestors: [Self.key(info)])
        } else if info.st_mode & S_IFMT == S_IFREG {
            try updateFiles(directoryURI: parentURI, directoryID: parentID, files: [(name, info)], removeOthers: false)
        }
    }

    /// The songs in a directory and below it.
    static func songURIs(_ db: GRDB.Database, under path: String) throws -> [String] {
        guard !path.isEmpty else { return [] }
        return try String.fetchAll(db, sql: """
            SELECT song.uri FROM song JOIN directory ON directory.id = song.directory_id
            WHERE directory.path = ?1 OR substr(directory.path, 1, length(?1) + 1) = ?1 || '/'
            """, arguments: [path])
    }

    static func key(_ info: stat) -> String { "\(info.st_dev):\(info.st_ino)" }

    /// Reads one directory level, updates its files, recurses; returns whether anything remains in it.
    mutating func walkDirectory(uri: String, id: Int64, ancestors: Set<String>) throws -> Bool {
        if library.isCancelled { throw CancellationError() }
        let path = library.absolutePath(uri)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else {
            library.logger.warning("cannot read directory \(path)")
            return try hasContent(id)
        }
        var files: [(String, stat)] = []
        var directories: [(String, stat)] = []
        for name in names where !name.contains("\n") {
            var info = stat()
            guard stat(path + "/" + name, &info) == 0 else { continue } // dangling symlink
            switch info.st_mode & S_IFMT {
            case S_IFREG: files.append((name, info))
            case S_IFDIR: directories.append((name, info))
            default: continue
            }
        }
        try updateFiles(directoryURI: uri, directoryID: id, files: files, removeOthers: true)

        var keep: Set<String> = []
        for (name, info) in directories {
            let key = Self.key(info)
            if ancestors.contains(key) { continue } // a symlink loop
            let childURI = uri.isEmpty ? name : uri + "/" + name
            // Like MPD, a directory found on disk stays even when empty; empty ones are pruned when the
            // database is saved (`SimpleDatabase::Save` → `PruneEmpty`), i.e. after a modifying update.
            let (childID, _) = try directoryRow(uri: childURI, parentID: id, mtime: Int64(info.st_mtim.tv_sec))
            _ = try walkDirectory(uri: childURI, id: childID, ancestors: ancestors.union([key]))
            keep.insert(childURI)
        }
        var gone: [String] = []
        let removed = try writer.write { db -> Int in
            let existing = try String.fetchAll(db, sql: "SELECT path FROM directory WHERE parent_id = ?", arguments: [id])
            var count = 0
            for path in existing where !keep.contains(path) {
                gone.append(contentsOf: try Self.songURIs(db, under: path))
                try db.execute(sql: "DELETE FROM directory WHERE path = ?", arguments: [path])
                count += 1
            }
            return count
        }
        removedSongs.append(contentsOf: gone)
        if removed > 0 { modified = true }
        return try hasContent(id)
    }

    func hasContent(_ id: Int64) throws -> Bool {
        try writer.read { db in
            try Bool.fetchOne(db, sql: """
                SELECT EXISTS(SELECT 1 FROM song WHERE directory_id = ?1)
                    OR EXISTS(SELECT 1 FROM db_playlist WHERE directory_id = ?1)
                    OR EXISTS(SELECT 1 FROM directory WHERE parent_id = ?1)
                """, arguments: [id]) ?? false
        }
    }

    /// Inserts or refreshes the songs and playlists among `files`; with `removeOthers`, deletes the directory's
    /// songs and playlists that are no longer there.
    mutating func updateFiles(directoryURI: String, directoryID: Int64, files: [(String, stat)],
                              removeOthers: Bool) throws {
        let known = try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT uri, last_modified FROM song WHERE directory_id = ?",
                             arguments: [directoryID])
                .reduce(into: [String: Int64]()) { $0[$1["uri"]] = $1["last_modified"] }
        }
        var seenSongs: Set<String> = []
        var seenPlaylists: [(String, Int64)] = []
        var changed: [(uri: String, file: InspectedFile, mtime: Int64, size: Int64)] = []
        var pending: [(uri: String, mtime: Int64, size: Int64)] = []
        for (name, info) in files {
            let suffix = name.split(separator: ".").count > 1 ? name.split(separator: ".").last!.lowercased() : ""
            let uri = directoryURI.isEmpty ? name : directoryURI + "/" + name
            let mtime = Int64(info.st_mtim.tv_sec)
            if Self.playlistSuffixes.contains(suffix) {
                seenPlaylists.append((uri, mtime))
                continue
            }
            guard suffixes.contains(suffix) else { continue }
            if !discard, let old = known[uri], old == mtime {
                seenSongs.insert(uri)
                continue
            }
            pending.append((uri, mtime, Int64(info.st_size)))
        }
        // Reading tags is the slow part (file I/O and libavformat): spread it over the cores.
        let inspector = library.inspector
        let paths = pending.map { library.absolutePath($0.uri) }
        let results = Mutex([Result<InspectedFile, any Error>?](repeating: nil, count: pending.count))
        DispatchQueue.concurrentPerform(iterations: pending.count) { index in
            let result = Result { try inspector.inspect(path: paths[index], includePicture: false) }
            results.withLock { $0[index] = result }
        }
        for (index, result) in results.withLock({ $0 }).enumerated() {
            let file = pending[index]
            switch result {
            case .success(let inspected)?:
                changed.append((file.uri, inspected, file.mtime, file.size))
                seenSongs.insert(file.uri)
            case .failure(let error)?:
                library.logger.warning("skipping \(file.uri): \(error)")
            case nil:
                break
            }
        }
        let now = Int64(Date().timeIntervalSince1970)
        var removed: [String] = []
        let didChange = try writer.write { db -> Bool in
            var didChange = !changed.isEmpty
            for song in changed {
                try db.execute(sql: """
                    INSERT INTO song (uri, directory_id, source, duration, last_modified, added, audio_format, size)
                    VALUES (?, ?, 'local', ?, ?, ?, ?, ?)
                    ON CONFLICT(uri) DO UPDATE SET directory_id = excluded.directory_id, duration = excluded.duration,
                        last_modified = excluded.last_modified, audio_format = excluded.audio_format,
                        size = excluded.size
                    """, arguments: [song.uri, directoryID, song.file.duration, song.mtime, now,
                                     song.file.audioFormat, song.size])
                let id = try Int64.fetchOne(db, sql: "SELECT id FROM song WHERE uri = ?", arguments: [song.uri])!
                try db.execute(sql: "DELETE FROM song_tag WHERE song_id = ?", arguments: [id])
                for (position, tag) in song.file.tags.enumerated() {
                    guard let name = TagName(parsing: tag.name), library.tagMask.contains(name) else { continue }
                    try db.execute(sql: """
                        INSERT INTO song_tag (song_id, tag, position, value, value_folded) VALUES (?, ?, ?, ?, ?)
                        """, arguments: [id, name.rawValue, position, tag.value, CaseFolding.fold(tag.value)])
                }
            }
            for (uri, mtime) in seenPlaylists {
                let old = try Int64?.fetchOne(db, sql: "SELECT last_modified FROM db_playlist WHERE path = ?",
                                              arguments: [uri])
                if old == nil || old! != mtime {
                    try db.execute(sql: """
                        INSERT INTO db_playlist (path, directory_id, last_modified) VALUES (?, ?, ?)
                        ON CONFLICT(path) DO UPDATE SET last_modified = excluded.last_modified
                        """, arguments: [uri, directoryID, mtime])
                    didChange = true
                }
            }
            if removeOthers {
                for uri in known.keys where !seenSongs.contains(uri) {
                    try db.execute(sql: "DELETE FROM song WHERE uri = ?", arguments: [uri])
                    removed.append(uri)
                    didChange = true
                }
                let playlistPaths = Set(seenPlaylists.map(\.0))
                for path in try String.fetchAll(db, sql: "SELECT path FROM db_playlist WHERE directory_id = ?",
                                                arguments: [directoryID]) where !playlistPaths.contains(path) {
                    try db.execute(sql: "DELETE FROM db_playlist WHERE path = ?", arguments: [path])
                    didChange = true
                }
            }
            return didChange
        }
        removedSongs.append(contentsOf: removed)
        if didChange { modified = true }
    }

    mutating func ensureDirectory(uri: String, parentID: Int64, mtime: Int64?) throws -> Int64 {
        try directoryRow(uri: uri, parentID: parentID, mtime: mtime).0
    }

    /// The directory's row (created when missing, its mtime refreshed) and whether it was created.
    func directoryRow(uri: String, parentID: Int64, mtime: Int64?) throws -> (Int64, Bool) {
        try writer.write { db -> (Int64, Bool) in
            if let row = try Row.fetchOne(db, sql: "SELECT id, last_modified FROM directory WHERE path = ?",
                                          arguments: [uri]) {
                let id: Int64 = row["id"]
                if let mtime, (row["last_modified"] as Int64?) != mtime {
                    try db.execute(sql: "UPDATE directory SET last_modified = ? WHERE id = ?", arguments: [mtime, id])
                }
                return (id, false)
            }
            try db.execute(sql: """
                INSERT INTO directory (path, parent_id, last_modified, unsorted)
                VALUES (?, ?, ?, (SELECT COALESCE(MAX(unsorted), 0) + 1 FROM directory))
                """, arguments: [uri, parentID, mtime])
            return (db.lastInsertedRowID, true)
        }
    }

    mutating func ensureDirectoryChain(_ uri: String) throws -> Int64 {
        var id = try writer.read { db in try MusicLibrary.directoryID(db, path: "")! }
        guard !uri.isEmpty else { return id }
        var path = ""
        for segment in uri.split(separator: "/") {
            path = path.isEmpty ? String(segment) : path + "/" + segment
            var info = stat()
            let mtime: Int64? = stat(library.absolutePath(path), &info) == 0 ? Int64(info.st_mtim.tv_sec) : nil
            id = try ensureDirectory(uri: path, parentID: id, mtime: mtime)
        }
        return id
    }

    /// Removes a song, playlist or directory by URI.
    mutating func deleteName(_ uri: String) throws {
        var gone: [String] = []
        let count = try writer.write { db -> Int in
            gone = try Self.songURIs(db, under: uri)
            if try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM song WHERE uri = ?)", arguments: [uri]) ?? false {
                gone.append(uri)
            }
            try db.execute(sql: "DELETE FROM song WHERE uri = ?", arguments: [uri])
            var count = db.changesCount
            try db.execute(sql: "DELETE FROM db_playlist WHERE path = ?", arguments: [uri])
            count += db.changesCount
            try db.execute(sql: "DELETE FROM directory WHERE path = ? AND path <> ''", arguments: [uri])
            return count + db.changesCount
        }
        removedSongs.append(contentsOf: gone)
        if count > 0 { modified = true }
    }
}
