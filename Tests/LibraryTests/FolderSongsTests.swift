import FFmpegDecoder
import Foundation
import GRDB
import Logging
@testable import Library
import MPDProtocol
import PlayerCore
import Testing

/// Each folder's songs packed into one blob (`FolderSongs`) against the songs read from the rows: on a real scan,
/// after writes that must drop a folder's blob (and one that must not), and with blobs damaged on purpose.
@Suite("Folder songs (real ffmpeg, real SQLite)", .serialized)
struct FolderSongsTests {
    func directories(_ library: MusicLibrary) throws -> [Int64] {
        try library.database.writer.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM directory ORDER BY id") }
    }

    func packed(_ library: MusicLibrary, _ directory: Int64) throws -> [Song]? {
        try library.database.writer.read { db in try FolderSongs.songs(db, in: directory) }
    }

    func rows(_ library: MusicLibrary, _ directory: Int64) throws -> [Song] {
        try library.database.writer.read { db in try MusicLibrary.Tree.rowSongs(db, in: directory) }
    }

    func blobCount(_ library: MusicLibrary) throws -> Int {
        try library.database.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM folder_songs") ?? 0 }
    }

    func directoryID(_ library: MusicLibrary, _ path: String) throws -> Int64 {
        try #require(try library.database.writer.read { db in try MusicLibrary.directoryID(db, path: path) })
    }

    @Test func packedSongsAreTheRowSongs() async throws {
        let fixture = try GeneratedLibrary()
        let library = fixture.library
        let unpacked = try await library.songsForQueue(uri: "")
        #expect(try await !library.database.writer.read(FolderSongs.complete))
        try library.database.catchUpIndexes()
        #expect(try await library.database.writer.read(FolderSongs.complete))
        var songs = 0
        for directory in try directories(library) {
            let fromRows = try rows(library, directory)
            // Every field: tags, times, duration, audio format, in walk order.
            #expect(try packed(library, directory) == fromRows)
            songs += fromRows.count
        }
        #expect(songs == unpacked.count)
        #expect(songs > 10)
        // What `add` of the root gives (now from the blobs) and a recursive listing.
        let fresh = MusicLibrary(database: library.database, musicDirectory: fixture.music,
                                 inspector: FFmpegInspector(), logger: .init(label: "test"))
        #expect(try await fresh.songsForQueue(uri: "") == unpacked)
        #expect(try fresh.list(uri: "", recursive: true).compactMap(\.song) == Array(unpacked))
    }

    /// The blob is read, not the rows: a blob changed on purpose (no trigger sees it) is what `add` gives.
    @Test func theBlobIsWhatIsRead() async throws {
        let fixture = try GeneratedLibrary()
        let library = fixture.library
        try library.database.catchUpIndexes()
        let folder = try directoryID(library, "Sigur Rós/Ágætis byrjun")
        let songs = try #require(try packed(library, folder))
        #expect(songs.count >= 3)
        try await library.database.writer.write { db in
            try db.execute(sql: "UPDATE folder_songs SET songs = ? WHERE directory_id = ?",
                           arguments: [Data(FolderSongs.encode(Array(songs.reversed()))), folder])
        }
        let fresh = MusicLibrary(database: library.database, musicDirectory: fixture.music,
                                 inspector: FFmpegInspector(), logger: .init(label: "test"))
        #expect(try await fresh.songsForQueue(uri: "Sigur Rós/Ágætis byrjun") == SongList(songs.reversed()))
    }

