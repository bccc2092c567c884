import Foundation
import GRDB
import Library
import Logging
import MPDProtocol
@testable import MPDServer
import NoSignalApp
import PlayerCore
import PlayerRuntime
import ServerPorts
import Testing


/// A server whose queries and stickers run on a real SQLite library file, filled by direct inserts.
final class QueryServer {
    let directory: URL
    let database: LibraryDatabase
    let server: ServerContext

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("nosignal-qs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        database = try LibraryDatabase(path: directory.appendingPathComponent("db.sqlite").path)
        let store = PlayerStore(state: PlayerState(volume: 100), logger: Logger(label: "test"))
        server = ServerContext(settings: ServerSettings(), store: store, queries: LibraryQueries(database),
                               stickers: StickerDatabase(database), logger: Logger(label: "test"))
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func client() async -> TestSession { await TestSession(server: server, isLocal: true) }

    func add(_ uri: String, _ tags: [(TagName, String)], duration: Double? = nil, modified: Int64? = nil,
             format: String? = nil) throws {
        try database.writer.write { db in
            let parent = uri.contains("/") ? String(uri[..<uri.lastIndex(of: "/")!]) : ""
            var path = ""
            var parentID = try Int64.fetchOne(db, sql: "SELECT id FROM directory WHERE path = ''")!
            for component in parent.split(separator: "/") {
                path = path.isEmpty ? String(component) : path + "/" + component
                if let id = try Int64.fetchOne(db, sql: "SELECT id FROM directory WHERE path = ?", arguments: [path]) {
                    parentID = id
                } else {
                    try db.execute(sql: "INSERT INTO directory (path, parent_id) VALUES (?, ?)", arguments: [path, parentID])
                    parentID = db.lastInsertedRowID
                }
            }
            try db.execute(sql: """
                INSERT INTO song (uri, directory_id, duration, last_modified, audio_format) VALUES (?, ?, ?, ?, ?)
                """, arguments: [uri, parentID, duration, modified, format])
            let id = db.lastInsertedRowID
            for (position, (tag, value)) in tags.enumerated() {
                try db.execute(sql: """
                    INSERT INTO song_tag (song_id, tag, position, value, value_folded) VALUES (?, ?, ?, ?, ?)
                    """, arguments: [id, tag.rawValue, position, value, CaseFolding.fold(value)])
            }
            try LibraryDatabase.tagRowsWritten(db, songID: id)
        }
    }

    static func standard() throws -> QueryServer {
        let s = try QueryServer()
        try s.add("A/1.flac", [(.artist, "Alpha"), (.album, "One"), (.title, "First"), (.track, "1")], duration: 10.5,
                  modified: 0, format: "44100:16:2")
        try s.add("A/2.flac", [(.artist, "Alpha"), (.artist, "Beta"), (.album, "One"), (.title, "Second"), (.track, "2")],
                  duration: 20.25, modified: 86400)
        try s.add("B/3.mp3", [(.artist, "beta"), (.album, "Two"), (.title, "Third")], duration: 30)
        try s.add("B/4.mp3", [(.title, "Fourth")])
        return s
    }
}

/// `find`, `search`, `count`, `list`, `findadd`, `searchadd` over a real SQLite file. Expected texts follow
/// Debian's MPD 0.23.12 (the differential script `db_query.mpdscript` checks the same on the generated library).
@Suite struct DatabaseQueryCommandsTests {
    @Test func findPrintsSongBlocks() async throws {
        let s = try QueryServer.standard()
        let c = await s.client()
        #expect(await c.send("find artist Beta") == """
            file: A/2.flac
            Last-Modified: 1970-01-02T00:00:00Z
            Artist: Alpha
            Artist: Beta
            Album: One
            Title: Second
            Track: 2
            Time: 20
            duration: 20.250
            OK

            """)
        #expect(await c.send("find \"(Title == 'First')\"") == """
            file: A/1.flac
            Last-Modified: 1970-01-01T00:00:00Z
            Format: 44100:16:2
            Artist: Alpha
            Album: One
            Title: First
            Track: 1
            Time: 11
            duration: 10.500
            OK

            """)
        // Sorted results lose the audio format, as in MPD 0.23.
        #expect(await c.send("find \"(Title == 'First')\" sort Title").contains("Format") == false)
    }

    @Test func searchFoldsCase() async throws {
        let s = try QueryServer.standard()
        defer { withExtendedLifetime(s) {} }
        let c = await s.client()
        let files = await c.send("search artist BET").split(separator: "\n").filter { $0.hasPrefix("file: ") }
        #expect(files == ["file: A/2.flac", "file: B/3.mp3"])
        #expect(await c.send("search \"(title contains 'IR')\" window 0:1").hasPrefix("file: A/1.flac\n"))
    }

    @Test func errorsAsMPD() async throws {
        let s = try QueryServer.standard()
        defer { withExtendedLifetime(s) {} }
        let c = await s.client()
        #expect(await c.send("find") == "ACK [2@0] {find} too few arguments for \"find\"\n")
        #expect(await c.send("find artist") == "ACK [2@0] {find} Incorrect number of filter arguments\n")
        #expect(await c.send("find \"(base 'nope')\"") == "ACK [50@0] {find} No such directory\n")
        #expect(await c.send("list album group album") == "ACK [2@0] {list} Conflicting group\n")
        #expect(await c.send("list title Alpha") == "ACK [2@0] {list} should be \"Album\" for 3 arguments\n")
        let noDatabase = await TestSession(server: TestSession.server())
        #expect(await noDatabase.send("find artist x") == "ACK [50@0] {find} No database\n")
    }

    @Test func countAndGroups() async throws {
        let s = try QueryServer.standard()
        defer { withExtendedLifetime(s) {} }
        let c = await s.client()
        #expect(await c.send("count artist Alpha") == "songs: 2\nplaytime: 30\nOK\n")
        #expect(await c.send("count group artist") == """
            Artist: 
            songs: 1
            playtime: 0
            Artist: Alpha
            songs: 2
            playtime: 30
            Artist: Beta
            songs: 1
            playtime: 20
            Artist: beta
            songs: 1
            playtime: 30
            OK

            """)
        #expect(await c.send("searchcount artist beta") == "songs: 2\nplaytime: 50\nOK\n")
    }

    @Test func listNestsGroupsLastOutermost() async throws {
        let s = try QueryServer.standard()
        defer { withExtendedLifetime(s) {} }
        let c = await s.client()
        #expect(await c.send("list artist") == "Artist: \nArtist: Alpha\nArtist: Beta\nArtist: beta\nOK\n")
        #expect(await c.send("list album Alpha") == "Album: One\nOK\n")
        #expect(await c.send("list title group album") == """
            Album: 
            Title: Fourth
            Album: One
            Title: First
            Title: Second
            Album: Two
            Title: Third
            OK

            """)
        #expect(await c.send("list track group artist group album") == """
            Album: 
            Artist: 
            Track: 
            Album: One
            Artist: Alpha
            Track: 1
            Track: 2
            Artist: Beta
            Track: 2
            Album: Two
            Artist: beta
            Track: 
            OK

            """)
        let listed = await c.send("list file \"(base 'B')\"")
        // Inside a directory, songs without an album come first (`song_cmp`).
        #expect(listed == "file: B/4.mp3\nfile: B/3.mp3\nOK\n")
    }

    @Test func findaddAndSearchaddAppendToTheQueue() async throws {
        let s = try QueryServer.standard()
        defer { withExtendedLifetime(s) {} }
        let c = await s.client()
        #expect(await c.send("findadd album One") == "OK\n")
        #expect(await c.send("searchadd title FOURTH position 0") == "OK\n")
        #expect(await c.send("playlist") == "0:file: B/4.mp3\n1:file: A/1.flac\n2:file: A/2.flac\nOK\n")
        #expect(await c.send("findadd album One position 9") == "ACK [2@0] {findadd} Number too large: 9\n")
        #expect(await c.send("findadd \"(album == 'One')\" sort -Track window 0:1") == "OK\n")
        #expect(await c.send("playlist").hasSuffix("3:file: A/2.flac\nOK\n"))
    }
}
