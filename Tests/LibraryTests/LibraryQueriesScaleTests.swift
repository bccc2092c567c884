import FFmpegDecoder
import Foundation
import GRDB
import Library
import Logging
import MPDProtocol
import Testing

/// The queries on a generated library of 100,000 songs (1,000 artists × 10 albums × 10 tracks, six tags each, a
/// tenth of them multi-artist), inserted directly. It prints timings and checks the answers, never the time.
@Suite struct LibraryQueriesScaleTests {
    static let artists = 1000

    /// Written through GRDB's async write, on the database's own queue: seconds of inserts on the concurrency pool
    /// would starve the tests that run beside this one.
    static func makeLibrary() async throws -> QueryFixture {
        let fixture = try QueryFixture()
        try await fixture.database.writer.write { db in
            let directory = try db.makeStatement(sql: "INSERT INTO directory (path, parent_id) VALUES (?, ?)")
            let song = try db.makeStatement(sql: """
                INSERT INTO song (uri, directory_id, duration, last_modified, added, audio_format)
                VALUES (?, ?, ?, ?, ?, '44100:16:2')
                """)
            let tag = try db.makeStatement(sql: """
                INSERT INTO song_tag (song_id, tag, position, value, value_folded) VALUES (?, ?, ?, ?, ?)
                """)
            func addTag(_ id: Int64, _ name: TagName, _ position: Int, _ value: String) throws {
                try tag.execute(arguments: [id, name.rawValue, position, value, CaseFolding.fold(value)])
            }
            for a in 0..<artists {
                let artist = "Artist \(a) Ünïcödé"
                try directory.execute(arguments: [artist, 1])
                let artistDirectory = db.lastInsertedRowID
                for b in 0..<10 {
                    let album = "Album \(b) of \(a)"
                    try directory.execute(arguments: ["\(artist)/\(album)", artistDirectory])
                    let albumDirectory = db.lastInsertedRowID
                    for t in 1...10 {
                        let uri = "\(artist)/\(album)/\(t < 10 ? "0" : "")\(t) Track.flac"
                        try song.execute(arguments: [uri, albumDirectory, 180.5 + Double(t), 1_600_000_000 + a * 100 + t,
                                                     1_700_000_000 + a, ])
                        let id = db.lastInsertedRowID
                        try addTag(id, .artist, 0, artist)
                        var position = 1
                        if t == 10 {
                            try addTag(id, .artist, position, "Guest \(a % 50)")
                            position += 1
                        }
                        try addTag(id, .album, position, album)
                        try addTag(id, .albumArtist, position + 1, artist)
                        try addTag(id, .title, position + 2, "Song \(t) of \(album)")
                        try addTag(id, .track, position + 3, String(t))
                        try addTag(id, .genre, position + 4, ["Rock", "Jazz", "Ambient", "Pop"][a % 4])
                        try LibraryDatabase.tagRowsWritten(db, songID: id)
                    }
                }
            }
        }
        return fixture
    }

    static func time<T>(_ label: String, _ body: () async throws -> T) async rethrows -> T {
        let clock = ContinuousClock()
        var result: T?
        let elapsed = try await clock.measure { result = try await body() }
        print("scale: \(label): \(elapsed.formatted(.units(allowed: [.milliseconds], fractionalPart: .show(length: 1))))")
        return result!
    }

    @Test func queriesOnAHundredThousandSongs() async throws {
        let fixture = try await Self.time("generate 100,000 songs") { try await Self.makeLibrary() }
        let queries = fixture.queries
        if let copy = ProcessInfo.processInfo.environment["NOSIGNAL_SCALE_DB"] {
            try await fixture.database.writer.writeWithoutTransaction { db in try db.execute(sql: "VACUUM INTO ?", arguments: [copy]) }
        }
        let exact = try await Self.time("find artist (exact, 100 hits)") {
            try await fixture.find(["artist", "Artist 500 Ünïcödé"])
        }
        #expect(exact.count == 100)
        let folded = try await Self.time("search artist (substring, case-folded, 100 hits)") {
            try await fixture.search(["artist", "ARTIST 500 ÜNÏ"])
        }
        #expect(folded.count == 100)
        let guests = try await Self.time("search any (substring, 2,000 hits)") {
            try await fixture.search(["any", "guest 7"])
        }
        #expect(guests.count == 200)
        let sorted = try await Self.time("find genre sorted by -Title, window 0:10 (25,000 matches)") {
            try await fixture.find(["(Genre == 'Jazz')", "sort", "-Title", "window", "0:10"])
        }
        #expect(sorted.count == 10)
        let all = try await Self.time("find every song in walk order (100,000 songs loaded)") {
            try await fixture.find(["(Title != '')"])
        }
        #expect(all.count == 100_000)
        let regex = try await Self.time("find title =~ regex (100,000 values)") {
            try await fixture.find(["(Title =~ '^Song 3 of Album 9 of 99[0-9]$')"])
        }
        #expect(regex.count == 10)
        let base = try await Self.time("find base directory") {
            try await fixture.find(["(base 'Artist 7 Ünïcödé')"])
        }
        #expect(base.count == 100)
        // A stored playlist's songs in one look-up (`load`): 2,500 URIs (three statements), a directory, an unknown
        // file and a repeat; each found song is what the one-song look-up gives.
        let library = MusicLibrary(database: fixture.database, musicDirectory: fixture.directory.path,
                                   inspector: FFmpegInspector(), logger: .init(label: "test"))
        let known = (0..<250).flatMap { a in
            (1...10).map { t in "Artist \(a) Ünïcödé/Album \(a % 10) of \(a)/\(t < 10 ? "0" : "")\(t) Track.flac" }
        }
        let asked = known + ["Artist 3 Ünïcödé", "Artist 3 Ünïcödé/nothing.flac", known[7]]
        let found = try await Self.time("songs of 2,503 URIs") { try await library.songs(uris: asked) }
        #expect(found.count == known.count)
        for uri in [known[0], known[999], known[1000], known[2499]] {
            let one = try library.song(uri: uri)
            #expect(found[uri] != nil && found[uri] == one)
        }
        let artists = try await Self.time("list artist") { try await queries.list(ListQuery(tag: .artist)) }
        #expect(artists.count == 1050)
        let albums = try await Self.time("list album group albumartist") {
            try await queries.list(ListQuery(tag: .album, groups: [.albumArtist]))
        }
        #expect(albums.count == 10_000)
        let counts = try await Self.time("count group artist") {
            try await queries.count(CountQuery(expression: .and([]), group: .artist))
        }
        #expect(counts.count == 1050)
        let total = try await Self.time("count (all)") { try await queries.count(CountQuery(expression: .and([]))) }
        #expect(total.first?.songs == 100_000)
        let files = try await Self.time("list file") { try await queries.uris(matching: nil) }
        #expect(files.count == 100_000)
    }
}
