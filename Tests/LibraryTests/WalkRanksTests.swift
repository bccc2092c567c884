import Foundation
import GRDB
@testable import Library
import MPDProtocol
import PlayerCore
import Testing

/// The stored walk order (`WalkRanks`) against the order computed by comparing tags and names (what queries use
/// while an update writes): on a real scan, after a change to one folder, and with ranks that are wrong on purpose
/// (so the ranked path is seen to be the one taken).
@Suite("Walk ranks (real ffmpeg, real SQLite)", .serialized)
struct WalkRanksTests {
    /// `find` of every song, `find` sorted and windowed, and `listall`, as URIs and paths.
    func orders(_ library: MusicLibrary) async throws -> [[String]] {
        let queries = LibraryQueries(library.database)
        let every = try FilterParser.parseQuery(arguments: ["(file != 'none')"], command: .find, validateRegex: nil)
        let sorted = try FilterParser.parseQuery(arguments: ["(file != 'none')", "sort", "-Album", "window", "1:9"],
                                                 command: .find, validateRegex: nil)
        // A window without a sort over a filter no index narrows: the scan in walk order that stops at its end.
        let windowed = try FilterParser.parseQuery(arguments: ["(!(title == 'none'))", "window", "2:7"],
                                                   command: .find, validateRegex: nil)
        let listing = try library.list(uri: "", recursive: true).map { entry -> String in
            switch entry {
            case .directory(let path, _): "directory: \(path)"
            case .song(let song): "file: \(song.uri)"
            case .playlist(let path, _): "playlist: \(path)"
            }
        }
        // `add` of the root and of a folder.
        let added = try await library.songsForQueue(uri: "").map(\.uri) + ["-"]
            + (try await library.songsForQueue(uri: "Sigur Rós").map(\.uri))
        return [try await queries.songs(matching: every).map(\.uri), try await queries.songs(matching: sorted).map(\.uri),
                try await queries.uris(matching: nil), listing, try await queries.songs(matching: windowed).map(\.uri),
                added]
    }

    func complete(_ library: MusicLibrary) throws -> Bool {
        try library.database.writer.read { db in try WalkRanks.complete(db) }
    }

    func forgetRanks(_ library: MusicLibrary) throws {
        try library.database.writer.write { db in
            try db.execute(sql: "UPDATE song SET walk_rank = NULL; UPDATE directory SET walk_rank = NULL")
        }
    }

    @Test func ranksGiveTheComparedOrder() async throws {
        let fixture = try GeneratedLibrary()
        let library = fixture.library
        #expect(try !complete(library))
        try library.database.catchUpIndexes()
        #expect(try complete(library))
        let ranked = try await orders(library)
        #expect(ranked[0].count > 10)
        #expect(ranked[4] == Array(ranked[0][2..<7]))
        #expect(Array(ranked[5].prefix { $0 != "-" })
            == ranked[3].filter { $0.hasPrefix("file: ") }.map { String($0.dropFirst(6)) })
        #expect(ranked[5].last?.hasPrefix("Sigur Rós/") == true)

        // Without ranks, the same order by comparing.
        try forgetRanks(library)
        #expect(try !complete(library))
        #expect(try await orders(library) == ranked)

