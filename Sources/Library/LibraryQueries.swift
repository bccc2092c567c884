import GRDB
import MPDProtocol
import PlayerCore
import ServerPorts

/// The database queries of the protocol (`find`, `search`, `count`, `list` …) over the library's SQLite file.
/// Filters become SQL (`FilterSQL`); MPD's walk order, `sort` and `window` are applied in Swift on the matching
/// rows, then only the songs to print are loaded. Errors are thrown as the ACKs MPD answers.
public final class LibraryQueries: Sendable {
    let writer: any DatabaseWriter
    /// The database's commit count, when known: `find`/`search` results are then kept while it holds.
    private let generation: (@Sendable () -> UInt64)?
    /// Results of up to 1,000 songs, 8,000 songs in all.
    private let results = GenerationCache<FilterQuery, Song>(largest: 1000, capacity: 8000)

    public init(writer: any DatabaseWriter) {
        self.writer = writer
        generation = nil
    }

    public init(_ database: LibraryDatabase) {
        writer = database.writer
        generation = { database.generation }
    }

    /// The songs of `query` when a search just like it was answered since the database last changed; never blocks,
    /// so the server may print them on its event loop.
    public func cachedSongs(matching query: FilterQuery) -> [Song]? {
        guard let generation else { return nil }
        return results.value(query, generation: generation())
    }

    /// Compiles a `=~` pattern as the filter parser's `validateRegex` hook.
    public func validateRegex(_ pattern: String, caseless: Bool) throws(PortError) {
        try FilterFunctions.validate(pattern, caseless: caseless)
    }

    // MARK: find / search

    /// `find` / `search`: the matching songs in MPD's database order, or sorted (stable) by `query.sort`, then cut to
    /// `query.window`.
    public func songs(matching query: FilterQuery) async throws -> [Song] {
        try await read { db in
            try Self.checkBase(query.expression, db)
            let ids = try Self.ordered(query, db).map(\.id)
            return try Self.loadSongs(ids, db)
        }
    }

    /// `songs(matching:)` 500 songs at a time, for results too large to hold: `visit` returns false to stop.
    /// A small result is kept for `cachedSongs`.
    public func visitSongs(matching query: FilterQuery, _ visit: @escaping @Sendable (Song) -> Bool) async throws {
        let before = generation?()
        let results = self.results
        try await read { db in
            try Self.checkBase(query.expression, db)
            let ids = try Self.ordered(query, db).map(\.id)
            let keep = before != nil && ids.count <= results.largest
            var kept: [Song] = []
            for start in stride(from: 0, to: ids.count, by: 500) {
                for song in try Self.loadSongs(Array(ids[start..<min(start + 500, ids.count)]), db) {
                    if keep { kept.append(song) }
                    guard visit(song) else { return }
                }
            }
            if keep, let before { results.store(kept, for: query, generation: before) }
        }
    }

    /// `list file`: the URIs of the matching songs in database order.
    public func uris(matching expression: FilterExpression?) async throws -> [String] {
        try await read { db in
            let expression = expression ?? .and([])
            try Self.checkBase(expression, db)
            let uris = try Self.ordered(FilterQuery(expression: expression), db).map(\.uri)
            return uris
        }
    }

    // MARK: count

    /// `count` / `searchcount`: one row (`group` nil) with the number of songs and the total play time in whole
    /// seconds, or one row per value of the group tag (with fallbacks; `""` for songs without it), sorted bytewise.
    /// A song with several values counts once for each.
    public func count(_ query: CountQuery) async throws -> [(group: String?, songs: Int, playtime: Int)] {
        try await read { db in
            try Self.checkBase(query.expression, db)
            let filter = FilterSQL.translate(query.expression)
            guard let group = query.group else {
                let row = try Row.fetchOne(db, SQLRequest<Row>(literal: filter.withClause + SQL("""
                    SELECT count(*), coalesce(sum(CASE WHEN s.duration >= 0 THEN CAST(s.duration * 1000 AS INTEGER) \
                    ELSE 0 END), 0) FROM song s WHERE 
                    """) + filter.condition))!
                let songs: Int = row[0]
                let millis: Int64 = row[1]
                return [(nil, songs, Int(millis / 1000))]
            }
            return try Self.groupCounts(group, expression: query.expression, db).map { row in
                (group: row.value, songs: row.songs, playtime: Int(row.milliseconds / 1000))
            }
        }
    }

