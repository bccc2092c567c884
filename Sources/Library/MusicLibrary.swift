import Foundation
import GRDB
import GRDBSQLite
import Logging
import MPDProtocol
import PlayerCore
import Synchronization

public struct LibraryStats: Sendable, Equatable {
    public var artists: Int
    public var albums: Int
    public var songs: Int
    /// Seconds, summed over every song's duration (MPD sums `std::chrono` durations and prints whole seconds).
    public var playtime: Int64
    /// UNIX seconds of the last completed update, when known.
    public var lastUpdate: Int64?
}

public enum LibraryError: Error, Equatable, Sendable {
    /// "No such directory", "No such song", "No such file", "No file exists", …
    case notFound(String)
    /// ACK 2 text: "Malformed path", "Offset too large", "Bad file offset".
    case argument(String)
    /// ACK 54 text: "Update queue is full".
    case updateBusy(String)
    /// ACK 52 text, e.g. "Failed to open /music/x: No such file or directory".
    case system(String)
}

/// The local music library: the SQLite database, the scanner and the update jobs. All methods block (SQLite and
/// file I/O); callers run them off the event loop.
public final class MusicLibrary: Sendable {
    public let database: LibraryDatabase
    /// Absolute path of `music_directory`, without a trailing slash.
    public let musicDirectory: String
    let inspector: any AudioFileInspector
    let logger: Logger
    let announce: @Sendable (Set<Change>) -> Void
    /// The tags stored at all (`metadata_to_use`): like MPD, the scanner drops the others (by default `Comment`).
    let tagMask: TagMask
    /// Told the URIs of songs an update removed, before the `database` event (MPD then drops them from every
    /// queue: `Instance::OnDatabaseSongRemoved` → `playlist::StaleSong`).
    let songsRemoved: @Sendable ([String]) -> Void
    let updates = Mutex(UpdateQueue())
    private let pictureCache = Mutex<(uri: String, picture: InspectedFile.Picture?)?>(nil)
    /// One-level listings (`lsinfo`); folders over 1,000 records are printed from the database each time (long to
    /// print on an event loop anyway).
    private let listings = GenerationCache<String, LibraryEntry>(largest: 1000, capacity: 4000)
    /// The songs of the directories read last, each directory's in walk order (`add` of a folder, `listallinfo`):
    /// up to a full queue of them. A queue built from them shares their storage, so keeping them costs little more
    /// than the array of each directory.
    private let directorySongs = GenerationCache<Int64, Song>(largest: 16384, capacity: 16384)

    public init(database: LibraryDatabase, musicDirectory: String, inspector: any AudioFileInspector,
                logger: Logger, tagMask: TagMask = .defaultGlobal,
                announce: @escaping @Sendable (Set<Change>) -> Void = { _ in },
                songsRemoved: @escaping @Sendable ([String]) -> Void = { _ in }) {
        self.database = database
        self.tagMask = tagMask
        self.songsRemoved = songsRemoved
        var directory = musicDirectory
        while directory.count > 1, directory.hasSuffix("/") { directory.removeLast() }
        self.musicDirectory = directory
        self.inspector = inspector
        self.logger = logger
        self.announce = announce
    }

    // MARK: - URIs

    /// `""` and `"/"` are the root; otherwise a relative path without `.`/`..` segments or empty segments
    /// (`uri_safe_local`).
    static func normalize(_ uri: String) throws(LibraryError) -> String {
        if uri.isEmpty || uri == "/" { return "" }
        guard isSafeLocal(uri) else { throw .argument("Malformed path") }
        return uri
    }

    static func isSafeLocal(_ uri: String) -> Bool {
        guard !uri.hasPrefix("/"), !uri.contains("\n") else { return false }
        for segment in uri.split(separator: "/", omittingEmptySubsequences: false) {
            if segment.isEmpty || segment == "." || segment == ".." { return false }
        }
        return true
    }

    func absolutePath(_ uri: String) -> String { uri.isEmpty ? musicDirectory : musicDirectory + "/" + uri }

    static func parent(of uri: String) -> String {
        guard let slash = uri.lastIndex(of: "/") else { return "" }
        return String(uri[..<slash])
    }

    // MARK: - Browsing

