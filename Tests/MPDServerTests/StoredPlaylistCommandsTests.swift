import Logging
import MPDProtocol
@testable import MPDServer
import PlayerCore
import PlayerRuntime
import ServerPorts
import Synchronization
import Testing

/// An in-memory playlist directory with the semantics of `Library.PlaylistDirectory`.
final class MemoryPlaylists: PlaylistStore {
    let files = Mutex<[String: [String]]>([:])

    func playlists() async throws -> [StoredPlaylistInfo] {
        files.withLock { $0.keys.sorted().map { StoredPlaylistInfo(name: $0, lastModified: 0) } }
    }

    func uris(of name: String) async throws -> [String] {
        guard let uris = files.withLock({ $0[name] }) else { throw PlayerError.noSuchPlaylist }
        return uris
    }

    func savePlaylist(_ name: String, uris: [String], mode: PlaylistSaveMode) async throws {
        try files.withLock { files in
            switch mode {
            case .create:
                guard files[name] == nil else { throw PlayerError.playlistExists("Playlist already exists") }
                files[name] = uris
            case .append: files[name, default: []] += uris
            case .replace: files[name] = uris
            }
        }
    }

    func editPlaylist(_ name: String, createIfMissing: Bool, _ body: @Sendable ([String]) throws -> [String]?)
        async throws
    {
        try files.withLock { files in
            guard let current = files[name] ?? (createIfMissing ? [] : nil) else { throw PlayerError.noSuchPlaylist }
            if let updated = try body(current) { files[name] = updated }
        }
    }

    func renamePlaylist(_ name: String, to newName: String) async throws {
        try files.withLock { files in
            guard files[newName] == nil else { throw PlayerError.playlistExists("Playlist exists already") }
            guard let uris = files[name] else { throw PlayerError.noSuchPlaylist }
            files[newName] = uris
            files[name] = nil
        }
    }

    func removePlaylist(_ name: String) async throws {
        try files.withLock { files in
            guard files.removeValue(forKey: name) != nil else { throw PlayerError.noSuchPlaylist }
        }
    }
}

/// A store that also takes names below `Remote/` (as NetEase's `NetEase/<name>`), kept in the same memory.
final class ClaimingPlaylists: PlaylistStore {
    let memory = MemoryPlaylists()

    func claimsName(_ name: String) -> Bool {
        let rest = name.dropFirst("Remote/".count)
        return name.hasPrefix("Remote/") && !rest.isEmpty && !rest.contains("/")
    }
    func playlists() async throws -> [StoredPlaylistInfo] { try await memory.playlists() }
    func uris(of name: String) async throws -> [String] { try await memory.uris(of: name) }
    func savePlaylist(_ name: String, uris: [String], mode: PlaylistSaveMode) async throws {
        try await memory.savePlaylist(name, uris: uris, mode: mode)
    }
    func editPlaylist(_ name: String, createIfMissing: Bool, _ body: @Sendable ([String]) throws -> [String]?)
        async throws
    {
        try await memory.editPlaylist(name, createIfMissing: createIfMissing, body)
    }
    func renamePlaylist(_ name: String, to newName: String) async throws {
        try await memory.renamePlaylist(name, to: newName)
    }
    func removePlaylist(_ name: String) async throws { try await memory.removePlaylist(name) }
}

@Suite struct StoredPlaylistCommandsTests {
    static func client() async -> TestSession {
        var settings = ServerSettings()
        settings.playlistDirectory = "/playlists"
        let store = PlayerStore(state: PlayerState(volume: 100), logger: .init(label: "test"))
        let server = ServerContext(settings: settings, store: store, playlists: MemoryPlaylists(),
                                   logger: .init(label: "test"))
        let c = await TestSession(server: server)
        for i in 0..<3 { await c.send("add http://host/\(i)") }
        return c
    }