    // MARK: list

    /// `list TAG [FILTER] [group G]…`: the distinct value tuples, outermost group first and the listed tag last,
    /// sorted bytewise level by level (MPD's `RecursiveMap<std::string>`). Songs without a tag contribute `""`.
    public func list(_ query: ListQuery) async throws -> [[String]] {
        guard let tag = query.tag else {
            return try await uris(matching: query.expression).map { [$0] }
        }
        return try await read { db in
            let expression = query.expression ?? .and([])
            try Self.checkBase(expression, db)
            return try Self.groupedValues(query.groups + [tag], expression: expression, db)
        }
    }

    // MARK: lookups

    /// Whether a song with this URI is in the database (sticker commands need one).
    public func songExists(uri: String) async throws -> Bool {
        try await read { db in try Bool.fetchOne(db, sql: "SELECT 1 FROM song WHERE uri = ?", arguments: [uri]) ?? false }
    }

    // MARK: internals

    /// The queries' own schema additions, registered after the library's migrations.
    /// `(tag, song_id)` answers "which songs have tag T" (the empty-value rule, fallbacks, `list` and `count` of
    /// songs without a tag) from the index alone; on 100,000 songs it makes `list artist` about three times faster.
    static func registerMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("queries-v1-tag-presence-index") { db in
            try db.execute(sql: "CREATE INDEX song_tag_presence ON song_tag(tag, song_id)")
        }
    }

    /// Whether an expression matches every song, so the queries can skip the filter.
    static func matchesEverything(_ expression: FilterExpression?) -> Bool {
        guard let expression else { return true }
        if case .and(let items) = expression { return items.allSatisfy(matchesEverything) }
        return false
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        // The filter's SQL functions are registered once per connection (`LibraryDatabase`): registering a function
        // expires every prepared statement of the connection.
        try await writer.read { db in try body(db) }
    }

    /// MPD visits the selection's base directory first and fails when it is neither a directory nor a song.
    static func checkBase(_ expression: FilterExpression, _ db: Database) throws {
        guard let base = FilterSQL.selectionBase(expression), !base.isEmpty else { return }
        let exists = try Bool.fetchOne(db.cachedStatement(sql: """
            SELECT EXISTS (SELECT 1 FROM directory WHERE path = ?) OR EXISTS (SELECT 1 FROM song WHERE uri = ?)
                OR EXISTS (SELECT 1 FROM remote_directory WHERE path = ?)
            """), arguments: [base, base, base]) ?? false
        guard exists else { throw PortError.notFound("No such directory") }
    }

    /// The chain `Tag::GetSortValue` follows: the filter's fallback chain, plus the album-artist id falling back
    /// to the artist id.
    static func sortChain(_ tag: TagName) -> [TagName] {
        tag == .musicBrainzAlbumArtistID ? [tag, .musicBrainzArtistID] : FilterSQL.filterChain(tag)
    }

    private static func firstValue(_ tag: TagName) -> String {
        "(SELECT value FROM song_tag WHERE song_id = s.id AND +tag = \(tag.rawValue) ORDER BY position LIMIT 1)"
    }

    /// The matching songs (id and URI) in MPD's walk order, stably sorted by the sort key, cut to the window.
    static func ordered(_ query: FilterQuery, _ db: Database) throws -> [(id: Int64, uri: String)] {
        var sortColumn = "NULL"
        switch query.sort?.key {
        case .tag(let tag)?:
            sortColumn = "coalesce(" + sortChain(tag).map(firstValue).joined(separator: ", ") + ", '')"
        case .lastModified?: sortColumn = "coalesce(s.last_modified, 0)"
        case .added?: sortColumn = "coalesce(s.added, 0)"
        case .priority?, nil: break
        }
        let filter = FilterSQL.translate(query.expression)
        let sql = filter.withClause + SQL(sql: """
            SELECT s.id, s.uri, d.path, \(sortColumn) FROM song s LEFT JOIN directory d ON d.id = s.directory_id WHERE 
            """) + filter.condition
        var entries: [(id: Int64, entry: WalkOrder.Entry, sort: DatabaseValue)] = []
        var perDirectory: [String: Int] = [:]
        let cursor = try Row.fetchCursor(db, SQLRequest<Row>(literal: sql, cached: true))
        while let row = try cursor.next() {
            let directory: String? = row[2]
            if let directory { perDirectory[directory, default: 0] += 1 }
            entries.append((row[0], WalkOrder.Entry(id: row[0], directory: directory, album: nil, disc: 0, track: 0,
                                                    uri: row[1]), row[3]))
        }
        // `song_cmp` needs album, disc and track only where two matches share a directory.
        var index: [Int64: Int] = [:]
        for (i, entry) in entries.enumerated() where (entry.entry.directory.flatMap { perDirectory[$0] } ?? 0) > 1 {
            index[entry.id] = i
        }
        if !index.isEmpty {
            let tags = "\(TagName.album.rawValue), \(TagName.disc.rawValue), \(TagName.track.rawValue)"
            // The first value (lowest position) of each tag. A large share of the library is read in one pass over
            // the `(tag, song_id)` index; a few songs by id.
            var first: [Int64: (position: Int, value: String)] = [:]
            func collect(_ sql: String, _ chunk: String? = nil) throws {
                let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: chunk.map { [$0] } ?? [])
                while let row = try rows.next() {
                    let id: Int64 = row[0]
                    guard index[id] != nil else { continue }
                    let key = id &* 64 &+ (row[1] as Int64)
                    let position: Int = row[2]
                    if let existing = first[key], existing.position <= position { continue }
                    first[key] = (position, row[3])
                }
            }
            if index.count > 5000 {
                try collect("SELECT song_id, tag, position, value FROM song_tag WHERE tag IN (\(tags))")
            } else {
                // By key, song by song (`+tag` keeps SQLite off the `(tag, value)` index, which would read every
                // album, disc and track row of the library).
                for chunk in chunks(Array(index.keys)) {
                    try collect("SELECT song_id, tag, position, value FROM song_tag WHERE song_id IN (SELECT value FROM json_each(?)) AND +tag IN (\(tags))", chunk)
                }
            }
            for (key, entry) in first {
                guard let i = index[key >> 6] else { continue }
                switch Int(key & 63) {
                case TagName.album.rawValue: entries[i].entry.album = entry.value
                case TagName.disc.rawValue: entries[i].entry.disc = WalkOrder.number(entry.value)
                default: entries[i].entry.track = WalkOrder.number(entry.value)
                }
            }
        }
        var unsorted: [String: Int64] = [:]
        if !entries.isEmpty {
            for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT path, unsorted FROM directory WHERE unsorted IS NOT NULL")) {
                unsorted[row[0]] = row[1]
            }
        }
        WalkOrder.sort(&entries, unsorted: unsorted) { $0.entry }

        if let sort = query.sort {
            let descending = sort.descending
            var indexed = Array(entries.enumerated())
            switch sort.key {
            case .tag(let tag) where tag == .track || tag == .disc:
                let numbers = entries.map { WalkOrder.number(String.fromDatabaseValue($0.sort)) }
                indexed.sort { a, b in
                    let (x, y) = descending ? (numbers[b.offset], numbers[a.offset]) : (numbers[a.offset], numbers[b.offset])
                    return x != y ? x < y : a.offset < b.offset
                }
            case .tag:
                let values = entries.map { Array((String.fromDatabaseValue($0.sort) ?? "").utf8) }
                indexed.sort { a, b in
                    let (x, y) = descending ? (values[b.offset], values[a.offset]) : (values[a.offset], values[b.offset])
                    return x != y ? x.lexicographicallyPrecedes(y) : a.offset < b.offset
                }
            case .lastModified, .added:
                let times = entries.map { Int64.fromDatabaseValue($0.sort) ?? 0 }
                indexed.sort { a, b in
                    let (x, y) = (times[a.offset], times[b.offset])
                    if x != y { return descending ? x > y : x < y }
                    return a.offset < b.offset
                }
            case .priority:
                break
            }
            entries = indexed.map(\.element)
        }

        var ids = entries.map { (id: $0.id, uri: $0.entry.uri) }
        if let window = query.window {
            let start = min(window.start, ids.count)
            let end = min(window.end ?? ids.count, ids.count)
            ids = start < end ? Array(ids[start..<end]) : []
        }
        return ids
    }

    /// Ids in JSON arrays of at most 500, each bound as one argument of `IN (SELECT value FROM json_each(?))`: the
    /// statement's text stays the same whatever the ids, so each connection prepares it once (`cachedStatement`).
    static func chunks(_ ids: [Int64]) -> [String] {
        stride(from: 0, to: ids.count, by: 500).map { start in
            "[" + ids[start..<min(start + 500, ids.count)].map(String.init).joined(separator: ",") + "]"
        }
    }

    /// Loads full songs (tags in their stored order) for the ids, keeping the order of `ids`.
    static func loadSongs(_ ids: [Int64], _ db: Database) throws -> [Song] {
        let songs = try songsByID(ids, db)
        return ids.compactMap { songs[$0] }
    }

    /// Full songs (tags in their stored order) by id.
    static func songsByID(_ ids: [Int64], _ db: Database) throws -> [Int64: Song] {
        if ids.count > 5000 {
            // A large share of the library: two passes in index order beat hundreds of `IN (…)` lookups.
            var songs: [Int64: Song] = Dictionary(minimumCapacity: ids.count)
            for id in ids { songs[id] = Song(uri: "") }
            let rows = try Row.fetchCursor(db, sql: "SELECT id, uri, duration, last_modified, added, audio_format FROM song")
            while let row = try rows.next() {
                let id: Int64 = row[0]
                guard songs[id] != nil else { continue }
                songs[id] = Song(uri: row[1], duration: row[2], lastModified: row[3], added: row[4], audioFormat: row[5])
            }
            let tags = try Row.fetchCursor(db, sql: "SELECT song_id, tag, value FROM song_tag ORDER BY song_id, position")
            while let row = try tags.next() {
                let id: Int64 = row[0]
                guard songs[id] != nil, let tag = TagName(rawValue: row[1]) else { continue }
                songs[id]!.tags.append(Song.Tag(tag.mpdName, row[2]))
            }
            return songs
        }
        var songs: [Int64: Song] = Dictionary(minimumCapacity: ids.count)
        for chunk in chunks(ids) {
            let rows = try Row.fetchCursor(db.cachedStatement(sql: """
                SELECT id, uri, duration, last_modified, added, audio_format FROM song \
                WHERE id IN (SELECT value FROM json_each(?))
                """), arguments: [chunk])
            while let row = try rows.next() {
                songs[row[0]] = Song(uri: row[1], duration: row[2], lastModified: row[3], added: row[4], audioFormat: row[5])
            }
            let tags = try Row.fetchCursor(db.cachedStatement(sql: """
                SELECT song_id, tag, value FROM song_tag WHERE song_id IN (SELECT value FROM json_each(?)) \
                ORDER BY song_id, position
                """), arguments: [chunk])
            while let row = try tags.next() {
                let id: Int64 = row[0]
                guard let tag = TagName(rawValue: row[1]) else { continue }
                songs[id]?.tags.append(Song.Tag(tag.mpdName, row[2]))
            }
        }
        return songs
    }
}
