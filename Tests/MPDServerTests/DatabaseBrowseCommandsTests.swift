import FFmpegDecoder
import Foundation
import Library
import Logging
import MPDProtocol
@testable import MPDServer
import NoSignalApp
import PlayerCore
import PlayerRuntime
import ServerPorts
import Testing

/// The generated test library (`Tests/Support/make_library.sh`, real ffmpeg), scanned once into a real SQLite file.
final class BrowseFixture: Sendable {
    static let shared = try! BrowseFixture()

    let root: URL
    let library: MusicLibrary

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("nosignal-browse-\(UUID().uuidString)")
        let music = root.appendingPathComponent("music").path
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Support/make_library.sh").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, music]
        try process.run()
        process.waitUntilExit()
        let database = try LibraryDatabase(path: root.appendingPathComponent("database.sqlite").path)
        library = MusicLibrary(database: database, musicDirectory: music, inspector: FFmpegInspector(),
                               logger: Logger(label: "test"))
        try library.runUpdate(uri: "", discard: false)
    }

    func client() async -> TestSession {
        let store = PlayerStore(state: PlayerState(volume: 100), logger: Logger(label: "test"))
        let server = ServerContext(settings: ServerSettings(), store: store, database: library,
                                   logger: Logger(label: "test"))
        return await TestSession(server: server, isLocal: true)
    }
}

/// Expected texts are Debian's MPD 0.23.12 answers on the same generated library (MP3 through libmpg123, as MPD 0.24
/// reads it), without the `Added:` lines that protocol 0.24 adds (see `withoutAdded`).
@Suite(.serialized) struct DatabaseBrowseCommandsTests {
    /// The answer without its `Added:` lines (when the scan found each song), after checking that every song has
    /// one, right after its `Last-Modified:`, as MPD 0.24's `song_print_info` writes it.
    func withoutAdded(_ answer: String) -> String {
        let lines = answer.split(separator: "\n", omittingEmptySubsequences: false)
        var kept: [Substring] = []
        for line in lines {
            if line.hasPrefix("Added: ") {
                #expect(line.wholeMatch(of: /Added: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil, "\(line)")
                #expect(kept.last?.hasPrefix("Last-Modified: ") == true, "Added: not after Last-Modified:")
                continue
            }
            kept.append(line)
        }
        #expect(lines.count { $0.hasPrefix("Added: ") } == lines.count { $0.hasPrefix("file: ") })
        return kept.joined(separator: "\n")
    }