        // Ranks reversed inside every folder: the answers follow them, so the ranks are what is read.
        try await library.database.writer.write { db in
            try WalkRanks.rankAll(db)
            try db.execute(sql: "UPDATE song SET walk_rank = 1000000 - walk_rank")
        }
        let reversed = try await orders(library)
        #expect(reversed != ranked)
        #expect(reversed[4] != ranked[4])
        #expect(reversed[5] != ranked[5])
        try forgetRanks(library)
        try await library.database.writer.write { db in try WalkRanks.rankAll(db) }
        #expect(try await orders(library) == ranked)
    }

    /// `add` reads a folder's songs by the run of their ids (`Tree.songs`), skipping other folders' songs
    /// inside the run, and by rank when the run is too long: with two folders' runs interleaved and one folder's
    /// songs far apart, ranked or not, it gives the listing's order (read through the `song_walk` index instead).
    @Test func foldersWhoseSongIdsInterleave() async throws {
        let fixture = try GeneratedLibrary()
        let library = fixture.library
        try library.database.catchUpIndexes()
        try await library.database.writer.write { db in
            let folders = try Int64.fetchAll(db, sql: """
                SELECT directory_id FROM song GROUP BY directory_id HAVING count(*) >= 3 ORDER BY min(id) LIMIT 2
                """)
            try #require(folders.count == 2)
            // Every other song of the second folder moves to the first; the library's first song to the second.
            try db.execute(sql: "UPDATE song SET directory_id = ? WHERE directory_id = ? AND id % 2 = 0",
                           arguments: [folders[0], folders[1]])
            try db.execute(sql: "UPDATE song SET directory_id = ? WHERE id = (SELECT min(id) FROM song)",
                           arguments: [folders[1]])
            try db.execute(sql: "UPDATE song SET walk_rank = NULL")
            try WalkRanks.rankAll(db)
        }
        func compare() async throws {
            let listed = try library.list(uri: "", recursive: true).compactMap(\.song).map(\.uri)
            #expect(listed.count > 10)
            #expect(try await library.songsForQueue(uri: "").map(\.uri) == listed)
        }
        try await compare()
        // Ranks against the id order inside every folder, then no ranks at all.
        try await library.database.writer.write { db in
            try db.execute(sql: "UPDATE song SET walk_rank = 1000000 - walk_rank")
        }
        try await compare()
        try forgetRanks(library)
        try await compare()
    }

    @Test func anUpdateRanksWhatItChanged() async throws {
        let fixture = try GeneratedLibrary()
        let library = fixture.library
        // `add` of the folder before the update: its songs are kept (`directorySongs`) until the database changes.
        let before = try await library.songsForQueue(uri: "Sigur Rós/Ágætis byrjun").map(\.uri)
        #expect(before.count >= 3)
        // A new song that sorts first in its folder (no album), and a new folder that sorts first at the root.
        let folder = fixture.music + "/Sigur Rós/Ágætis byrjun"
        try FileManager.default.copyItem(atPath: fixture.music + "/Untagged/silence.wav", toPath: folder + "/00 new.wav")
        try FileManager.default.createDirectory(atPath: fixture.music + "/0 first", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture.music + "/Untagged/silence.wav",
                                         toPath: fixture.music + "/0 first/a.wav")
        try library.database.catchUpIndexes()
        let untouched = try await library.database.writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT walk_rank FROM song WHERE uri = 'Untagged/untagged.mp3'")
        }
        #expect(untouched != nil)
        #expect(try library.runUpdate(uri: "", discard: false))
        #expect(try !complete(library))
        try library.database.catchUpIndexes()
        #expect(try complete(library))
        let ranked = try await orders(library)
        #expect(ranked[3].prefix(4) == ["file: .hidden.ogg", "file: root.ogg", "directory: 0 first", "file: 0 first/a.wav"])
        #expect(ranked[0].contains("Sigur Rós/Ágætis byrjun/00 new.wav"))
        #expect(try await library.songsForQueue(uri: "Sigur Rós/Ágætis byrjun").map(\.uri)
            == ["Sigur Rós/Ágætis byrjun/00 new.wav"] + before)
        // A folder the update did not change keeps its songs' ranks.
        #expect(try await library.database.writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT walk_rank FROM song WHERE uri = 'Untagged/untagged.mp3'")
        } == untouched)
        try forgetRanks(library)
        #expect(try await orders(library) == ranked)
    }

    /// `complete` asks the partial index of unranked songs by name, and answers the same without it (an update in
    /// bulk mode drops it): one song without a rank, with and without the index, then ranked again.
    @Test func completeWithAndWithoutTheUnrankedIndex() throws {
        let fixture = try GeneratedLibrary()
        let library = fixture.library
        try library.database.catchUpIndexes()
        #expect(try complete(library))
        let oneUnranked = """
            UPDATE song SET walk_rank = NULL WHERE id = (SELECT max(id) FROM song WHERE directory_id IS NOT NULL)
            """
        try library.database.writer.write { db in try db.execute(sql: oneUnranked) }
        #expect(try !complete(library))
        try library.database.writer.write { db in
            try db.execute(sql: "DROP INDEX \(WalkRanks.unrankedSongsIndex)")
        }
        #expect(try !complete(library))
        try library.database.writer.write { db in
            try db.execute(sql: "UPDATE song SET walk_rank = 0 WHERE walk_rank IS NULL")
        }
        #expect(try complete(library))
        try library.database.writer.write { db in
            try WalkRanks.createUnrankedSongsIndex(db)
            try db.execute(sql: oneUnranked)
        }
        #expect(try !complete(library))
    }
}
