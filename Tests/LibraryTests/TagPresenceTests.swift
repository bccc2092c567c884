import Foundation
import GRDB
import Library
import MPDProtocol
import Testing

/// `list TAG` of the whole library reads the `(tag, value)` index a few entries per value and takes whether `""`
/// belongs from the tag counts the indexer keeps; these check it against the plain reference, and that the counts
/// are trusted only while they describe the songs there are.
@Suite struct TagPresenceTests {
    /// Values met 1, 2, 3, 15, 16, 17, 20 and 40 times (around the point where the walk starts skipping), multi-byte ones, a
    /// stored empty value (when `withEmpty`), a song with two artists, and songs without the tag.
    static func entries(withEmpty: Bool) -> [QueryFixture.Entry] {
        var entries: [QueryFixture.Entry] = []
        var index = 0
        func add(_ tags: [(TagName, String)]) {
            entries.append(QueryFixture.Entry(uri: "d\(index % 7)/s\(index).flac", tags: tags))
            index += 1
        }
        // Values that sort before digits (`(13)`, `!`, a space) too: a walk bounded by a number missed them.
        for (value, times) in [("(13)", 20), ("!", 1), (" x", 2), ("0", 3), ("A", 1), ("B", 15), ("C", 16), ("D", 17),
                               ("Émile", 40), ("Émile Z", 3), ("Zoë", 17)] {
            for _ in 0..<times { add([(.artist, value), (.genre, "Rock")]) }
        }
        add([(.artist, "B"), (.artist, "Guest")])
        add([(.genre, "Jazz")])
        if withEmpty { add([(.artist, ""), (.genre, "Jazz")]) }
        return entries
    }

    static func counted(_ fixture: QueryFixture) throws -> Int? {
        try fixture.database.writer.read { db in try Int.fetchOne(db, sql: "SELECT songs FROM tag_presence WHERE tag = -1") }
    }

    @Test(arguments: [false, true])
    func listOfATagMatchesTheReference(withEmpty: Bool) async throws {
        let fixture = try QueryFixture()
        let all = Self.entries(withEmpty: withEmpty)
        try fixture.add(all)
        #expect(try Self.counted(fixture) == all.count)
        for tag in [TagName.artist, .genre, .date] {
            #expect(try await fixture.queries.list(ListQuery(tag: tag)) == LibraryQueriesGroupTests.reference(all, [tag]))
        }
    }

    @Test func countsAreTrustedOnlyWhileTheSongsAreTheSame() async throws {
        let fixture = try QueryFixture()
        let all = Self.entries(withEmpty: false)
        try fixture.add(all)
        let artists = ListQuery(tag: .artist)
        #expect(try await fixture.queries.list(artists).first == [""])

        // The one song without an artist goes: the trigger drops the counts, and the walk of every entry answers.
        fixture.database.stopIndexingAndWait()
        try await fixture.database.writer.write { db in
            try db.execute(sql: "DELETE FROM song WHERE uri = ?", arguments: [all[all.count - 1].uri])
        }
        #expect(try Self.counted(fixture) == nil)
        let remaining = Array(all.dropLast())
        #expect(try await fixture.queries.list(artists) == LibraryQueriesGroupTests.reference(remaining, [.artist]))
        try fixture.database.catchUpIndexes()
        #expect(try Self.counted(fixture) == remaining.count)
        #expect(try await fixture.queries.list(artists) == LibraryQueriesGroupTests.reference(remaining, [.artist]))

        // A song written by an update waits in the search index's queue: until the indexer took it, the counts (which
        // do not know it) are not used.
        try await fixture.database.writer.write { db in
            try db.execute(sql: "INSERT INTO song (uri, directory_id) VALUES ('d0/new.flac', (SELECT id FROM directory WHERE path = 'd0'))")
            try db.execute(sql: "INSERT INTO search_pending (song_id) VALUES (?)", arguments: [db.lastInsertedRowID])
        }
        #expect(try Self.counted(fixture) == remaining.count)
        #expect(try await fixture.queries.list(artists).first == [""])
        try fixture.database.catchUpIndexes()
        #expect(try Self.counted(fixture) == all.count)
        #expect(try await fixture.queries.list(artists).first == [""])
    }
}
