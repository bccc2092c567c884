import GRDB
import Glibc
import GRDBSQLite
import MPDProtocol
import PlayerCore

extension LibraryQueries {
    /// `list TAG [group G…]`: every song's value tuple (one value set per level: the values of
    /// the first tag of the level's fallback chain the song has, or `""`; a song with several values gives each
    /// combination), distinct and sorted bytewise level by level.
    ///
    /// Built in one pass over the rows of the tags involved rather than by joining one value relation per level
    /// in SQL: SQLite had to materialise and index each relation and sort the join, five times MPD's time on a
    /// large library. The values come from the songs' tags columns (or their tag rows by key for a few filtered
    /// songs) through SQLite's C API (`forEachTagRow`) and are interned, so songs and tuples are plain integers
    /// until the distinct tuples are sorted.
    /// The whole library's lists that clients ask for most are read from `StoredLists` when they are current.
    static func groupedValues(_ levels: [TagName], expression: FilterExpression, _ db: Database) throws -> [[String]] {
        if matchesEverything(expression), let stored = try StoredLists.rows(levels, db) { return stored }
        return try scannedGroupedValues(levels, expression: expression, db)
    }

    /// `groupedValues` from the songs' tags.
    static func scannedGroupedValues(_ levels: [TagName], expression: FilterExpression, _ db: Database) throws
        -> [[String]]
    {
        let chains = levels.map(\.filterChain)
        let tagList = Set(chains.joined()).map { String($0.rawValue) }.sorted().joined(separator: ",")
        if levels.count == 1, chains[0].count == 1, matchesEverything(expression) {
            return try distinctValues(chains[0][0], db).map { [$0] }
        }
        var values = InternedValues()
        let empty = values.intern("")
        var state = try matchesEverything(expression)
            ? groupStateOfAll(chains, tags: tagList, values: &values, db)
            : groupState(of: expression, chains, tags: tagList, values: &values, db)
        let songCount = state.songs
        guard songCount > 0 else { return [] }
        let strings = values.strings

        // Strings by rank in bytewise order (as MPD's `std::map<std::string, …>` keeps each level), so tuples of ranks
        // sort as tuples of strings.
        let byRank = values.idsInByteOrder()
        var rankOf = [Int32](repeating: 0, count: strings.count)
        for (rank, id) in byRank.enumerated() { rankOf[id] = Int32(rank) }
        state.replaceValues(with: rankOf)
        let emptyRank = rankOf[Int(empty)]

        if levels.count == 1 {
            // `list TAG`: which ranks occur.
            var seen = [Bool](repeating: false, count: strings.count)
            for song in 0..<songCount {
                state.forEachValue(song: song, level: 0, empty: emptyRank) { seen[Int($0)] = true }
            }
            return seen.indices.filter { seen[$0] }.map { [strings[byRank[$0]]] }
        }
        if levels.count == 2 {
            // Two levels (`list album group albumartist`, the common case): a tuple is one integer. Every song's
            // tuples sorted, then the repeats dropped: cheaper than hashing each into a set and sorting that.
            var tuples: [UInt64] = []
            tuples.reserveCapacity(songCount)
            for song in 0..<songCount {
                state.forEachValue(song: song, level: 0, empty: emptyRank) { outer in
                    state.forEachValue(song: song, level: 1, empty: emptyRank) { inner in
                        tuples.append(UInt64(UInt32(outer)) << 32 | UInt64(UInt32(inner)))
                    }
                }
            }
            tuples.sort()
            var rows: [[String]] = []
            var previous: UInt64?
            for tuple in tuples where tuple != previous {
                previous = tuple
                rows.append([strings[byRank[Int(tuple >> 32)]], strings[byRank[Int(tuple & 0xFFFF_FFFF)]]])
            }
            return rows
        }
        var tuples: Set<[Int32]> = []
        var tuple = [Int32](repeating: 0, count: levels.count)
        for song in 0..<songCount {
            state.forEachTuple(song: song, empty: emptyRank, into: &tuple) { tuples.insert($0) }
        }
        return tuples.sorted { a, b in a.lexicographicallyPrecedes(b) }.map { $0.map { strings[byRank[Int($0)]] } }
    }

