import GRDB
import Glibc
import GRDBSQLite
import MPDProtocol

extension LibraryQueries {
    /// `list TAG [group G…]`: every song's value tuple (one value set per level: the values of
    /// the first tag of the level's fallback chain the song has, or `""`; a song with several values gives each
    /// combination), distinct and sorted bytewise level by level.
    ///
    /// Built in one pass over the rows of the tags involved rather than by joining one value relation per level
    /// in SQL: SQLite had to materialise and index each relation and sort the join, five times MPD's time on a
    /// large library. The rows come from the `(tag, value)` index (or by key for a few filtered songs) through
    /// SQLite's C API; values are interned once per run of equal values, so songs and tuples are plain integers
    /// until the distinct tuples are sorted.
    static func groupedValues(_ levels: [TagName], expression: FilterExpression, _ db: Database) throws -> [[String]] {
        let chains = levels.map(FilterSQL.filterChain)
        /// For each tag id, the (level, rank in that level's chain) pairs it feeds.
        var feeds = [[(level: Int, rank: UInt8)]](repeating: [], count: TagName.allCases.count)
        for (level, chain) in chains.enumerated() {
            for (rank, tag) in chain.enumerated() { feeds[tag.rawValue].append((level, UInt8(rank))) }
        }
        let tagList = Set(chains.joined()).map { String($0.rawValue) }.sorted().joined(separator: ",")

        // The songs in scope, as dense indexes.
        var songIDs: [Int64] = []
        let everything = matchesEverything(expression)
        let filter = FilterSQL.translate(expression)
        let songsSQL: SQL = everything ? "SELECT id FROM song" : filter.withClause + "SELECT s.id FROM song s WHERE " + filter.condition
        try forEachRow(db, songsSQL) { handle in songIDs.append(sqlite3_column_int64(handle, 0)) }
        guard !songIDs.isEmpty else { return [] }
        let index = SongIndex(songIDs)

        var state = GroupState(songs: songIDs.count, levels: levels.count)
        var interned: [String: Int32] = [:]
        var strings: [String] = []
        func intern(_ text: String) -> Int32 {
            if let id = interned[text] { return id }
            let id = Int32(strings.count)
            strings.append(text)
            interned[text] = id
            return id
        }
        let empty = intern("")

        // The last value read, to skip interning while the index yields the same value again.
        var previousTag: Int32 = -1
        var previousBytes: [UInt8] = []
        var previousID: Int32 = 0
        func visit(_ handle: OpaquePointer) {
            guard let song = index[sqlite3_column_int64(handle, 0)] else { return }
            let tag = sqlite3_column_int(handle, 1)
            guard tag >= 0, Int(tag) < feeds.count else { return }
            let text = sqlite3_column_text(handle, 2)
            let count = text == nil ? 0 : Int(sqlite3_column_bytes(handle, 2))
            let value: Int32
            if tag == previousTag, count == previousBytes.count,
               count == 0 || previousBytes.withUnsafeBufferPointer({ memcmp($0.baseAddress!, text!, count) == 0 }) {
                value = previousID
            } else {
                let bytes = UnsafeBufferPointer(start: text, count: count)
                value = intern(String(decoding: bytes, as: UTF8.self))
                previousTag = tag
                previousBytes = Array(bytes)
                previousID = value
            }
            for feed in feeds[Int(tag)] { state.add(value, song: song, level: feed.level, rank: feed.rank) }
        }
        if everything || songIDs.count > 5000 {
            // In index order, so equal values come in runs.
            try forEachRow(db, SQL(sql: "SELECT song_id, tag, value FROM song_tag WHERE tag IN (\(tagList))"), visit)
        } else {
            for chunk in chunks(songIDs) {
                try forEachRow(db, SQL(sql: """
                    SELECT song_id, tag, value FROM song_tag WHERE song_id IN (SELECT value FROM json_each(?)) \
                    AND +tag IN (\(tagList))
                    """, arguments: [chunk]), visit)
            }
        }

        // Strings by rank in bytewise order (as MPD's `std::map<std::string, …>` keeps each level), so tuples of ranks
        // sort as tuples of strings.
        let byRank = strings.indices.sorted { strings[$0].utf8.lexicographicallyPrecedes(strings[$1].utf8) }
        var rankOf = [Int32](repeating: 0, count: strings.count)
        for (rank, id) in byRank.enumerated() { rankOf[id] = Int32(rank) }
        state.replaceValues(with: rankOf)
        let emptyRank = rankOf[Int(empty)]

        if levels.count == 1 {
            // `list TAG`: which ranks occur.
            var seen = [Bool](repeating: false, count: strings.count)
            for song in 0..<songIDs.count {
                state.forEachValue(song: song, level: 0, empty: emptyRank) { seen[Int($0)] = true }
            }
            return seen.indices.filter { seen[$0] }.map { [strings[byRank[$0]]] }
        }
        if levels.count == 2 {
            // Two levels (`list album group albumartist`, the common case): a tuple is one integer.
            var tuples: Set<UInt64> = []
            for song in 0..<songIDs.count {
                state.forEachValue(song: song, level: 0, empty: emptyRank) { outer in
                    state.forEachValue(song: song, level: 1, empty: emptyRank) { inner in
                        tuples.insert(UInt64(UInt32(outer)) << 32 | UInt64(UInt32(inner)))
                    }
                }
            }
            return tuples.sorted().map { [strings[byRank[Int($0 >> 32)]], strings[byRank[Int($0 & 0xFFFF_FFFF)]]] }
        }
        var tuples: Set<[Int32]> = []
        var tuple = [Int32](repeating: 0, count: levels.count)
        for song in 0..<songIDs.count {
            state.forEachTuple(song: song, empty: emptyRank, into: &tuple) { tuples.insert($0) }
        }
        return tuples.sorted { a, b in a.lexicographicallyPrecedes(b) }.map { $0.map { strings[byRank[Int($0)]] } }
    }