    /// `lsinfo` (one level) and `listall`/`listallinfo` (recursive) of a directory, or of one song.
    public func list(uri: String, recursive: Bool) throws -> [LibraryEntry] {
        let generation = database.generation
        if !recursive, let cached = cachedListing(uri: uri) { return cached }
        var entries: [LibraryEntry] = []
        try visit(uri: uri, recursive: recursive, streaming: false) { entries.append($0); return true }
        if !recursive { listings.store(entries, for: uri == "/" ? "" : uri, generation: generation) }
        return entries
    }

    /// The one-level listing of `uri` when it is at hand without reading the database (`ListingCache`); never
    /// blocks, so the server may print it on its event loop.
    public func cachedListing(uri: String) -> [LibraryEntry]? {
        listings.value(uri == "/" ? "" : uri, generation: database.generation)
    }

    /// `list` one record at a time, in the same order, for listings too large to hold: the tree's shape
    /// (directories, playlists) is read first, then each directory's songs when the walk reaches them, so a listing
    /// of the whole library holds one directory's songs at a time. `visit` returns false to stop.
    public func visit(uri: String, recursive: Bool, _ visit: (LibraryEntry) throws -> Bool) throws {
        guard !recursive else {
            try self.visit(uri: uri, recursive: true, streaming: true, visit)
            return
        }
        // One level is small: listed whole (and kept) first.
        for entry in try list(uri: uri, recursive: false) {
            guard try visit(entry) else { return }
        }
    }

    /// `streaming` false reads all songs of a recursive listing in one pass: faster when they are all kept (`list`).
    private func visit(uri raw: String, recursive: Bool, streaming: Bool,
                       _ visit: (LibraryEntry) throws -> Bool) throws {
        // No path check here: MPD just finds nothing ("No such directory").
        let uri = raw == "/" ? "" : raw
        let generation = database.generation
        try database.writer.read { db in
            if let directory = try Self.directoryID(db, path: uri) {
                // A recursive listing starts with the directory itself (never the root).
                if recursive, !uri.isEmpty {
                    let modified = try Int64?.fetchOne(
                        db.cachedStatement(sql: "SELECT last_modified FROM directory WHERE id = ?"), arguments: [directory])
                    guard try visit(.directory(path: uri, lastModified: modified ?? nil)) else { return }
                }
                if recursive {
                    let tree = try Tree.load(db, under: uri, songs: !streaming)
                    let songs: ((Int64) throws -> [Song])? =
                        streaming ? { try self.songs(db, in: $0, generation: generation) } : nil
                    _ = try tree.walk(directory, recursive: true, songs: songs, visit)
                } else {
                    _ = try Tree.load(db, directoryID: directory).walk(directory, recursive: false, songs: nil, visit)
                }
                return
            }
            if let song = try Self.songs(db, whereSQL: "song.uri = ?", arguments: [uri]).first {
                _ = try visit(.song(song))
                return
            }
            throw LibraryError.notFound("No such directory")
        }
    }

    /// The songs `add URI` appends, in `listall` order: a directory's as the parts `directorySongs` keeps.
    public func songsForQueue(uri raw: String) throws -> SongList {
        let uri = raw == "/" ? "" : raw
        let generation = database.generation
        // A directory: its songs straight from the tree, without a listing entry per song.
        let songs: SongList? = try database.writer.read { db in
            guard let directory = try Self.directoryID(db, path: uri) else { return nil }
            // The tree's shape, then each directory's songs as the walk reaches it.
            var songs = SongList()
            try Tree.load(db, under: uri, songs: false).forEachDirectory(directory) { id in
                songs.append(try self.songs(db, in: id, generation: generation))
            }
            return songs
        }
        return try songs ?? SongList(list(uri: raw, recursive: true).compactMap(\.song))
    }

    /// The songs of one directory in walk order, kept in `directorySongs` when read at `generation` (the database's
    /// generation before the read began).
    private func songs(_ db: GRDB.Database, in directoryID: Int64, generation: UInt64) throws -> [Song] {
        if let kept = directorySongs.value(directoryID, generation: generation) { return kept }
        let songs = try Tree.songs(db, in: directoryID)
        directorySongs.store(songs, for: directoryID, generation: generation)
        return songs
    }