    @Test func saveListLoad() async {
        let c = await Self.client()
        #expect(await c.send("save p1") == "OK\n")
        #expect(await c.send("save p1") == "ACK [56@0] {save} Playlist already exists\n")
        #expect(await c.send("save a/b") == "ACK [2@0] {save} Bad playlist name\n")
        #expect(await c.send("save \"\"") == "ACK [2@0] {save} Bad playlist name\n")
        #expect(await c.send("listplaylists") == "playlist: p1\nLast-Modified: 1970-01-01T00:00:00Z\nOK\n")
        #expect(await c.send("listplaylist p1") == "file: http://host/0\nfile: http://host/1\nfile: http://host/2\nOK\n")
        #expect(await c.send("listplaylistinfo p1 1:2") == "file: http://host/1\nOK\n")
        #expect(await c.send("listplaylist nope") == "ACK [50@0] {listplaylist} No such playlist\n")
        #expect(await c.send("load nope") == "ACK [50@0] {load} No such playlist\n")
        #expect(await c.send("load p1 1:3 0") == "OK\n")
        #expect(await c.send("playlist") == """
            0:file: http://host/1
            1:file: http://host/2
            2:file: http://host/0
            3:file: http://host/1
            4:file: http://host/2
            OK

            """)
        #expect(await c.send("load p1 0:1 +0") == "ACK [55@0] {load} No current song\n")
        #expect(await c.send("playlistlength p1") == "songs: 3\nplaytime: 0\nOK\n")
        #expect(await c.send("save p1 append") == "OK\n")
        #expect(await c.send("playlistlength p1") == "songs: 8\nplaytime: 0\nOK\n")
        #expect(await c.send("save p1 bogus") ==
                "ACK [2@0] {save} Unrecognized save mode, expected one of 'create', 'append', 'replace'\n")
    }

    @Test func editing() async {
        let c = await Self.client()
        await c.send("save p1")
        await c.send("save p2")
        #expect(await c.send("rename nope x") == "ACK [50@0] {rename} No such playlist\n")
        #expect(await c.send("rename p1 p2") == "ACK [56@0] {rename} Playlist exists already\n")
        #expect(await c.send("rename nope p2") == "ACK [56@0] {rename} Playlist exists already\n")
        #expect(await c.send("rename p1 a/b") == "ACK [2@0] {rename} Bad playlist name\n")
        #expect(await c.send("playlistdelete p1 10") == "ACK [2@0] {playlistdelete} Bad song index\n")
        #expect(await c.send("playlistdelete nope 0") == "ACK [50@0] {playlistdelete} No such playlist\n")
        #expect(await c.send("playlistmove p1 0 10") == "ACK [2@0] {playlistmove} Bad range\n")
        #expect(await c.send("playlistmove nope 0 1") == "ACK [50@0] {playlistmove} No such playlist\n")
        #expect(await c.send("playlistmove nope 1 1") == "OK\n")
        #expect(await c.send("playlistadd p1 http://y 10") == "ACK [2@0] {playlistadd} Bad position\n")
        #expect(await c.send("playlistadd p3 nonexist") == "ACK [50@0] {playlistadd} No database\n")
        #expect(await c.send("playlistadd p3 http://a") == "OK\n")
        #expect(await c.send("playlistadd p3 http://b 0") == "OK\n")
        #expect(await c.send("playlistmove p3 0 1") == "OK\n")
        #expect(await c.send("listplaylist p3") == "file: http://a\nfile: http://b\nOK\n")
        #expect(await c.send("playlistdelete p3 0") == "OK\n")
        #expect(await c.send("listplaylist p3") == "file: http://b\nOK\n")
        #expect(await c.send("playlistclear nope") == "ACK [50@0] {playlistclear} No such playlist\n")
        #expect(await c.send("playlistclear p3") == "OK\n")
        #expect(await c.send("listplaylist p3") == "OK\n")
        #expect(await c.send("rm p3") == "OK\n")
        #expect(await c.send("rm p3") == "ACK [50@0] {rm} No such playlist\n")
        #expect(await c.send("rename p1 p9") == "OK\n")
        #expect(await c.send("listplaylists") ==
                "playlist: p2\nLast-Modified: 1970-01-01T00:00:00Z\nplaylist: p9\nLast-Modified: 1970-01-01T00:00:00Z\nOK\n")
    }

    @Test func searchPlaylist() async {
        let c = await Self.client()
        await c.send("save p1")
        #expect(await c.send("searchplaylist p1 \"(file contains 'HOST/1')\"") == "file: http://host/1\nPos: 1\nOK\n")
    }

    /// A `/` is fine in the names the store claims, and only there.
    @Test func namesTheStoreClaims() async {
        var settings = ServerSettings()
        settings.playlistDirectory = "/playlists"
        let store = PlayerStore(state: PlayerState(volume: 100), logger: .init(label: "test"))
        let server = ServerContext(settings: settings, store: store, playlists: ClaimingPlaylists(),
                                   logger: .init(label: "test"))
        let c = await TestSession(server: server)
        await c.send("add http://host/0")
        #expect(await c.send("save Remote/list") == "OK\n")
        #expect(await c.send("playlistadd Remote/list http://host/1") == "OK\n")
        #expect(await c.send("listplaylist Remote/list") == "file: http://host/0\nfile: http://host/1\nOK\n")
        #expect(await c.send("playlistdelete Remote/list 0") == "OK\n")
        #expect(await c.send("rm Remote/list") == "OK\n")
        #expect(await c.send("save Remote/a/b") == "ACK [2@0] {save} Bad playlist name\n")
        #expect(await c.send("save Remote/") == "ACK [2@0] {save} Bad playlist name\n")
        #expect(await c.send("save Other/list") == "ACK [2@0] {save} Bad playlist name\n")
        #expect(await c.send("rename local Other/list") == "ACK [2@0] {rename} Bad playlist name\n")
    }

    @Test func hiddenWithoutAPlaylistDirectory() async {
        let table = CommandTable.standard(for: ServerSettings())
        let listed = Set(table.commands.map(\.name))
        #expect(!listed.contains("save") && !listed.contains("listplaylists"))
        #expect(listed.contains("load") && listed.contains("listplaylist"))
        var settings = ServerSettings()
        settings.playlistDirectory = "/p"
        #expect(Set(CommandTable.standard(for: settings).commands.map(\.name)).contains("save"))
        let server = ServerContext(settings: ServerSettings(), store: TestSession.server().store, table: table,
                                   logger: .init(label: "test"))
        let c = await TestSession(server: server)
        #expect(await c.send("save x") == "ACK [5@0] {save} Stored playlists are disabled\n")
        #expect(await c.send("load x") == "ACK [50@0] {load} No such playlist\n")
        #expect(await c.send("listplaylist x") == "ACK [50@0] {listplaylist} No such playlist\n")
    }

    /// Entries as the playlist plugins give them (`PlaylistEntry`): what loads is printed in full (the playlist's
    /// tags, a CUE range), what does not (a path outside the music directory, a scheme the server does not play) is
    /// printed as `file: URI` by `listplaylist(info)` and `searchplaylist` and skipped by `load`, as
    /// `playlist_provider_print` and `playlist_load_into_queue` do; `playlistlength` counts every entry and the
    /// durations of those that load, rounded half to even.
    @Test func entriesThatDoNotLoadArePrintedAsTheirURI() async {
        var settings = ServerSettings()
        settings.playlistDirectory = "/playlists"
        let store = PlayerStore(state: PlayerState(volume: 100), logger: .init(label: "test"))
        let entries: [PlaylistEntry] = [
            PlaylistEntry(song: Song(uri: "http://host/a", tags: [Song.Tag("Name", "Radio")], duration: 2),
                          range: Queue.ClosedRangeSeconds(start: 0.5, end: nil), location: .url),
            PlaylistEntry(song: Song(uri: "/elsewhere/b.flac", tags: [Song.Tag("Title", "T")]), location: .unavailable),
            PlaylistEntry(song: Song(uri: "ftp://host/c", tags: [Song.Tag("Title", "F")], duration: 9), location: .url),
            PlaylistEntry(song: Song(uri: "http://host/d", duration: 1),
                          range: Queue.ClosedRangeSeconds(start: 1, end: 2.5), location: .url),
        ]
        let server = ServerContext(settings: settings, store: store, playlists: EntryPlaylists(entries),
                                   logger: .init(label: "test"))
        let c = await TestSession(server: server)
        #expect(await c.send("listplaylist p") ==
                "file: http://host/a\nfile: /elsewhere/b.flac\nfile: ftp://host/c\nfile: http://host/d\nOK\n")
        #expect(await c.send("listplaylistinfo p") == """
            file: http://host/a
            Range: 0.500-
            Name: Radio
            Time: 2
            duration: 1.500
            file: /elsewhere/b.flac
            file: ftp://host/c
            file: http://host/d
            Range: 1.000-2.500
            Time: 2
            duration: 1.500
            OK

            """)
        #expect(await c.send("searchplaylist p \"(Title == 'T')\"") == "file: /elsewhere/b.flac\nOK\n")
        #expect(await c.send("searchplaylist p \"(Name == 'Radio')\"") ==
                "file: http://host/a\nRange: 0.500-\nName: Radio\nTime: 2\nduration: 1.500\nPos: 0\nOK\n")
        // 1.5 s + 1.5 s: 3 s; the ftp entry does not load.
        #expect(await c.send("playlistlength p") == "songs: 4\nplaytime: 3\nOK\n")
        #expect(await c.send("load p") == "OK\n")
        #expect(await c.send("playlist") == "0:file: http://host/a\n1:file: http://host/d\nOK\n")
        // The songs keep their ranges in the queue (`playlist::AppendSong`).
        #expect(await c.send("playlistinfo") == """
            file: http://host/a
            Range: 0.500-
            Name: Radio
            Time: 2
            duration: 1.500
            Pos: 0
            Id: 1
            file: http://host/d
            Range: 1.000-2.500
            Time: 2
            duration: 1.500
            Pos: 1
            Id: 2
            OK

            """)
    }
}

/// A store with one playlist `p` whose entries are given as the playlist plugins would give them.
final class EntryPlaylists: PlaylistStore {
    let list: [PlaylistEntry]
    init(_ list: [PlaylistEntry]) { self.list = list }
    func playlists() async throws -> [StoredPlaylistInfo] { [StoredPlaylistInfo(name: "p", lastModified: 0)] }
    func uris(of name: String) async throws -> [String] { try await entries(of: name).map(\.song.uri) }
    func entries(of name: String) async throws -> [PlaylistEntry] {
        guard name == "p" else { throw PlayerError.noSuchPlaylist }
        return list
    }
    func savePlaylist(_ name: String, uris: [String], mode: PlaylistSaveMode) async throws {}
    func editPlaylist(_ name: String, createIfMissing: Bool, _ body: @Sendable ([String]) throws -> [String]?)
        async throws {}
    func renamePlaylist(_ name: String, to newName: String) async throws {}
    func removePlaylist(_ name: String) async throws {}
}