    /// Steps a statement through SQLite's C API, calling `body` for each row.
    static func forEachRow(_ db: Database, _ sql: SQL, _ body: (OpaquePointer) throws -> Void) throws {
        // Cached: the texts repeat (values are bound), so each connection prepares them once.
        let statement = try db.cachedStatement(literal: sql)
        let handle = statement.sqliteStatement
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                sqlite3_reset(handle)
                throw DatabaseError(resultCode: ResultCode(rawValue: code),
                                    message: db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) })
            }
            try body(handle)
        }
        sqlite3_reset(handle)
    }

    /// Song id → dense index: a flat table when the ids are dense enough (they usually are), else a dictionary.
    struct SongIndex {
        private var table: [Int32] = []
        private var dictionary: [Int64: Int32] = [:]
        private let useTable: Bool

        init(_ ids: [Int64]) {
            let maximum = ids.max() ?? 0
            useTable = maximum >= 0 && maximum <= Int64(ids.count) * 4 + 4096
            if useTable {
                table = [Int32](repeating: -1, count: Int(maximum) + 1)
                for (position, id) in ids.enumerated() where id >= 0 { table[Int(id)] = Int32(position) }
            } else {
                dictionary.reserveCapacity(ids.count)
                for (position, id) in ids.enumerated() { dictionary[id] = Int32(position) }
            }
        }

        subscript(id: Int64) -> Int? {
            if useTable {
                guard id >= 0, id < table.count else { return nil }
                let position = table[Int(id)]
                return position < 0 ? nil : Int(position)
            }
            return dictionary[id].map(Int.init)
        }
    }

    /// Per song and level: the rank (in the level's chain) of the tag whose values it holds so far, and those
    /// values (the first inline, any others aside).
    struct GroupState {
        static let none: UInt8 = .max
        let levels: Int
        var rank: [UInt8]
        var first: [Int32]
        var more: [Int: [Int32]] = [:]

        init(songs: Int, levels: Int) {
            self.levels = levels
            rank = [UInt8](repeating: Self.none, count: songs * levels)
            first = [Int32](repeating: 0, count: songs * levels)
        }

        mutating func add(_ value: Int32, song: Int, level: Int, rank tagRank: UInt8) {
            let slot = song * levels + level
            if tagRank < rank[slot] {
                rank[slot] = tagRank
                first[slot] = value
                more[slot] = nil
            } else if tagRank == rank[slot], first[slot] != value {
                more[slot, default: []].append(value)
            }
        }

        /// Maps every stored value through `table` (value ids to ranks).
        mutating func replaceValues(with table: [Int32]) {
            for slot in rank.indices where rank[slot] != Self.none { first[slot] = table[Int(first[slot])] }
            for (slot, values) in more { more[slot] = values.map { table[Int($0)] } }
        }

        /// Calls `body` with each of the song's values at one level (`empty` when it has none).
        func forEachValue(song: Int, level: Int, empty: Int32, _ body: (Int32) -> Void) {
            let slot = song * levels + level
            guard rank[slot] != Self.none else { return body(empty) }
            body(first[slot])
            for value in more[slot] ?? [] { body(value) }
        }

        /// Calls `body` with each combination of the song's values (`empty` for a level without any).
        func forEachTuple(song: Int, empty: Int32, into tuple: inout [Int32], _ body: ([Int32]) -> Void) {
            func fill(_ level: Int) {
                if level == levels {
                    body(tuple)
                    return
                }
                let slot = song * levels + level
                if rank[slot] == Self.none {
                    tuple[level] = empty
                    fill(level + 1)
                    return
                }
                tuple[level] = first[slot]
                fill(level + 1)
                for value in more[slot] ?? [] {
                    tuple[level] = value
                    fill(level + 1)
                }
            }
            fill(0)
        }
    }
}

/// Column values of the current row of a statement stepped through SQLite's C API.
enum RawColumn {
    static func text(_ row: OpaquePointer, _ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(row, column) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(row, column))),
                      as: UTF8.self)
    }

    static func int64(_ row: OpaquePointer, _ column: Int32) -> Int64? {
        sqlite3_column_type(row, column) == SQLITE_NULL ? nil : sqlite3_column_int64(row, column)
    }

    static func double(_ row: OpaquePointer, _ column: Int32) -> Double? {
        sqlite3_column_type(row, column) == SQLITE_NULL ? nil : sqlite3_column_double(row, column)
    }
}