    /// The whole library's values, the songs as dense indexes in the table's order: one pass over the tags columns
    /// after a count. (No closure here captures a local function: a `var` a local function captures is checked for
    /// exclusive access at run time on every use, a sixth of a `list` when it was.)
    private static func groupStateOfAll(_ chains: [[TagName]], tags: String, values: inout InternedValues,
                                        _ db: Database) throws -> GroupState {
        var songs = 0
        try forEachRow(db, "SELECT count(*) FROM song") { songs = Int(sqlite3_column_int64($0, 0)) }
        var state = GroupState(songs: songs, chains: chains)
        var reader = TagColumnReader(tags: tags)
        var song = 0
        try forEachRow(db, "SELECT tags FROM song") { handle in
            guard song < songs else { return }
            reader.read(handle, column: 0, values: &values) { state.add($1, song: song, tag: $0) }
            song += 1
        }
        return state
    }

    /// The values of the songs `expression` selects, as dense indexes by their ids.
    private static func groupState(of expression: FilterExpression, _ chains: [[TagName]], tags: String,
                                   values: inout InternedValues, _ db: Database) throws -> GroupState {
        var songIDs: [Int64] = []
        let filter = FilterSQL.translate(expression)
        try forEachRow(db, filter.withClause + "SELECT s.id FROM song s WHERE " + filter.condition) { handle in
            songIDs.append(sqlite3_column_int64(handle, 0))
        }
        var state = GroupState(songs: songIDs.count, chains: chains)
        guard !songIDs.isEmpty else { return state }
        try forEachTagRow(db, tags: tags, songIDs: songIDs, index: SongIndex(songIDs), values: &values) {
            state.add($2, song: $0, tag: $1)
        }
        return state
    }

    /// `list TAG` of the whole library for a tag without fallbacks (`list artist`, `list genre`): the `(tag, value)`
    /// index already holds the values in bytewise order. With the tag counts (`TagPresence`) it is read a few
    /// entries per value (`skippingValues`) and the counts say whether some song lacks the tag, which lists `""`
    /// first; without them (songs changed since they were made) one walk of every entry tells both.
    static func distinctValues(_ tag: TagName, _ db: Database) throws -> [String] {
        if let counts = try TagPresence.counts(db, tag: tag) {
            guard counts.songs > 0 else { return [] }
            var values = try skippingValues(tag, db)
            // `""` sorts first; a stored empty value is already there.
            if counts.withTag < counts.songs, values.first != "" { values.insert("", at: 0) }
            return values
        }
        var songs = 0
        var largestID: Int64 = 0
        try forEachRow(db, "SELECT count(*), coalesce(max(id), 0) FROM song") { handle in
            songs = Int(sqlite3_column_int64(handle, 0))
            largestID = sqlite3_column_int64(handle, 1)
        }
        guard songs > 0, largestID < Int64(Int32.max) else { return [] }
        var seen = [Bool](repeating: false, count: Int(largestID) + 1)
        var songsWithTag = 0
        var values: [String] = []
        var previous: [UInt8] = []
        try forEachRow(db, SQL(sql: "SELECT song_id, value FROM song_tag WHERE tag = \(tag.rawValue) ORDER BY value")) { handle in
            let id = Int(sqlite3_column_int64(handle, 0))
            if id >= 0, id < seen.count, !seen[id] {
                seen[id] = true
                songsWithTag += 1
            }
            let text = sqlite3_column_text(handle, 1)
            let count = text == nil ? 0 : Int(sqlite3_column_bytes(handle, 1))
            if !values.isEmpty, count == previous.count,
               count == 0 || previous.withUnsafeBufferPointer({ memcmp($0.baseAddress!, text!, count) == 0 }) {
                return
            }
            let bytes = UnsafeBufferPointer(start: text, count: count)
            previous = Array(bytes)
            values.append(String(decoding: bytes, as: UTF8.self))
        }
        // `""` sorts first; a stored empty value is already there.
        if songsWithTag < songs, values.first != "" { values.insert("", at: 0) }
        return values
    }

    /// Entries of one value that are stepped over before the index is searched for the next value instead: a step
    /// costs a few percent of a search, so a value with many songs (an artist's 200) costs this many steps and one
    /// search, and a tag whose values are nearly all different (titles) is walked as before.
    static let stepsBeforeSkipping = 16

