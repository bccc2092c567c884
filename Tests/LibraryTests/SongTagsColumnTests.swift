import Foundation
import GRDB
@testable import Library
import MPDProtocol
import PlayerCore
import Testing

/// `song.tags`, the tags of a song in one column (`SongTagsColumn`): what listings, `add` and search results
/// read, kept equal to the `song_tag` rows that filters and `list` read.
@Suite struct SongTagsColumnTests {
    @Test func encodingRoundTrips() throws {
        let long = String(repeating: "Ünïcödé ", count: 40) // 400+ bytes: a length of two LEB128 bytes
        let tags: [(tag: Int, value: String)] = [
            (TagName.artist.rawValue, "Björk"), (TagName.artist.rawValue, ""), (TagName.title.rawValue, long),
            (TagName.musicBrainzReleaseGroupID.rawValue, "5b11f4ce-a62d-471e-81fc-a69a8278c7da"),
            (TagName.comment.rawValue, "中文 ♫ 🎵"),
        ]
        let bytes = try #require(SongTagsColumn.encode(tags))
        let decoded = PackedTags(bytes: bytes).tags
        #expect(decoded.map(\.name) == tags.map { TagName(rawValue: $0.tag)!.mpdName })
        #expect(decoded.map(\.value) == tags.map(\.value))
        // The column holds what a `Song` keeps: the same tags packed by the song give the same bytes.
        #expect(PackedTags(decoded).bytes == bytes)
        #expect(SongTagsColumn.encode([]) == nil)
    }

    /// Bytes that are not what the encoder writes (a length past the end, a cut blob) give the tags before the
    /// damage, and are never read past their end; a name this version does not know stays a tag (not printed).
    @Test func damagedValuesDecodeWhatTheyCan() throws {
        var bytes = try #require(SongTagsColumn.encode([(TagName.album.rawValue, "Kept")]))
        PackedTags.append(Array("NewTag".utf8), Array("x".utf8), to: &bytes)
        bytes += [5] + Array("Title".utf8) + [0xFF, 0xFF, 0x7F] + Array("cut".utf8) // longer than what is left
        let decoded = PackedTags(bytes: bytes).tags
        #expect(decoded == [Song.Tag(name: "Album", printable: "Kept"), Song.Tag(name: "NewTag", printable: "x")])
        for end in 0...bytes.count {
            _ = PackedTags(bytes: Array(bytes[..<end])).tags
        }
    }

    /// Every song's column decodes to its tag rows, in order.
    static func expectColumnMatchesRows(_ writer: any DatabaseWriter, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let (columns, rows) = try writer.read { db in
            var columns: [Int64: [Song.Tag]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, tags FROM song") {
                let data: Data? = row[1]
                columns[row[0]] = data.map { PackedTags(bytes: [UInt8]($0)).tags } ?? []
            }
            var rows: [Int64: [Song.Tag]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT song_id, tag, value FROM song_tag ORDER BY song_id, position") {
                rows[row[0], default: []].append(Song.Tag(name: TagName(rawValue: row[1])!.mpdName, printable: row[2]))
            }
            return (columns, rows)
        }
        #expect(!columns.isEmpty, sourceLocation: sourceLocation)
        for (id, tags) in columns {
            #expect(tags == rows[id] ?? [], "song \(id)", sourceLocation: sourceLocation)
        }
    }

    /// Scans (new songs, changed tags, tags removed) and syncs of a remote collection write both.
    @Test func writersKeepTheColumnAndTheRowsEqual() throws {
        let fixture = try RemoteCollectionTests.Fixture()
        let library = fixture.library
        try fixture.write("A/one.flac", [("Artist", "First"), ("Title", "One"), ("Artist", "Second")])
        try fixture.write("A/two.flac", [("Title", "Two"), ("Comment", String(repeating: "x", count: 300))])
        try fixture.write("B/three.flac", [("Album", "Third")])
        try library.runUpdate(uri: "", discard: false)
        try Self.expectColumnMatchesRows(library.database.writer)

        try fixture.write("A/one.flac", [("Title", "One (changed)")])
        try fixture.write("B/three.flac", [])
        for uri in ["A/one.flac", "B/three.flac"] { // a second later than the scan saw
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)],
                                                  ofItemAtPath: fixture.music + "/" + uri)
        }
        try library.runUpdate(uri: "", discard: false)
        try Self.expectColumnMatchesRows(library.database.writer)
        #expect(try library.song(uri: "A/one.flac")?.tags == [Song.Tag("Title", "One (changed)")])
        #expect(try library.song(uri: "B/three.flac")?.tags == [])

        #expect(try library.replaceRemoteCollection(source: "netease", directories: RemoteCollectionTests.tree()))
        var retagged = RemoteCollectionTests.b
        retagged.tags = [Song.Tag("Title", "Beta Song (Live)")]
        #expect(try library.replaceRemoteCollection(source: "netease", directories: RemoteCollectionTests.tree(
            liked: [RemoteCollectionTests.a, retagged])))
        try Self.expectColumnMatchesRows(library.database.writer)
        #expect(try library.song(uri: retagged.uri) == retagged)
    }

    /// A database from before the column gets it filled from the tag rows when it is opened.
    @Test func aDatabaseFromBeforeTheColumnIsFilled() throws {
        let (directory, path) = try LibrarySchemaTests.temporaryPath()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let queue = try LibrarySchemaTests.migratedQueue(at: path, upTo: "v11-walk-indexes")
            try queue.write { db in
                try db.execute(sql: "INSERT INTO directory (path, parent_id) VALUES ('a', 1)")
                for uri in ["a/x.flac", "a/y.flac", "a/untagged.flac"] {
                    try db.execute(sql: "INSERT INTO song (uri, directory_id, duration) VALUES (?, 2, 1.5)",
                                   arguments: [uri])
                }
                for (song, position, tag, value) in [(1, 1, 6, "Second"), (1, 0, 0, "First"), (2, 0, 2, "Älbum")] {
                    try db.execute(sql: """
                        INSERT INTO song_tag (song_id, tag, position, value, value_folded) VALUES (?, ?, ?, ?, lower(?))
                        """, arguments: [song, tag, position, value, value])
                }
            }
        }
        let database = try LibraryDatabase(path: path)
        try Self.expectColumnMatchesRows(database.writer)
        let songs = try database.writer.read { db in try LibraryQueries.songsByID([1, 2, 3], db) }
        #expect(songs[1]?.tags == [Song.Tag("Artist", "First"), Song.Tag("Title", "Second")])
        #expect(songs[2]?.tags == [Song.Tag("Album", "Älbum")])
        #expect(songs[3]?.tags == [])
    }
}