    @Test func lsinfoRootAndADirectory() async throws {
        let c = await BrowseFixture.shared.client()
        let song = """
            Last-Modified: 2020-01-02T03:04:05Z
            Format: 44100:f:1
            Artist: Solo
            Title: Root Song
            Date: 2020
            Time: 1
            duration: 1.000

            """
        var dirs = ""
        for name in ["It's \"quoted\"", "Sigur Rós", "Untagged", "Various", "日本語"] {
            dirs += "directory: \(name)\nLast-Modified: 2020-01-02T03:04:05Z\n"
        }
        let root = "file: .hidden.ogg\n" + song + "file: root.ogg\n" + song + dirs + "OK\n"
        #expect(withoutAdded(await c.send("lsinfo")) == root)
        #expect(withoutAdded(await c.send("lsinfo \"/\"")) == root)
        #expect(withoutAdded(await c.send("lsinfo \"Sigur Rós/( )\"")) == """
            file: Sigur Rós/( )/01 Vaka.mp3
            Last-Modified: 2020-01-02T03:04:05Z
            Format: 44100:16:1
            Artist: Sigur Rós
            Title: Vaka
            Album: ( )
            Track: 1
            Date: 2002
            Genre: Post-Rock
            MUSICBRAINZ_ARTISTID: a1e2c3d4-0001-4000-8000-000000000001
            Time: 1
            duration: 1.000
            OK

            """)
        #expect(await c.send("lsinfo nope") == "ACK [50@0] {lsinfo} No such directory\n")
        #expect(await c.send("tagtypes clear") == "OK\n")
        #expect(withoutAdded(await c.send("lsinfo root.ogg")) == """
            file: root.ogg
            Last-Modified: 2020-01-02T03:04:05Z
            Format: 44100:f:1
            Time: 1
            duration: 1.000
            OK

            """)
    }

    @Test func listallListallinfoListfiles() async throws {
        let c = await BrowseFixture.shared.client()
        #expect(await c.send("listall Various") == """
            directory: Various
            directory: Various/Compilation
            file: Various/Compilation/01 Duet.flac
            file: Various/Compilation/02 Beta Solo.ogg
            file: Various/Compilation/03 gamma.mp3
            OK

            """)
        let info = await c.send("listallinfo \"Sigur Rós/Ágætis byrjun\"")
        #expect(info.hasPrefix("directory: Sigur Rós/Ágætis byrjun\nLast-Modified: 2020-01-02T03:04:05Z\nfile: "))
        #expect(info.hasSuffix("playlist: Sigur Rós/Ágætis byrjun/album.m3u\nLast-Modified: 2021-06-07T08:09:10Z\nOK\n"))
        #expect(await c.send("listfiles Broken").split(separator: "\n").sorted() == [
            "Last-Modified: 2020-01-02T03:04:05Z", "Last-Modified: 2020-01-02T03:04:05Z", "OK",
            "file: corrupt.mp3", "file: notes.txt", "size: 10", "size: 8192",
        ])
        let missing = await c.send("listfiles nope")
        #expect(missing.hasPrefix("ACK [52@0] {listfiles} Failed to open ") && missing.hasSuffix("nope: No such file or directory\n"))
    }

    @Test func albumartAndReadpictureInChunks() async throws {
        let c = await BrowseFixture.shared.client()
        #expect(await c.send("binarylimit 64") == "OK\n")
        let first = await c.sendRaw(Array("albumart \"Sigur Rós/Ágætis byrjun/02 Svefn-g-englar.ogg\" 192".utf8)).text
        #expect(first.hasPrefix("size: 230\nbinary: 38\n") && first.hasSuffix("\nOK\n"))
        #expect(await c.send("albumart \"Sigur Rós/Ágætis byrjun/01 Intro.flac\" 230") == "size: 230\nbinary: 0\n\nOK\n")
        #expect(await c.send("albumart \"Sigur Rós/Ágætis byrjun/01 Intro.flac\" 231")
                == "ACK [2@0] {albumart} Offset too large\n")
        #expect(await c.send("albumart root.ogg 0") == "ACK [50@0] {albumart} No file exists\n")
        let picture = await c.send("readpicture \"Various/Compilation/01 Duet.flac\" 0")
        #expect(picture.hasPrefix("size: ") && picture.contains("\ntype: image/png\nbinary: 64\n"))
        #expect(await c.send("readpicture root.ogg 0") == "OK\n")
        #expect(await c.send("readpicture \"Various/Compilation/01 Duet.flac\" 100000")
                == "ACK [2@0] {readpicture} Bad file offset\n")
        #expect(await c.send("readpicture nope.mp3 0") == "ACK [50@0] {readpicture} No such song\n")
    }

    /// Cantata asks for a cover by the song's folder with its trailing slash: that folder's cover, as MPD up to
    /// 0.24.10 answered (0.24.11's path check refuses it; a declared difference). `readpicture` of a folder and the
    /// other unsafe forms answer 0.24.13's `Bad relative path`.
    @Test func cantataAsksForTheFoldersCover() async throws {
        let c = await BrowseFixture.shared.client()
        let folder = await c.sendRaw(Array("albumart \"Sigur Rós/Ágætis byrjun/\" 0".utf8)).text
        let song = await c.sendRaw(Array("albumart \"Sigur Rós/Ágætis byrjun/01 Intro.flac\" 0".utf8)).text
        #expect(folder.hasPrefix("size: 230\nbinary: 230\n"))
        #expect(folder == song)
        // A root song's "folder" (`root.ogg/`) has no cover; a folder without one neither.
        #expect(await c.send("albumart root.ogg/ 0") == "ACK [50@0] {albumart} No file exists\n")
        #expect(await c.send("albumart Untagged/ 0") == "ACK [50@0] {albumart} No file exists\n")
        #expect(await c.send("albumart Untagged// 0") == "ACK [2@0] {albumart} Bad relative path\n")
        #expect(await c.send("albumart ../x 0") == "ACK [2@0] {albumart} Bad relative path\n")
        // The offset is parsed first.
        #expect(await c.send("albumart ../x x") == "ACK [2@0] {albumart} Integer expected: x\n")
        #expect(await c.send("readpicture Various/Compilation/ 0") == "ACK [2@0] {readpicture} Bad relative path\n")
        #expect(await c.send("readpicture Various/Compilation 0") == "ACK [50@0] {readpicture} No such song\n")
        // A NetEase song's folder (`netease://song/`) names no song: no cover, and no request.
        #expect(await c.send("albumart netease://song/ 0") == "ACK [50@0] {albumart} No file exists\n")
    }

    /// MPD 0.24.11's path traversal fix (`LocateUri` → `uri_safe_local`): `..`, `.`, doubled, leading-dot-only
    /// and trailing-slash segments answer `Bad relative path` in every command that locates a URI; the empty URI
    /// stays the root for `lsinfo`, `listfiles` and `add` (0.24.12); `update` keeps its own "Malformed path".
    @Test func unsafeRelativeURIsAreBadRelativePaths() async throws {
        let c = await BrowseFixture.shared.client()
        for command in ["lsinfo", "listfiles", "add", "addid", "readcomments", "load", "listplaylist",
                        "listplaylistinfo", "playlistlength"] {
            for uri in ["..", "../x", "Untagged/", "Untagged//silence.wav", "./Untagged", "Untagged/.", "a/../b"] {
                #expect(await c.send("\(command) \"\(uri)\"") == "ACK [2@0] {\(command)} Bad relative path\n",
                        "\(command) \(uri)")
            }
        }
        #expect(await c.send("searchplaylist .. \"(bad\"") == "ACK [2@0] {searchplaylist} Bad relative path\n")
        for command in ["addid", "readcomments", "load", "listplaylist"] {
            #expect(await c.send("\(command) \"\"") == "ACK [2@0] {\(command)} Bad relative path\n", "\(command)")
        }
        #expect(await c.send("lsinfo \"\"").hasSuffix("OK\n"))
        #expect(await c.send("listfiles \"\"").hasSuffix("OK\n"))
        #expect(!(await c.send("lsinfo .hidden.ogg")).contains("Bad relative path"))
        #expect(!(await c.send("lsinfo Untagged")).hasPrefix("ACK"))
        // `add`'s position is parsed before the URI is located.
        #expect(await c.send("add .. x") == "ACK [2@0] {add} Integer expected: x\n")
        #expect(await c.send("update ../x") == "ACK [2@0] {update} Malformed path\n")
    }

    @Test func readcommentsStatsAndUpdate() async throws {
        let c = await BrowseFixture.shared.client()
        #expect(await c.send("readcomments \"Untagged/silence.wav\"") == "OK\n")
        let comments = await c.send("readcomments \"Various/Compilation/01 Duet.flac\"")
        #expect(comments.hasPrefix("ARTIST: Alpha\nARTIST: Beta\nALBUMARTIST: Various Artists\n"))
        let stats = await c.send("stats")
        #expect(stats.contains("\nartists: 8\nalbums: 5\nsongs: 15\ndb_playtime: 17\ndb_update: "))
        let update = await c.send("update")
        #expect(update.hasPrefix("updating_db: ") && update.hasSuffix("\nOK\n"))
        #expect(await c.send("update ../x") == "ACK [2@0] {update} Malformed path\n")
        await BrowseFixture.shared.library.waitForUpdates()
        #expect(!(await c.send("status")).contains("updating_db"))
    }

    /// MPD 0.24.13: `add` walks the database and keeps its added time; `addid` and stored playlists look a song up
    /// by URI, and that copy has none, so `Added:` is the file's modification time (`DetachedSong::GetAdded`).
    @Test func addedOfSongsLookedUpByURI() async throws {
        let c = await BrowseFixture.shared.client()
        func added(_ answer: String) -> [String] {
            answer.split(separator: "\n").filter { $0.hasPrefix("Added: ") }.map { String($0.dropFirst(7)) }
        }
        let listed = await c.send("lsinfo \"root.ogg\"")
        let scanned = try #require(added(listed).first)
        #expect(!scanned.hasPrefix("2020-"), "the scan's time, not the file's: \(listed)")
        #expect(await c.send("add \"root.ogg\"") == "OK\n")
        #expect(await c.send("addid \"root.ogg\"").hasPrefix("Id: "))
        #expect(added(await c.send("playlistinfo")) == [scanned, "2020-01-02T03:04:05Z"])
        #expect(await c.send("clear") == "OK\n")
    }

    @Test func withoutDatabase() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("lsinfo") == "ACK [50@0] {lsinfo} No database\n")
        #expect(await c.send("update") == "ACK [50@0] {update} No database\n")
        #expect(await c.send("stats").hasSuffix("playtime: 0\nOK\n"))
    }
}

/// A database of `count` songs that exist only while they are listed: what a listing of a huge library costs.
final class HugeDatabase: MusicDatabase, @unchecked Sendable {
    let count: Int
    private let lock = NSLock()
    private var visitedCount = 0
    var visited: Int { lock.withLock { visitedCount } }

    init(count: Int) { self.count = count }

    func visitEntries(uri: String, recursive: Bool, _ visit: @escaping @Sendable (LibraryEntry) -> Bool) async throws {
        for index in 0..<count {
            lock.withLock { visitedCount += 1 }
            let song = Song(uri: "lib/\(index).flac", tags: [Song.Tag("Artist", "Artist \(index % 500)"),
                                                              Song.Tag("Title", "Title \(index)")], duration: 1)
            guard visit(.song(song)) else { return }
        }
    }
    func entries(uri: String, recursive: Bool) async throws -> [LibraryEntry] {
        Issue.record("a listing must stream, not be built whole")
        return []
    }
    func songsForQueue(uri: String) async throws -> SongList { [] }
    func playlistFile(uri: String) async throws -> [PlaylistEntry]? { nil }
    func files(uri: String) async throws -> [StorageEntry] { [] }
    func startUpdate(uri: String, rescan: Bool) throws -> Int { 1 }
    var updatingJobID: Int? { nil }
    func comments(uri: String) async throws -> [(key: String, value: String)] { [] }
    func albumArt(uri: String) async throws -> [UInt8] { [] }
    func picture(uri: String) async throws -> (data: [UInt8], mimeType: String?)? { nil }
    func statistics() async throws -> DatabaseStatistics { .init(artists: 0, albums: 0, songs: 0, playtime: 0, lastUpdate: nil) }
}

@Suite struct StreamedListingTests {
    static func client(_ database: HugeDatabase, outputBuffer: Int) async -> TestSession {
        var settings = ServerSettings()
        settings.maxOutputBufferSize = outputBuffer
        let server = ServerContext(settings: settings, store: PlayerStore(state: PlayerState(), logger: Logger(label: "test")),
                                   database: database, logger: Logger(label: "test"))
        return await TestSession(server: server)
    }

    /// An answer that would pass the output buffer is not sent at all and the client is dropped, as MPD does; the
    /// listing stops as soon as the answer is too large, so the rest of the library is never read or held.
    @Test func anOverLimitListingStopsEarlyAndSendsNothing() async {
        let database = HugeDatabase(count: 1_000_000)
        let c = await Self.client(database, outputBuffer: 64 * 1024)
        let result = await c.sendRaw(Array("listallinfo".utf8))
        #expect(result.text.isEmpty)
        #expect(result.disposition == .drop)
        // About 60 bytes a song: the limit (80 KiB with MPD's fixed 16 KiB) is passed after ~1,400 songs.
        #expect(database.visited > 1000 && database.visited < 2000, "visited \(database.visited)")
    }

    @Test func aListingWithinTheLimitIsAnsweredWhole() async {
        let database = HugeDatabase(count: 500)
        let c = await Self.client(database, outputBuffer: 64 * 1024)
        let text = await c.send("listall")
        #expect(text.hasSuffix("file: lib/499.flac\nOK\n"))
        #expect(text.components(separatedBy: "\n").count == 502)
        #expect(database.visited == 500)
    }

    /// A client that leaves abandons its answer: the listing stops at the next record.
    @Test func anAbandonedAnswerStopsTheListing() async throws {
        let answer = StreamedAnswer(limit: .max)
        #expect(answer.write { $0.add("file", "a") })
        answer.abandon()
        #expect(!answer.write { $0.add("file", "b") })
        #expect(throws: CancellationError.self) { try answer.finish() }
        let database = HugeDatabase(count: 10_000_000)
        let task = Task {
            try await StreamedAnswer.build(limit: .max) { answer in
                try await database.visitEntries(uri: "", recursive: true) { entry in
                    answer.write { DatabaseBrowseCommands.write(entry, full: false, mask: .none, into: &$0) }
                }
            }
        }
        while database.visited == 0 { try await Task.sleep(for: .milliseconds(1)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(database.visited < 10_000_000)
    }
}