    /// The distinct values of `tag`, sorted bytewise, from the `(tag, value)` index: past a value met
    /// `stepsBeforeSkipping` times in a row, the walk starts again after it (`value > ?`). (The first walk has no
    /// bound: a number bound as the lowest value would be compared as text, `'0'`, with the column's affinity.)
    static func skippingValues(_ tag: TagName, _ db: Database) throws -> [String] {
        let from = try FastStatement(db, "SELECT value FROM song_tag WHERE tag = ? ORDER BY value")
        let after = try FastStatement(db, "SELECT value FROM song_tag WHERE tag = ? AND value > ? ORDER BY value")
        from.bind(1, Int64(tag.rawValue))
        var statement = from
        var values: [String] = []
        var previous: [UInt8] = []
        var repeats = 0
        while let row = try statement.next(db) {
            let text = sqlite3_column_text(row, 0)
            let count = text == nil ? 0 : Int(sqlite3_column_bytes(row, 0))
            if !values.isEmpty, count == previous.count,
               count == 0 || previous.withUnsafeBufferPointer({ memcmp($0.baseAddress!, text!, count) == 0 }) {
                repeats += 1
                guard repeats >= stepsBeforeSkipping else { continue }
                repeats = 0
                statement.reset()
                statement = after
                after.bind(1, Int64(tag.rawValue))
                after.bind(2, values.last)
                continue
            }
            let bytes = UnsafeBufferPointer(start: text, count: count)
            previous = Array(bytes)
            repeats = 0
            values.append(String(decoding: bytes, as: UTF8.self))
        }
        return values
    }

    /// `count … group TAG`: per value of the group tag (the first tag of its fallback chain the song has; `""` for
    /// songs with none), the songs and their play time in milliseconds, sorted bytewise by value. A song counts once
    /// per value row (twice for a value it holds twice), as MPD visits every value (`VisitTagWithFallbackOrEmpty`).
    ///
    /// For the whole library one pass over the table reads each song's duration and tags column; for a selection,
    /// one pass over its durations and one over its tag rows (as `groupedValues`). Not a join of the values to `song`
    /// by id in SQL, which cost a B-tree lookup per value row.
    static func groupCounts(_ group: TagName, expression: FilterExpression, _ db: Database) throws
        -> [(value: String, songs: Int, milliseconds: Int64)]
    {
        let chain = group.filterChain
        var rankOfTag = [UInt8](repeating: .max, count: TagName.allCases.count)
        for (rank, tag) in chain.enumerated() { rankOfTag[tag.rawValue] = UInt8(rank) }
        let tagList = chain.map { String($0.rawValue) }.joined(separator: ",")

        var counts = CountState(rankOfTag: rankOfTag)
        var values = InternedValues()
        if matchesEverything(expression) {
            // One pass over the table gives each song's duration and its tags column.
            var reader = TagColumnReader(tags: tagList)
            try forEachRow(db, "SELECT duration, tags FROM song") { handle in
                let song = counts.addSong(handle, durationColumn: 0)
                reader.read(handle, column: 1, values: &values) { counts.add($1, song: song, tag: $0) }
            }
        } else {
            var songIDs: [Int64] = []
            let filter = FilterSQL.translate(expression)
            try forEachRow(db, filter.withClause + "SELECT s.id, s.duration FROM song s WHERE " + filter.condition) {
                handle in
                songIDs.append(sqlite3_column_int64(handle, 0))
                _ = counts.addSong(handle, durationColumn: 1)
            }
            guard !songIDs.isEmpty else { return [] }
            try forEachTagRow(db, tags: tagList, songIDs: songIDs, index: SongIndex(songIDs), values: &values) {
                counts.add($2, song: $0, tag: $1)
            }
        }
        let (milliseconds, rows, best) = (counts.milliseconds, counts.rows, counts.best)
        guard !milliseconds.isEmpty else { return [] }
        let empty = values.intern("")
        var songs = [Int](repeating: 0, count: values.strings.count)
        var total = [Int64](repeating: 0, count: values.strings.count)
        for row in rows where row.rank == best[Int(row.song)] {
            songs[Int(row.value)] += 1
            total[Int(row.value)] &+= milliseconds[Int(row.song)]
        }
        for song in best.indices where best[song] == .max {
            songs[Int(empty)] += 1
            total[Int(empty)] &+= milliseconds[song]
        }
        let strings = values.strings
        return values.idsInByteOrder().filter { songs[$0] > 0 }.map { (strings[$0], songs[$0], total[$0]) }
    }

