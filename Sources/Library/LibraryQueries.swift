import GRDB
import GRDBSQLite
import Glibc
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
    /// `list` answers of up to 10,000 rows, 40,000 rows in all: album views ask for the same `list album group
    /// albumartist` on every visit.
    private let lists = GenerationCache<ListQuery, [String]>(largest: 10000, capacity: 40000)

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

    /// The rows of `query` when a `list` just like it was answered since the database last changed.
    public func cachedList(_ query: ListQuery) -> [[String]]? {
        guard let generation else { return nil }
        return lists.value(query, generation: generation())
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
            let uris = try Self.ordered(FilterQuery(expression: expression), db, withURIs: true).map(\.uri)
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
        let before = generation?()
        if let before, let kept = lists.value(query, generation: before) { return kept }
        let rows = try await read { db in
            let expression = query.expression ?? .and([])
            try Self.checkBase(expression, db)
            return try Self.groupedValues(query.groups + [tag], expression: expression, db)
        }
        if let before, rows.count <= lists.largest { lists.store(rows, for: query, generation: before) }
        return rows
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
        tag == .musicBrainzAlbumArtistID ? [tag, .musicBrainzArtistID] : tag.filterChain
    }

    /// The matching songs (id, and URI when `withURIs`, else "") in MPD's walk order, stably sorted by the sort key,
    /// cut to the window.
    static func ordered(_ query: FilterQuery, _ db: Database, withURIs: Bool = false) throws
        -> [(id: Int64, uri: String)]
    {
        // Times are read with the matches; tag values after, for the matches only (`firstTagValues`).
        var sortColumn = "NULL"
        switch query.sort?.key {
        case .lastModified?: sortColumn = "coalesce(s.last_modified, 0)"
        case .added?: sortColumn = "coalesce(s.added, 0)"
        case .tag?, .priority?, nil: break
        }
        let filter = FilterSQL.translate(query.expression)
        // Parallel columns of the matches, and `order`, their walk order (positions in the columns).
        var ids: [Int64] = []
        var uris: [String] = []
        var sorts: [DatabaseValue] = []
        var order: [Int]
        if try WalkRanks.complete(db) {
            if query.sort == nil, let window = query.window, let end = window.end,
               !FilterSQL.narrows(query.expression.optimized()) {
                let first = try firstInWalkOrder(filter, count: end, withURIs: withURIs, db)
                return window.start < first.count ? Array(first[window.start...]) : []
            }
            // The stored walk order: directory rank, then song rank; songs outside the tree last, by id. Read
            // through SQLite's C API (no row objects, no strings but the URIs asked for).
            var keys: [UInt64] = []
            try forEachRow(db, filter.withClause + SQL(sql: """
                SELECT s.id, \(withURIs ? "s.uri" : "NULL"), \(sortColumn), d.walk_rank, s.walk_rank
                FROM song s LEFT JOIN directory d ON d.id = s.directory_id WHERE 
                """) + filter.condition) { row in
                ids.append(sqlite3_column_int64(row, 0))
                if withURIs { uris.append(RawColumn.text(row, 1) ?? "") }
                if query.sort != nil { sorts.append(DatabaseValue(sqliteStatement: row, index: 2)) }
                keys.append(sqlite3_column_type(row, 3) == SQLITE_NULL ? UInt64.max
                    : UInt64(truncatingIfNeeded: sqlite3_column_int64(row, 3)) << 32
                        | UInt64(truncatingIfNeeded: sqlite3_column_int64(row, 4)) & 0xFFFF_FFFF)
            }
            order = ids.indices.sorted { keys[$0] != keys[$1] ? keys[$0] < keys[$1] : ids[$0] < ids[$1] }
        } else {
            var entries: [(id: Int64, entry: WalkOrder.Entry, sort: DatabaseValue)] = []
            try readInWalkOrder(&entries, filter: filter, sortColumn: sortColumn, db)
            ids = entries.map(\.id)
            uris = withURIs ? entries.map(\.entry.uri) : []
            sorts = entries.map(\.sort)
            order = Array(ids.indices)
        }

        if let sort = query.sort {
            // Stable: ties keep the walk order (their positions in `order`).
            let descending = sort.descending
            var positions = Array(order.indices)
            switch sort.key {
            case .tag(let tag):
                // `Tag::GetSortValue`: the first value of the first tag of the chain the song has, else "".
                let chain = try firstTagValues(sortChain(tag), of: ids, db)
                let values = order.map { index in chain.lazy.compactMap { $0[index] }.first ?? "" }
                if tag == .track || tag == .disc {
                    let numbers = values.map { WalkOrder.number($0) }
                    positions.sort { a, b in
                        let (x, y) = descending ? (numbers[b], numbers[a]) : (numbers[a], numbers[b])
                        return x != y ? x < y : a < b
                    }
                } else {
                    // Bytewise, as `strcmp`.
                    positions.sort { a, b in
                        let (x, y) = descending ? (values[b], values[a]) : (values[a], values[b])
                        let order = Self.compareBytes(x, y)
                        return order != 0 ? order < 0 : a < b
                    }
                }
            case .lastModified, .added:
                let times = order.map { Int64.fromDatabaseValue(sorts[$0]) ?? 0 }
                positions.sort { a, b in
                    let (x, y) = (times[a], times[b])
                    if x != y { return descending ? x > y : x < y }
                    return a < b
                }
            case .priority:
                break
            }
            order = positions.map { order[$0] }
        }

        if let window = query.window {
            let start = min(window.start, order.count)
            let end = min(window.end ?? order.count, order.count)
            order = start < end ? Array(order[start..<end]) : []
        }
        return order.map { (id: ids[$0], uri: withURIs ? uris[$0] : "") }
    }

    /// The first `count` matches in walk order, read by a scan that follows the walk (directories by rank, each
    /// one's songs by rank; songs outside the tree after, by id) and stops there, as MPD's walk stops at a window's
    /// end. For filters no index narrows: a negation over 100k songs took 75 ms for its first 15 songs (MPD 10 ms).
    static func firstInWalkOrder(_ filter: FilterSQL.Translation, count: Int, withURIs: Bool, _ db: Database) throws
        -> [(id: Int64, uri: String)]
    {
        var found: [(id: Int64, uri: String)] = []
        let columns = withURIs ? "s.id, s.uri" : "s.id, NULL"
        func collect(_ sql: SQL) throws {
            try forEachRow(db, sql) { row in
                found.append((sqlite3_column_int64(row, 0), withURIs ? RawColumn.text(row, 1) ?? "" : ""))
            }
        }
        // `CROSS JOIN` and `INDEXED BY` keep SQLite on the walk: its planner would otherwise read every song and sort.
        try collect(filter.withClause + SQL(sql: """
            SELECT \(columns) FROM directory d INDEXED BY directory_walk CROSS JOIN song s INDEXED BY song_walk
                ON s.directory_id = d.id WHERE (
            """) + filter.condition + SQL(sql: ") ORDER BY d.walk_rank, d.id, s.walk_rank LIMIT \(count)"))
        if found.count < count {
            try collect(filter.withClause + SQL(sql: "SELECT \(columns) FROM song s WHERE s.directory_id IS NULL AND (")
                + filter.condition + SQL(sql: ") ORDER BY s.id LIMIT \(count - found.count)"))
        }
        return found
    }

    /// The matches in walk order without stored ranks (an update is writing them): `song_cmp` over the tags of the
    /// matches that share a directory, directories by collation.
    private static func readInWalkOrder(_ entries: inout [(id: Int64, entry: WalkOrder.Entry, sort: DatabaseValue)],
                                        filter: FilterSQL.Translation, sortColumn: String, _ db: Database) throws {
        let sql = filter.withClause + SQL(sql: """
            SELECT s.id, s.uri, d.path, \(sortColumn) FROM song s LEFT JOIN directory d ON d.id = s.directory_id WHERE 
            """) + filter.condition
        var perDirectory: [String: Int] = [:]
        let cursor = try Row.fetchCursor(db, SQLRequest<Row>(literal: sql, cached: true))
        while let row = try cursor.next() {
            let directory: String? = row[2]
            if let directory { perDirectory[directory, default: 0] += 1 }
            entries.append((row[0], WalkOrder.Entry(id: row[0], directory: directory, album: nil, disc: 0, track: 0,
                                                    uri: row[1]), row[3]))
        }
        // `song_cmp` needs album, disc and track only where two matches share a directory.
        let shared = entries.indices.filter { (entries[$0].entry.directory.flatMap { perDirectory[$0] } ?? 0) > 1 }
        for (i, values) in zip(shared, try songOrderTags(shared.map { entries[$0].id }, db)) {
            entries[i].entry.album = values.album
            entries[i].entry.disc = values.disc
            entries[i].entry.track = values.track
        }
        var unsorted: [String: Int64] = [:]
        if !entries.isEmpty {
            for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT path, unsorted FROM directory WHERE unsorted IS NOT NULL")) {
                unsorted[row[0]] = row[1]
            }
        }
        WalkOrder.sort(&entries, unsorted: unsorted) { $0.entry }
    }

    /// What `song_cmp` compares besides the file name: each song's first Album value, and its first Disc and Track
    /// values as numbers, in the order of `ids`.
    static func songOrderTags(_ ids: [Int64], _ db: Database) throws -> [(album: String?, disc: Int, track: Int)] {
        let first = try firstTagValues([.album, .disc, .track], of: ids, db)
        return ids.indices.map { (first[0][$0], WalkOrder.number(first[1][$0]), WalkOrder.number(first[2][$0])) }
    }

    /// The first value (lowest position) of each of `tags` that each song of `ids` has: one column per tag, in the
    /// order of `ids`. A large share of the library is read in one pass over the `(tag, value)` index (a correlated
    /// lookup per song took 300 ms on 100,000 songs); a few songs by id.
    static func firstTagValues(_ tags: [TagName], of ids: [Int64], _ db: Database) throws -> [[String?]] {
        var values = [[String?]](repeating: [String?](repeating: nil, count: ids.count), count: tags.count)
        guard !ids.isEmpty, !tags.isEmpty else { return values }
        var positions = [[Int32]](repeating: [Int32](repeating: .max, count: ids.count), count: tags.count)
        let column = Dictionary(uniqueKeysWithValues: tags.enumerated().map { (Int32($0.element.rawValue), $0.offset) })
        let index = SongIndex(ids)
        let list = tags.map { String($0.rawValue) }.joined(separator: ", ")
        func collect(_ sql: String, _ arguments: StatementArguments) throws {
            try forEachRow(db, SQL(sql: sql, arguments: arguments)) { row in
                guard let song = index[sqlite3_column_int64(row, 0)],
                      let tag = column[sqlite3_column_int(row, 1)] else { return }
                let position = sqlite3_column_int(row, 2)
                guard position < positions[tag][song] else { return }
                positions[tag][song] = position
                values[tag][song] = RawColumn.text(row, 3) ?? ""
            }
        }
        if ids.count > 5000 {
            try collect("SELECT song_id, tag, position, value FROM song_tag WHERE tag IN (\(list))", [])
        } else {
            // By key, song by song (`+tag` keeps SQLite off the `(tag, value)` index, which would read every row
            // of these tags in the library).
            for chunk in chunks(ids) {
                try collect("""
                    SELECT song_id, tag, position, value FROM song_tag
                    WHERE song_id IN (SELECT value FROM json_each(?)) AND +tag IN (\(list))
                    """, [chunk])
            }
        }
        return values
    }

    /// `strcmp` of two strings' UTF-8 bytes.
    static func compareBytes(_ a: String, _ b: String) -> Int {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let common = min(x.count, y.count)
                let order = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
                return order != 0 ? Int(order) : x.count - y.count
            }
        }
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
        var songs: [Int64: Song] = Dictionary(minimumCapacity: ids.count)
        if ids.count > 5000 {
            // A large share of the library: one pass in key order beats hundreds of `IN (…)` lookups.
            let wanted = Set(ids)
            try forEachRow(db, SQL(sql: "SELECT id, \(songColumns) FROM song")) { row in
                let id = sqlite3_column_int64(row, 0)
                if wanted.contains(id) { songs[id] = song(row, from: 1) }
            }
            return songs
        }
        for chunk in chunks(ids) {
            try forEachRow(db, SQL(sql: """
                SELECT id, \(songColumns) FROM song WHERE id IN (SELECT value FROM json_each(?))
                """, arguments: [chunk])) { row in
                songs[sqlite3_column_int64(row, 0)] = song(row, from: 1)
            }
        }
        return songs
    }

    /// The columns `song(_:from:)` reads, in its order.
    static let songColumns = "uri, duration, last_modified, added, audio_format, tags, has_playlist"

    /// A song from the `songColumns` of the current row, starting at column `first`.
    static func song(_ row: OpaquePointer, from first: Int32) -> Song {
        var formats = RecentText()
        return song(row, from: first, formats: &formats)
    }

    /// `song(_:from:)` over consecutive rows, their audio formats decoded once while they repeat.
    static func song(_ row: OpaquePointer, from first: Int32, formats: inout RecentText) -> Song {
        var song = Song(uri: RawColumn.text(row, first) ?? "", packedTags: SongTagsColumn.decode(row, first + 5),
                        duration: RawColumn.double(row, first + 1), lastModified: RawColumn.int64(row, first + 2),
                        added: RawColumn.int64(row, first + 3), audioFormat: formats.text(row, first + 4))
        song.hasPlaylist = sqlite3_column_int(row, first + 6) != 0
        return song
    }
}
