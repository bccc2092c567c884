import Foundation
import GRDB
import Library
import MPDProtocol
import Testing

/// The whole library's `list album group albumartist` and M.A.L.P.'s five-level album list are stored by the indexer
/// once the tag counts are made (`StoredLists`): these check the stored answers against the plain reference and the
/// scan, that `list` reads them, and that they are trusted only while they describe the songs there are.
@Suite struct StoredListsTests {
    static let albums = ListQuery(tag: .album, groups: [.albumArtist])
    static let malp = ListQuery(tag: .album, groups: [.date, .musicBrainzAlbumID, .albumArtistSort, .albumArtist])

    /// Songs with and without AlbumArtist, AlbumArtistSort, ArtistSort, Date and a MusicBrainz album id, some with two
    /// values of a level, multi-byte values.
    static func entries(count: Int) -> [QueryFixture.Entry] {
        LibraryQueriesGroupTests.entries(count: count).enumerated().map { index, entry in
            var entry = entry
            if index % 6 == 1 { entry.tags.append((.albumArtistSort, "Sort \(index % 4)")) }
            if index % 8 == 3 { entry.tags.append((.artistSort, "Zort \(index % 3)")) }
            if index % 5 == 0 { entry.tags.append((.musicBrainzAlbumID, "mb-\(index % 9)")) }
            if index % 13 == 2 { entry.tags.append((.album, "Élan \(index % 2)")) }
            return entry
        }
    }

    static func reference(_ entries: [QueryFixture.Entry], _ query: ListQuery) -> [[String]] {
        LibraryQueriesGroupTests.reference(entries, query.groups + [query.tag!])
    }

    static func storedLevels(_ fixture: QueryFixture) throws -> [String] {
        try fixture.database.writer.read { db in try String.fetchAll(db, sql: "SELECT levels FROM stored_list ORDER BY 1") }
    }

    @Test func storedListsMatchTheReferenceAndTheScan() async throws {
        let fixture = try QueryFixture()
        let all = Self.entries(count: 6000)
        try fixture.add(all)
        #expect(try Self.storedLevels(fixture).count == 2)
        for query in [Self.albums, Self.malp] {
            let stored = try await fixture.queries.list(query)
            #expect(stored == Self.reference(all, query))
            #expect(stored.count > 100)
        }
        // Without them, the same answers from the songs' tags.
        try await fixture.database.writer.write { db in try db.execute(sql: "DELETE FROM stored_list") }
        for query in [Self.albums, Self.malp] {
            #expect(try await fixture.queries.list(query) == Self.reference(all, query))
        }
    }

    @Test func anEmptyLibraryStoresEmptyLists() async throws {
        let fixture = try QueryFixture()
        try fixture.database.catchUpIndexes()
        #expect(try Self.storedLevels(fixture).count == 2)
        #expect(try await fixture.queries.list(Self.albums) == [])
        try fixture.add([QueryFixture.Entry(uri: "a/b.flac", tags: [])])
        #expect(try await fixture.queries.list(Self.albums) == [["", ""]])
    }

    @Test func storedListsAreTrustedOnlyWhileTheSongsAreTheSame() async throws {
        let fixture = try QueryFixture()
        let all = Self.entries(count: 300)
        try fixture.add(all)
        // What `list` answers comes from the stored row while it is current (a marked answer shows it).
        try mark(fixture)
        #expect(try await fixture.queries.list(Self.albums) == [["X", "Y"]])
        // A filter that matches every song is still a filter: not answered from the stored list.
        var filtered = Self.albums
        filtered.expression = .not(.tag(.tag(.genre), StringMatch("Polka")))
        #expect(try await fixture.queries.list(filtered) == Self.reference(all, Self.albums))

        // A song goes: the trigger drops the lists and the scan answers; the indexer stores them again.
        fixture.database.stopIndexingAndWait()
        try await fixture.database.writer.write { db in
            try db.execute(sql: "DELETE FROM song WHERE uri = ?", arguments: [all[0].uri])
        }
        #expect(try Self.storedLevels(fixture) == [])
        let remaining = Array(all.dropFirst())
        #expect(try await fixture.queries.list(Self.albums) == Self.reference(remaining, Self.albums))
        try fixture.database.catchUpIndexes()
        #expect(try Self.storedLevels(fixture).count == 2)
        #expect(try await fixture.queries.list(Self.malp) == Self.reference(remaining, Self.malp))

        // A song an update wrote waits in the search index's queue: until the indexer took it, the stored lists
        // (which may not know its tags) are not used.
        try mark(fixture)
        #expect(try await fixture.queries.list(Self.albums) == [["X", "Y"]])
        try await fixture.database.writer.write { db in
            try db.execute(sql: "INSERT INTO search_pending (song_id) SELECT id FROM song WHERE uri = ?",
                           arguments: [remaining[5].uri])
        }
        #expect(try await fixture.queries.list(Self.albums) == Self.reference(remaining, Self.albums))
        try fixture.database.catchUpIndexes()
        #expect(try Self.storedLevels(fixture).count == 2)
        #expect(try await fixture.queries.list(Self.albums) == Self.reference(remaining, Self.albums))

        // Tag rows written straight into the tables drop the counts and the lists with them.
        let added = QueryFixture.Entry(uri: "new/song.flac", tags: [(.albumArtist, "Newcomer"), (.album, "First")])
        try fixture.add([added])
        let withNew = remaining + [added]
        #expect(try Self.storedLevels(fixture).count == 2)
        #expect(try await fixture.queries.list(Self.albums) == Self.reference(withNew, Self.albums))
        #expect(try await fixture.queries.list(Self.albums).contains(["Newcomer", "First"]))
    }

    /// Replaces the stored `list album group albumartist` with one row, `X`/`Y`.
    func mark(_ fixture: QueryFixture) throws {
        try fixture.database.writer.write { db in
            try db.execute(sql: "UPDATE stored_list SET answer = ? WHERE levels = ?",
                           arguments: [Data([1, 0x58, 1, 0x59]), "\(TagName.albumArtist.rawValue),\(TagName.album.rawValue)"])
        }
    }
}