    /// What `groupCounts` gathers: each song's duration in milliseconds, its values with the rank of their tag in
    /// the group's chain, and the best (lowest) rank it has.
    struct CountState {
        let rankOfTag: [UInt8]
        var milliseconds: [Int64] = []
        var rows: [(song: Int32, rank: UInt8, value: Int32)] = []
        var best: [UInt8] = []

        /// A song with the duration in `durationColumn`; returns its dense index.
        mutating func addSong(_ handle: OpaquePointer, durationColumn: Int32) -> Int {
            // `CASE WHEN duration >= 0 THEN CAST(duration * 1000 AS INTEGER) ELSE 0 END`, as SQLite casts.
            let duration = RawColumn.double(handle, durationColumn) ?? -1
            milliseconds.append(duration >= 0 ? Int64(saturating: duration * 1000) : 0)
            best.append(.max)
            return best.count - 1
        }

        mutating func add(_ value: Int32, song: Int, tag: Int) {
            let rank = rankOfTag[tag]
            rows.append((Int32(song), rank, value))
            if rank < best[song] { best[song] = rank }
        }
    }

    /// Values by id, each stored once. Looked up by their bytes (open addressing over FNV-1a hashes), so a value
    /// read from the database is found without making a `String` of it.
    struct InternedValues {
        private(set) var strings: [String] = []
        private var slots = [Int32](repeating: -1, count: 1024)
        private var bytes: [UInt8] = []
        /// Value `id`'s bytes are `bytes[starts[id]..<starts[id + 1]]`.
        private var starts: [Int] = [0]

        mutating func intern(_ text: String) -> Int32 {
            var text = text
            return text.withUTF8 { intern(bytes: $0) }
        }

        mutating func intern(bytes value: UnsafeBufferPointer<UInt8>) -> Int32 {
            let mask = slots.count - 1
            var slot = Self.hash(value) & mask
            while case let id = slots[slot], id >= 0 {
                if equals(id, value) { return id }
                slot = (slot + 1) & mask
            }
            let id = Int32(strings.count)
            strings.append(String(decoding: value, as: UTF8.self))
            bytes.append(contentsOf: value)
            starts.append(bytes.count)
            slots[slot] = id
            if strings.count * 2 > slots.count { grow() }
            return id
        }

        /// The ids in the bytewise order of their values, compared where they are stored (comparing the strings'
        /// UTF-8 views went through the generic sequence comparison, byte by byte).
        func idsInByteOrder() -> [Int] {
            bytes.withUnsafeBufferPointer { all in
                starts.withUnsafeBufferPointer { starts in
                    strings.indices.sorted { a, b in
                        let countA = starts[a + 1] - starts[a], countB = starts[b + 1] - starts[b]
                        let common = min(countA, countB)
                        if common > 0 {
                            let order = memcmp(all.baseAddress! + starts[a], all.baseAddress! + starts[b], common)
                            if order != 0 { return order < 0 }
                        }
                        return countA < countB
                    }
                }
            }
        }

        /// Whether value `id` (-1: none) has these bytes.
        func equals(_ id: Int32, _ value: UnsafeBufferPointer<UInt8>) -> Bool {
            guard id >= 0 else { return false }
            let start = starts[Int(id)]
            guard starts[Int(id) + 1] - start == value.count else { return false }
            guard let base = value.baseAddress, !value.isEmpty else { return true }
            return bytes.withUnsafeBufferPointer { memcmp($0.baseAddress! + start, base, value.count) == 0 }
        }

        private mutating func grow() {
            slots = [Int32](repeating: -1, count: slots.count * 2)
            let mask = slots.count - 1
            bytes.withUnsafeBufferPointer { all in
                for id in strings.indices {
                    let value = UnsafeBufferPointer(rebasing: all[starts[id]..<starts[id + 1]])
                    var slot = Self.hash(value) & mask
                    while slots[slot] >= 0 { slot = (slot + 1) & mask }
                    slots[slot] = Int32(id)
                }
            }
        }

