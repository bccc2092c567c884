import Foundation
import Library
import MPDProtocol
import Testing

/// `list TAG [group G…]` against a plain reference (every song's value sets per level, their combinations, distinct,
/// sorted bytewise level by level) on a generated library with multi-valued tags, missing tags and fallbacks,
/// through both ways of reading the rows: the whole `(tag, value)` index (no filter, or a large selection) and by
/// key (a small selection).
@Suite struct LibraryQueriesGroupTests {
    /// Deterministic songs: some lack AlbumArtist (falls back to Artist) or every artist tag, some have two Artist
    /// or Album values, some share values across tags.
    static func entries(count: Int) -> [QueryFixture.Entry] {
        (0..<count).map { i in
            var tags: [(TagName, String)] = []
            if i % 7 != 0 { tags.append((.artist, "Artist \(i % 13)")) }
            if i % 11 == 0 { tags.append((.artist, "Guest \(i % 3)")) }
            if i % 3 == 0 { tags.append((.albumArtist, i % 2 == 0 ? "Artist \(i % 5)" : "Various")) }
            if i % 9 != 4 { tags.append((.album, "Album \(i % 17)")) }
            if i % 10 == 0 { tags.append((.album, "Bonus")) }
            if i % 4 == 1 { tags.append((.date, String(1990 + i % 6))) }
            tags.append((.genre, ["Rock", "rock", "Jazz", "Émo"][i % 4]))
            return QueryFixture.Entry(uri: "d\(i / 50)/s\(i).flac", tags: tags)
        }
    }

    /// The level's values for one song: those of the first tag of the chain it has (MPD's fallbacks: AlbumArtist to
    /// Artist, AlbumArtistSort to AlbumArtist and Artist…), or `""`.
    static func values(_ entry: QueryFixture.Entry, _ tag: TagName) -> [String] {
        for candidate in tag.filterChain {
            let found = entry.tags.filter { $0.0 == candidate }.map(\.1)
            if !found.isEmpty { return found }
        }
        return [""]
    }

    static func reference(_ entries: [QueryFixture.Entry], _ levels: [TagName]) -> [[String]] {
        var tuples: Set<[String]> = []
        for entry in entries {
            var partial: [[String]] = [[]]
            for level in levels {
                partial = partial.flatMap { prefix in values(entry, level).map { prefix + [$0] } }
            }
            tuples.formUnion(partial)
        }
        return tuples.sorted { a, b in
            for i in a.indices where a[i] != b[i] { return a[i].utf8.lexicographicallyPrecedes(b[i].utf8) }
            return false
        }
    }

    @Test(arguments: [[TagName.albumArtist, .album], [.album, .artist], [.genre, .albumArtist, .date], [.artist, .artist],
                      [.artist], [.albumArtist], [.date]])
    func listGroupMatchesTheReference(levels: [TagName]) async throws {
        let fixture = try QueryFixture()
        let all = Self.entries(count: 12000)
        try fixture.add(all)
        let query = ListQuery(tag: levels.last!, groups: Array(levels.dropLast()))
        #expect(try await fixture.queries.list(query) == Self.reference(all, levels))

        // A small selection (read by key) and a large one (read from the index).
        var small = query
        small.expression = .tag(.tag(.genre), StringMatch("Jazz"))
        #expect(try await fixture.queries.list(small) == Self.reference(all.filter { Self.values($0, .genre) == ["Jazz"] }, levels))
        var large = query
        large.expression = .not(.tag(.tag(.genre), StringMatch("Jazz")))
        #expect(try await fixture.queries.list(large) == Self.reference(all.filter { Self.values($0, .genre) != ["Jazz"] }, levels))
        var none = query
        none.expression = .tag(.tag(.genre), StringMatch("Polka"))
        #expect(try await fixture.queries.list(none) == [])
    }

    /// `count … group TAG` against the same reference: each song counts once per value of the first tag of the
    /// chain it has (`""` with none), with its duration; the whole library (one pass over the table) and a small and
    /// a large selection.
    @Test(arguments: [TagName.artist, .albumArtist, .album, .genre])
    func countGroupMatchesTheReference(group: TagName) async throws {
        let fixture = try QueryFixture()
        var all = Self.entries(count: 9000)
        for index in all.indices where index % 5 != 2 { all[index].duration = Double(index % 400) + 0.25 }
        try fixture.add(all)
        func reference(_ entries: [QueryFixture.Entry]) -> [String] {
            var songs: [String: Int] = [:]
            var milliseconds: [String: Int64] = [:]
            for entry in entries {
                for value in Self.values(entry, group) {
                    songs[value, default: 0] += 1
                    milliseconds[value, default: 0] += Int64((entry.duration ?? 0) * 1000)
                }
            }
            return songs.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                .map { "\($0)|\(songs[$0]!)|\(milliseconds[$0]! / 1000)" }
        }
        func counted(_ expression: FilterExpression) async throws -> [String] {
            try await fixture.queries.count(CountQuery(expression: expression, group: group))
                .map { "\($0.group ?? "-")|\($0.songs)|\($0.playtime)" }
        }
        #expect(try await counted(.and([])) == reference(all))
        #expect(try await counted(.tag(.tag(.genre), StringMatch("Jazz")))
                == reference(all.filter { Self.values($0, .genre) == ["Jazz"] }))
        #expect(try await counted(.not(.tag(.tag(.genre), StringMatch("Jazz"))))
                == reference(all.filter { Self.values($0, .genre) != ["Jazz"] }))
    }
}