    /// The songs of these URIs that the database has, by URI: in one read, a thousand URIs a statement.
    public func songs(uris: [String]) throws -> [String: Song] {
        let distinct = Array(Set(uris))
        return try database.writer.read { db in
            var found: [String: Song] = [:]
            for start in stride(from: 0, to: distinct.count, by: 1000) {
                let part = distinct[start..<min(start + 1000, distinct.count)]
                let marks = repeatElement("?", count: part.count).joined(separator: ",")
                for song in try Self.songs(db, whereSQL: "song.uri IN (\(marks))", arguments: StatementArguments(part)) {
                    found[song.uri] = song
                }
            }
            return found
        }
    }

    /// One song by URI, or nil.
    public func song(uri: String) throws -> Song? {
        try database.writer.read { db in try Self.songs(db, whereSQL: "song.uri = ?", arguments: [uri]).first }
    }

    static func directoryID(_ db: GRDB.Database, path: String) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM directory WHERE path = ?"), arguments: [path])
    }

    /// Directories, songs and playlists of a part of the database, grouped by directory, walked in MPD's
    /// `Directory::Walk` order: the songs (album, disc, track, file name), the playlists, then each child directory
    /// followed (when recursive) by its contents.
    struct Tree {
        typealias Child = (id: Int64, path: String, modified: Int64?, unsorted: Int64?, rank: Int64?)
        var songs: [Int64: [Song]] = [:]
        var playlists: [Int64: [(path: String, modified: Int64?)]] = [:]
        var children: [Int64: [Child]] = [:]

        /// Everything below `path` (all of it for the root); without the songs when `songs` is false.
        static func load(_ db: GRDB.Database, under path: String, songs: Bool) throws -> Tree {
            // The folder and those below it, as ranges of the path index (`'0'` follows `'/'`): comparing a prefix
            // of every folder's path was a tenth of an `add` of a folder nothing had read.
            let filter = path.isEmpty ? "1" : "(path = ?1 OR (path >= ?1 || '/' AND path < ?1 || '0'))"
            let arguments: StatementArguments = path.isEmpty ? [] : [path]
            return try load(db, directories: "SELECT id FROM directory WHERE \(filter)", arguments: arguments,
                            songs: songs)
        }

        /// One directory level.
        static func load(_ db: GRDB.Database, directoryID: Int64) throws -> Tree {
            try load(db, directories: "SELECT ?1", arguments: [directoryID], songs: true)
        }

        /// The songs of one directory, in walk order: from its packed blob (`FolderSongs`) when it has one, else from
        /// the rows (`rowSongs`).
        static func songs(_ db: GRDB.Database, in directoryID: Int64) throws -> [Song] {
            if let packed = try FolderSongs.songs(db, in: directoryID) { return packed }
            return try rowSongs(db, in: directoryID)
        }

        /// The songs of one directory from its rows, in walk order: by their stored ranks when each has one (an
        /// unranked song sorts first, so the first row tells), else sorted by their tags.
        ///
        /// A scan stores a directory's songs together, so their ids usually form one run: then the rows are read in
        /// id order (the table's own order, one step each) and put in rank order here, which takes about a third of
        /// the time of reading them through the `song_walk` index (a lookup in the table per song).
        static func rowSongs(_ db: GRDB.Database, in directoryID: Int64) throws -> [Song] {
            var first: Int64 = 0, last: Int64 = 0, count: Int64 = 0
            try LibraryQueries.forEachRow(db, SQL(sql: """
                SELECT min(id), max(id), count(*) FROM song WHERE directory_id = ?
                """, arguments: [directoryID])) { row in
                (first, last, count) = (sqlite3_column_int64(row, 0), sqlite3_column_int64(row, 1),
                                        sqlite3_column_int64(row, 2))
            }
            guard count > 0 else { return [] }
            // Other songs inside the run are skipped; a run more than twice as long as the directory is read by rank,
            // as `loadSongs` reads folders.
            guard last - first < 2 * count else {
                return try loadSongs(db, directories: "?", arguments: [directoryID])[directoryID] ?? []
            }
            // The rows are staged as read and moved once into the answer in rank order: putting them in order with a
            // copy (`map`) retained and released every song's text and tags again (a tenth of an uncached `add`).
            let staged = MovingBuffer<Song>(capacity: Int(count))
            var ranks: [Int64] = []
            ranks.reserveCapacity(Int(count))
            var ranked = true, inOrder = true
            var formats = RecentText()
            try LibraryQueries.forEachRow(db, SQL(sql: """
                SELECT walk_rank, \(LibraryQueries.songColumns) FROM song
                WHERE id BETWEEN ?1 AND ?2 AND +directory_id = ?3
                """, arguments: [first, last, directoryID])) { row in
                guard !staged.isFull else { return }
                if sqlite3_column_type(row, 0) == SQLITE_NULL {
                    ranked = false
                } else {
                    let rank = sqlite3_column_int64(row, 0)
                    if let previous = ranks.last, previous > rank { inOrder = false }
                    ranks.append(rank)
                }
                staged.append(LibraryQueries.song(row, from: 1, formats: &formats))
            }
            if !ranked { return sortSongs(staged.take()) }
            if !inOrder { return staged.take(in: ranks.indices.sorted { ranks[$0] < ranks[$1] }) }
            return staged.take()
        }

        static func load(_ db: GRDB.Database, directories: String, arguments: StatementArguments,
                         songs withSongs: Bool) throws -> Tree {
            var tree = Tree()
            if withSongs { tree.songs = try loadSongs(db, directories: directories, arguments: arguments) }
            // Through SQLite's C API: GRDB's rows looked each column up by its name, lowercased (a tenth of an `add`
            // of a folder of 100 folders once its songs came packed).
            try LibraryQueries.forEachRow(db, SQL(sql: """
                SELECT directory_id, path, last_modified FROM db_playlist WHERE directory_id IN (\(directories))
                ORDER BY id
                """, arguments: arguments)) { row in
                tree.playlists[sqlite3_column_int64(row, 0), default: []].append(
                    (RawColumn.text(row, 1) ?? "", RawColumn.int64(row, 2)))
            }
            try LibraryQueries.forEachRow(db, SQL(sql: """
                SELECT id, parent_id, path, last_modified, unsorted, walk_rank FROM directory
                WHERE parent_id IN (\(directories))
                """, arguments: arguments)) { row in
                tree.children[sqlite3_column_int64(row, 1), default: []].append(
                    (sqlite3_column_int64(row, 0), RawColumn.text(row, 2) ?? "", RawColumn.int64(row, 3),
                     RawColumn.int64(row, 4), RawColumn.int64(row, 5)))
            }
            return tree
        }

        /// Songs with their tags (`SongTagsColumn`) by directory, each directory's in `song_cmp` order: by their
        /// stored ranks when each has one (`WalkRanks`), else by comparing their tags. Read through SQLite's C API and
        /// kept in one array per directory as read (no copy per song): `add` of a 10,000-song folder reads them all.
        static func loadSongs(_ db: GRDB.Database, directories: String, arguments: StatementArguments) throws
            -> [Int64: [Song]]
        {
            var byDirectory: [Int64: [Song]] = [:]
            var directory: Int64?
            var run: [Song] = []
            var ranked = true
            var formats = RecentText()
            func close() {
                guard let directory, !run.isEmpty else { return }
                byDirectory[directory] = ranked ? run : sortSongs(run)
                run = []
            }
            // A directory's unranked songs come first (NULL sorts first): its first row says whether all have ranks.
            try LibraryQueries.forEachRow(db, SQL(sql: """
                SELECT directory_id, walk_rank IS NOT NULL, \(LibraryQueries.songColumns) FROM song
                WHERE directory_id IN (\(directories)) ORDER BY directory_id, walk_rank
                """, arguments: arguments)) { row in
                let id = sqlite3_column_int64(row, 0)
                if id != directory {
                    close()
                    directory = id
                    ranked = sqlite3_column_int(row, 1) != 0
                }
                run.append(LibraryQueries.song(row, from: 2, formats: &formats))
            }
            close()
            return byDirectory
        }

        /// Sibling directories in walk order: by their stored ranks when each has one (`WalkRanks`), else by
        /// collation, the directories an update found since the last save last, in the order found.
        static func inWalkOrder(_ children: [Child]) -> [Child] {
            if children.allSatisfy({ $0.rank != nil }) { return children.sorted { $0.rank! < $1.rank! } }
            return children.map { ($0, CollationKey($0.path)) }.sorted { a, b in
                switch (a.0.unsorted, b.0.unsorted) {
                case (nil, nil): a.1 < b.1
                case (nil, _): true
                case (_, nil): false
                case (let x?, let y?): x < y
                }
            }.map(\.0)
        }

        /// Directory `id` and (recursively) its children, in walk order.
        func forEachDirectory(_ id: Int64, _ body: (Int64) throws -> Void) rethrows {
            try body(id)
            for child in Self.inWalkOrder(children[id] ?? []) { try forEachDirectory(child.id, body) }
        }

        /// Visits directory `id` in MPD's `Directory::Walk` order, its songs from `songs` when given (read as the
        /// walk reaches each directory), else from the tree. Returns false when `visit` stopped it.
        func walk(_ id: Int64, recursive: Bool, songs load: ((Int64) throws -> [Song])?,
                  _ visit: (LibraryEntry) throws -> Bool) throws -> Bool {
            for song in try load?(id) ?? songs[id] ?? [] {
                guard try visit(.song(song)) else { return false }
            }
            // Playlists in the order the scans found them (MPD's `Directory::Sort` leaves them unsorted: the order
            // of the directory as the file system lists it, later ones after).
            for playlist in self.playlists[id] ?? [] {
                guard try visit(.playlist(path: playlist.path, lastModified: playlist.modified)) else { return false }
            }
            for child in Self.inWalkOrder(self.children[id] ?? []) {
                guard try visit(.directory(path: child.path, lastModified: child.modified)) else { return false }
                if recursive, try !walk(child.id, recursive: true, songs: load, visit) { return false }
            }
            return true
        }
    }

    /// Loads songs with their tags in stored order.
    static func songs(_ db: GRDB.Database, whereSQL: String, arguments: StatementArguments) throws -> [Song] {
        var songs: [Song] = []
        var formats = RecentText()
        try LibraryQueries.forEachRow(db, SQL(sql: """
            SELECT \(LibraryQueries.songColumns) FROM song WHERE \(whereSQL)
            """, arguments: arguments)) { row in
            songs.append(LibraryQueries.song(row, from: 0, formats: &formats))
        }
        return songs
    }

    /// `IcuCollate(a, b) < 0`, approximated by `CollationKey`.
    static func collate(_ a: String, _ b: String) -> Bool { CollationKey(a) < CollationKey(b) }

    /// One directory's songs in `song_cmp` order (`WalkOrder.songOrder`), from their tags.
    static func sortSongs(_ songs: [Song]) -> [Song] {
        func value(_ song: Song, _ name: String) -> String? { song.packedTags.first(named: name) }
        let entries = songs.enumerated().map { index, song in
            WalkOrder.Entry(id: Int64(index), directory: nil, album: value(song, "Album"),
                            disc: WalkOrder.number(value(song, "Disc")), track: WalkOrder.number(value(song, "Track")),
                            uri: song.uri)
        }
        return WalkOrder.songOrder(entries).map { songs[$0] }
    }

    // MARK: - Stats

    /// MPD's `stats` database part: distinct Artist values, distinct Album values, songs, total duration.
    public func stats() throws -> LibraryStats {
        try database.writer.read { db in
            let artists = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(DISTINCT value) FROM song_tag WHERE tag = ?"),
                                           arguments: [TagName.artist.rawValue]) ?? 0
            let albums = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(DISTINCT value) FROM song_tag WHERE tag = ?"),
                                          arguments: [TagName.album.rawValue]) ?? 0
            let songs = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM song")) ?? 0
            let playtime = try Double.fetchOne(db.cachedStatement(sql: "SELECT TOTAL(duration) FROM song")) ?? 0
            let update = try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE key = 'db_update'"))
            return LibraryStats(artists: artists, albums: albums, songs: songs, playtime: Int64(saturating: playtime),
                                lastUpdate: update.flatMap { Int64($0) })
        }
    }

    /// Whether no local song is known: MPD updates an empty database at start-up, and remote collections (synced on
    /// their own) do not make the music directory scanned.
    public var isEmpty: Bool {
        get throws {
            try database.writer.read { db in
                try Bool.fetchOne(db.cachedStatement(sql: "SELECT NOT EXISTS(SELECT 1 FROM song WHERE source = 'local')")) ?? true
            }
        }
    }

    // MARK: - Files

    /// `listfiles`: the raw directory listing of the music directory (every regular file and directory).
    public func listFiles(uri raw: String) throws -> [StorageEntry] {
        let uri = try Self.normalize(raw)
        let path = absolutePath(uri)
        guard let directory = opendir(path) else {
            throw LibraryError.system("Failed to open \(path): \(String(cString: strerror(errno)))")
        }
        closedir(directory)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else {
            throw LibraryError.notFound("No such directory")
        }
        var entries: [StorageEntry] = []
        for name in names where !name.contains("\n") {
            var child = stat()
            guard stat(path + "/" + name, &child) == 0 else { continue }
            let type = child.st_mode & S_IFMT
            guard type == S_IFREG || type == S_IFDIR else { continue }
            entries.append(StorageEntry(name: name, isDirectory: type == S_IFDIR,
                                        size: type == S_IFREG ? Int64(child.st_size) : 0,
                                        lastModified: Int64(child.st_mtim.tv_sec)))
        }
        return entries
    }

    /// The cover file for a song's directory: MPD 0.23's `cover.png`, `cover.jpg`, `cover.webp`, then the common
    /// `folder.*`/`front.*` names. Returns the whole file (covers are small).
    /// A URI that ends with a slash names a folder (Cantata's `albumart "Artist/Album/" 0`): MPD up to 0.24.10
    /// took the parent of `<music>/Artist/Album/`, which is that folder.
    public func albumArt(uri raw: String) throws -> [UInt8] {
        guard !raw.contains("://"), !raw.hasPrefix("/") else { throw LibraryError.notFound("No file exists") }
        let folder = raw.hasSuffix("/")
        let uri = try Self.normalize(folder ? String(raw.dropLast()) : raw)
        let directory = absolutePath(folder ? uri : Self.parent(of: uri))
        for name in Self.coverNames {
            if let data = FileManager.default.contents(atPath: directory + "/" + name) { return Array(data) }
        }
        throw LibraryError.notFound("No file exists")
    }

    static let coverNames = ["cover.png", "cover.jpg", "cover.webp", "folder.png", "folder.jpg", "front.png",
                             "front.jpg"]

    /// The file of a song in the database; MPD answers "No such song" for anything else.
    func pathOfSong(_ uri: String) throws -> String {
        let known = try database.writer.read { db in
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS(SELECT 1 FROM song WHERE uri = ?)"), arguments: [uri]) ?? false
        }
        guard known else { throw LibraryError.notFound("No such song") }
        return absolutePath(uri)
    }

    /// The first embedded picture of a song file, or nil. The last one read is cached, so chunked reads are cheap.
    public func picture(uri raw: String) throws -> InspectedFile.Picture? {
        let uri = try Self.normalize(raw)
        if let cached = pictureCache.withLock({ $0 }), cached.uri == uri { return cached.picture }
        let path = try pathOfSong(uri)
        let picture: InspectedFile.Picture?
        do {
            picture = try inspector.inspect(path: path, includePicture: true).picture
        } catch {
            throw LibraryError.notFound("Failed to load file")
        }
        pictureCache.withLock { $0 = (uri, picture) }
        return picture
    }

    /// `readcomments`: the file's raw metadata pairs whose key is a valid name (`IsValidName`) and whose value
    /// has no control characters.
    public func comments(uri raw: String) throws -> [(key: String, value: String)] {
        let uri = try Self.normalize(raw)
        let path = try pathOfSong(uri)
        let file: InspectedFile
        do {
            file = try inspector.inspect(path: path, includePicture: false)
        } catch {
            throw LibraryError.notFound("Failed to load file")
        }
        return file.comments.filter { pair in
            guard let first = pair.key.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else {
                return false
            }
            let keyOK = pair.key.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || $0 == "_" || $0 == "-")
            }
            return keyOK && !pair.value.unicodeScalars.contains { $0.value < 0x20 }
        }
    }
}