        private static func hash(_ value: UnsafeBufferPointer<UInt8>) -> Int {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in value { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
            return Int(truncatingIfNeeded: hash ^ hash >> 32)
        }
    }

    /// Calls `body` with (dense song index, tag id, interned value) for every value of the tags `tags` (ids, comma
    /// separated) of a selection of songs (`songIDs`, dense indexes by `index`): from every song's tags column
    /// (`SongTagsColumn`, one row per song rather than one per value: a third of the rows, and read in the table's
    /// order) when the selection is large, else from the songs' tag rows by key. (The whole library is read in one
    /// pass by `TagColumnReader` without ids.)
    static func forEachTagRow(_ db: Database, tags: String, songIDs: [Int64], index: SongIndex,
                              values: inout InternedValues, _ body: (Int, Int, Int32) -> Void) throws {
        if songIDs.count > 5000 {
            var reader = TagColumnReader(tags: tags)
            try forEachRow(db, "SELECT id, tags FROM song WHERE tags IS NOT NULL") { handle in
                guard let song = index[sqlite3_column_int64(handle, 0)] else { return }
                reader.read(handle, column: 1, values: &values) { body(song, $0, $1) }
            }
            return
        }
        for chunk in chunks(songIDs) {
            try forEachRow(db, SQL(sql: """
                SELECT song_id, tag, value FROM song_tag WHERE song_id IN (SELECT value FROM json_each(?)) \
                AND +tag IN (\(tags))
                """, arguments: [chunk])) { handle in
                guard let song = index[sqlite3_column_int64(handle, 0)] else { return }
                let tag = sqlite3_column_int(handle, 1)
                guard tag >= 0, Int(tag) < TagName.allCases.count else { return }
                let text = sqlite3_column_text(handle, 2)
                let count = text == nil ? 0 : Int(sqlite3_column_bytes(handle, 2))
                body(song, Int(tag), values.intern(bytes: UnsafeBufferPointer(start: text, count: count)))
            }
        }
    }

    /// Reads the values of some tags out of songs' tags columns (`SongTagsColumn`), one row at a time.
    struct TagColumnReader {
        /// The wanted tags' names (canonical spellings, as stored: `SongTagsColumn.encode`), packed:
        /// `names[nameStarts[i]..<nameStarts[i + 1]]` is the name of tag `nameTags[i]`.
        private var names: [UInt8] = []
        private var nameStarts: [Int] = [0]
        private var nameTags: [Int] = []
        /// The (length, first byte) of the wanted names: most other names are passed over on these.
        private var wantedShape = [Bool](repeating: false, count: 32 * 128)
        /// The value each tag had last: songs stored together (an album's) share most of their values.
        private var last = [Int32](repeating: -1, count: TagName.allCases.count)

        /// `tags`: the wanted tags' ids, comma separated.
        init(tags: String) {
            for id in tags.split(separator: ",") {
                guard let raw = Int(id), let tag = TagName(rawValue: raw), !nameTags.contains(raw) else { continue }
                let name = Array(tag.mpdName.utf8)
                guard let first = name.first, first < 128, name.count < 32 else { continue }
                names += name
                nameStarts.append(names.count)
                nameTags.append(raw)
                wantedShape[name.count * 128 + Int(first)] = true
            }
        }

        /// The wanted tag named `name`, if any.
        private func wantedTag(_ name: UnsafeBufferPointer<UInt8>) -> Int? {
            guard let first = name.first, first < 128, name.count < 32, wantedShape[name.count * 128 + Int(first)]
            else { return nil }
            return names.withUnsafeBufferPointer { all in
                for index in nameTags.indices where nameStarts[index + 1] - nameStarts[index] == name.count
                    && memcmp(all.baseAddress! + nameStarts[index], name.baseAddress!, name.count) == 0 {
                    return nameTags[index]
                }
                return nil
            }
        }