    @Test func writesDropTheBlobOfTheirFolder() async throws {
        let fixture = try GeneratedLibrary()
        let library = fixture.library
        try library.database.catchUpIndexes()
        let total = try blobCount(library)
        let album = try directoryID(library, "Sigur Rós/Ágætis byrjun")
        let untagged = try directoryID(library, "Untagged")
        let quoted = try directoryID(library, "It's \"quoted\"")
        func has(_ directory: Int64) throws -> Bool { try packed(library, directory) != nil }

        // A column the blob does not hold: the blob stays.
        try await library.database.writer.write { db in
            try db.execute(sql: "UPDATE song SET size = size + 1 WHERE directory_id = ?", arguments: [album])
        }
        #expect(try blobCount(library) == total)
        // A song's duration: its folder's blob goes, the others stay.
        try await library.database.writer.write { db in
            try db.execute(sql: "UPDATE song SET duration = 4242 WHERE uri = 'Sigur Rós/Ágætis byrjun/01 Intro.flac'")
        }
        #expect(try !has(album))
        #expect(try has(untagged))
        #expect(try blobCount(library) == total - 1)
        // A song moved between folders: both go.
        try await library.database.writer.write { db in
            try db.execute(sql: "UPDATE song SET directory_id = ? WHERE uri = 'Untagged/silence.wav'", arguments: [quoted])
        }
        #expect(try !has(untagged))
        #expect(try !has(quoted))
        try library.database.catchUpIndexes()
        #expect(try blobCount(library) == total)
        #expect(try packed(library, album)?.first { $0.uri.hasSuffix("01 Intro.flac") }?.duration == 4242)
        #expect(try packed(library, quoted) == rows(library, quoted))
        #expect(try packed(library, quoted)?.contains { $0.uri == "Untagged/silence.wav" } == true)

        // A song deleted, a song inserted.
        try await library.database.writer.write { db in
            try db.execute(sql: "DELETE FROM song WHERE uri = 'Untagged/untagged.mp3'")
        }
        #expect(try !has(untagged))
        try library.database.catchUpIndexes()
        try await library.database.writer.write { db in
            try db.execute(sql: "INSERT INTO song (uri, directory_id) VALUES ('Untagged/new.wav', ?)", arguments: [untagged])
        }
        #expect(try !has(untagged))
        try library.database.catchUpIndexes()
        #expect(try packed(library, untagged) == rows(library, untagged))

        // A folder removed takes its blob along.
        try await library.database.writer.write { db in
            try db.execute(sql: "DELETE FROM directory WHERE id = ?", arguments: [untagged])
        }
        #expect(try await library.database.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM folder_songs WHERE directory_id = ?", arguments: [untagged])
        } == 0)

        // A real update that changes a file: the folder's songs say what the file says now.
        try LibraryScanTests.retitle(fixture.music + "/Sigur Rós/Ágætis byrjun/02 Svefn-g-englar.ogg", "Renamed", in: fixture)
        #expect(try library.runUpdate(uri: "", discard: false))
        try library.database.catchUpIndexes()
        #expect(try packed(library, album) == rows(library, album))
        #expect(try packed(library, album)?.contains { $0.tags.contains(Song.Tag("Title", "Renamed")) } == true)
    }

    /// A blob cut short or overwritten is read from the rows instead; decoding damaged bytes never traps.
    @Test func aDamagedBlobIsReadFromTheRows() async throws {
        let fixture = try GeneratedLibrary()
        let library = fixture.library
        try library.database.catchUpIndexes()
        let album = try directoryID(library, "Sigur Rós/Ágætis byrjun")
        let expected = try rows(library, album)
        let blob = FolderSongs.encode(expected)
        #expect(blob.withUnsafeBytes { FolderSongs.decode($0) } == expected)
        for cut in 0..<blob.count {
            #expect(blob.withUnsafeBytes { FolderSongs.decode(UnsafeRawBufferPointer(rebasing: $0[..<cut])) } == nil)
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var damaged = blob
            for _ in 0..<3 { damaged[Int.random(in: 0..<damaged.count, using: &generator)] = .random(in: 0...255) }
            _ = damaged.withUnsafeBytes { FolderSongs.decode($0) }
        }
        try await library.database.writer.write { db in
            try db.execute(sql: "UPDATE folder_songs SET songs = substr(songs, 1, length(songs) - 3) WHERE directory_id = ?",
                           arguments: [album])
        }
        // An empty blob too (even no songs take a byte).
        let untagged = try directoryID(library, "Untagged")
        let untaggedSongs = try rows(library, untagged)
        #expect(untaggedSongs.count >= 2)
        try await library.database.writer.write { db in
            try db.execute(sql: "UPDATE folder_songs SET songs = x'' WHERE directory_id = ?", arguments: [untagged])
        }
        #expect(try packed(library, untagged) == nil)
        let fresh = MusicLibrary(database: library.database, musicDirectory: fixture.music,
                                 inspector: FFmpegInspector(), logger: .init(label: "test"))
        #expect(try await fresh.songsForQueue(uri: "Sigur Rós/Ágætis byrjun") == SongList(expected))
        #expect(try await fresh.songsForQueue(uri: "Untagged") == SongList(untaggedSongs))
    }

    @Test func everyFieldRoundTrips() {
        let songs = [
            Song(uri: "a/ä b.flac", tags: [Song.Tag("Artist", "Ünïcødé"), Song.Tag("Title", String(repeating: "x", count: 300))],
                 duration: 123.456, lastModified: 1_700_000_000, added: -5, audioFormat: "44100:16:2"),
            Song(uri: "a/none.wav"),
            Song(uri: String(repeating: "長", count: 100), duration: 0, lastModified: 0, added: 0, audioFormat: ""),
            Song(uri: "a/same-format.flac", audioFormat: "44100:16:2"),
        ]
        #expect(FolderSongs.encode(songs).withUnsafeBytes { FolderSongs.decode($0) } == songs)
        #expect(FolderSongs.encode([]).withUnsafeBytes { FolderSongs.decode($0) } == [])
    }
}