        /// Calls `body` with (tag id, interned value) for each wanted value in the row's tags column `column`.
        mutating func read(_ handle: OpaquePointer, column: Int32, values: inout InternedValues,
                           _ body: (Int, Int32) -> Void) {
            guard let blob = sqlite3_column_blob(handle, column) else { return }
            let all = UnsafeBufferPointer(start: blob.assumingMemoryBound(to: UInt8.self),
                                          count: Int(sqlite3_column_bytes(handle, column)))
            var position = 0
            while position < all.count {
                guard let name = PackedTags.field(all, &position), let value = PackedTags.field(all, &position)
                else { break }
                guard let tag = wantedTag(name) else { continue }
                let id = values.equals(last[tag], value) ? last[tag] : values.intern(bytes: value)
                last[tag] = id
                body(tag, id)
            }
        }
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
        let songs: Int
        /// The (level, rank in that level's chain) pairs each tag id feeds: `feeds[feedRanges[tag]]`. Flat, so that
        /// the loop over millions of rows touches no array of arrays (a retain and a release per row).
        private var feeds: [(level: Int, rank: UInt8)] = []
        private var feedRanges = [Range<Int>](repeating: 0..<0, count: TagName.allCases.count)
        var rank: [UInt8]
        var first: [Int32]
        /// Whether the slot has values in `more`: most songs have one value per level, and a dictionary lookup (a
        /// hash) per song and level to find that out was a tenth of a `list … group`.
        var hasMore: [Bool]
        var more: [Int: [Int32]] = [:]

        /// `chains`: each level's fallback chain of tags.
        init(songs: Int, chains: [[TagName]]) {
            let levels = chains.count
            self.levels = levels
            self.songs = songs
            for tag in TagName.allCases {
                let start = feeds.count
                for (level, chain) in chains.enumerated() {
                    for (rank, fed) in chain.enumerated() where fed == tag { feeds.append((level, UInt8(rank))) }
                }
                feedRanges[tag.rawValue] = start..<feeds.count
            }
            rank = [UInt8](repeating: Self.none, count: songs * levels)
            first = [Int32](repeating: 0, count: songs * levels)
            hasMore = [Bool](repeating: false, count: songs * levels)
        }

        /// A value of tag `tag` (id) of song `song`, for each level whose chain has the tag.
        mutating func add(_ value: Int32, song: Int, tag: Int) {
            for index in feedRanges[tag] {
                let feed = feeds[index]
                add(value, song: song, level: feed.level, rank: feed.rank)
            }
        }

        private mutating func add(_ value: Int32, song: Int, level: Int, rank tagRank: UInt8) {
            let slot = song * levels + level
            if tagRank < rank[slot] {
                rank[slot] = tagRank
                first[slot] = value
                if hasMore[slot] {
                    more[slot] = nil
                    hasMore[slot] = false
                }
            } else if tagRank == rank[slot], first[slot] != value {
                more[slot, default: []].append(value)
                hasMore[slot] = true
            }
        }

        /// The values beyond the first at `slot`.
        private func others(_ slot: Int) -> [Int32] { hasMore[slot] ? more[slot] ?? [] : [] }

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
            for value in others(slot) { body(value) }
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
                for value in others(slot) {
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

    /// A NULL reads as 0 (SQLite reads a NULL without converting it), so only a 0 asks for the column's type.
    static func int64(_ row: OpaquePointer, _ column: Int32) -> Int64? {
        let value = sqlite3_column_int64(row, column)
        return value != 0 || sqlite3_column_type(row, column) != SQLITE_NULL ? value : nil
    }

    static func double(_ row: OpaquePointer, _ column: Int32) -> Double? {
        let value = sqlite3_column_double(row, column)
        return value != 0 || sqlite3_column_type(row, column) != SQLITE_NULL ? value : nil
    }
}

/// The text of one column over consecutive rows, made into a `String` only when it differs from the row before's
/// (the audio format of a folder's songs): decoding it took a sixth of reading a song.
struct RecentText {
    private var last: String?
    private var lastBytes: [UInt8] = []

    mutating func text(_ row: OpaquePointer, _ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(row, column) else { return nil }
        return text(UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(row, column))))
    }

    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let count = bytes.count
        if let last, lastBytes.count == count,
           lastBytes.withUnsafeBufferPointer({ count == 0 || memcmp($0.baseAddress!, bytes.baseAddress!, count) == 0 }) {
            return last
        }
        let text = String(decoding: bytes, as: UTF8.self)
        (last, lastBytes) = (text, Array(bytes))
        return text
    }
}
