import FakeNetEase
import Foundation
import MPDServer
import NetEase
@testable import NetEaseLibrary
import PlayerCore
import ServerPorts
import Testing

/// `netease://` URIs and share links: what they name, and the songs `add`/`load` get for them.
@Suite struct ReferenceTests {
    @Test(arguments: [
        ("netease://song/5000011", NetEaseReference.song(5_000_011)),
        ("netease://playlist/2000000001", .playlist(2_000_000_001)),
        ("netease://album/3002", .album(3002)),
        ("netease://artist/2005", .artist(2005)),
        ("netease://daily", .daily),
        ("netease://fm", .fm),
        ("netease://heartbeat", .heartbeat),
        ("  netease://song/7 ", .song(7)),
        ("https://music.163.com/song?id=347230", .song(347_230)),
        ("https://music.163.com/#/song?id=347230", .song(347_230)),
        ("https://music.163.com/#/playlist?id=2000000001", .playlist(2_000_000_001)),
        ("https://y.music.163.com/m/song?id=5000021&userid=1", .song(5_000_021)),
        ("https://music.163.com/album?id=3001", .album(3001)),
        ("https://music.163.com/m/album?id=3001", .album(3001)),
        ("https://music.163.com/#/artist?id=2002", .artist(2002)),
        ("https://music.163.com/song/5000031/?userid=1", .song(5_000_031)),
        ("http://www.music.163.com/playlist?id=12&uct2=abc", .playlist(12)),
        ("HTTPS://MUSIC.163.COM/song?id=3", .song(3)),
    ])
    func parses(_ text: String, _ reference: NetEaseReference) {
        #expect(NetEaseReference(text) == reference)
    }

    @Test(arguments: [
        "", "netease://", "netease://song", "netease://song/", "netease://song/abc", "netease://song/0",
        "netease://song/-5", "netease://song/1/2", "netease://video/1", "netease://daily/1", "netease://fm/x",
        "https://163cn.tv/xYz123", "http://163cn.tv/abc", "https://music.163.com/song", "https://music.163.com/#/song?id=",
        "https://music.163.com/song?id=abc", "https://music.163.com/dj?id=5", "https://example.com/song?id=1",
        "https://music.163.com.evil.com/song?id=1", "https://evil.com/music.163.com/song?id=1",
        "ftp://music.163.com/song?id=1", "music.163.com/song?id=1", "Artist/Album/track.flac", "song?id=1",
    ])
    func rejects(_ text: String) {
        #expect(NetEaseReference(text) == nil, "\(text)")
    }

    @Test func canonicalURIs() {
        #expect(NetEaseReference.song(1).uri == "netease://song/1")
        #expect(NetEaseReference.playlist(2).uri == "netease://playlist/2")
        #expect(NetEaseReference.album(3).uri == "netease://album/3")
        #expect(NetEaseReference.artist(4).uri == "netease://artist/4")
        #expect(NetEaseReference.daily.uri == "netease://daily")
        #expect(NetEaseReference.fm.uri == "netease://fm")
        for uri in ["netease://song/1", "netease://playlist/2", "netease://album/3", "netease://artist/4", "netease://daily"] {
            #expect(NetEaseReference(uri)?.uri == uri)
        }
    }

    @Test func catalogRecognizesWhatItExpands() throws {
        let fixture = try Fixture()
        #expect(fixture.catalog.recognizes("netease://song/1"))
        #expect(fixture.catalog.recognizes("https://music.163.com/#/playlist?id=1"))
        #expect(!fixture.catalog.recognizes("https://163cn.tv/abc"))
        #expect(!fixture.catalog.recognizes("http://radio.example/stream.mp3"))
        #expect(!fixture.catalog.recognizes("NetEase/Liked"))
        #expect(fixture.catalog.contains("NetEase") && fixture.catalog.contains("NetEase/Liked"))
        #expect(!fixture.catalog.contains("NetEaseX") && !fixture.catalog.contains("Music/NetEase"))
    }

    // MARK: Expanding

    @Test func songURI() async throws {
        let fixture = try Fixture()
        let songs = try await fixture.catalog.songs(for: "netease://song/5000042")
        expectSongs(songs, [5_000_042], in: fixture)
        // Known now: `knownSong` answers without a request.
        fixture.server.clearLog()
        #expect(await fixture.catalog.knownSong(uri: "netease://song/5000042")?.tag("Title") == "Метро")
        #expect(await fixture.catalog.knownSong(uri: "netease://song/5000043") == nil)
        #expect(fixture.server.requests.isEmpty)
    }

    @Test func unknownSongIsNotFound() async throws {
        let fixture = try Fixture()
        await #expect(throws: PortError.notFound("No such song")) {
            _ = try await fixture.catalog.songs(for: "netease://song/4999999")
        }
        await #expect(throws: PortError.notFound("No such song")) {
            _ = try await fixture.catalog.songs(for: "https://163cn.tv/abc")
        }
    }

    @Test func playlistURI() async throws {
        let fixture = try Fixture()
        let songs = try await fixture.catalog.songs(for: "netease://playlist/2000000001")
        expectSongs(songs, fixture.demo.playlists[2_000_000_001]!.trackIDs, in: fixture)
    }

    @Test func albumURI() async throws {
        let fixture = try Fixture()
        let songs = try await fixture.catalog.songs(for: "netease://album/3002")
        expectSongs(songs, [5_000_021, 5_000_022, 5_000_023, 5_000_024, 5_000_025], in: fixture)
        #expect(songs.map { $0.tag("Title") } == ["雨の街角", "さくら色の手紙", "夜明けまで", "ふたりの傘", "星屑ラジオ"])
    }

    @Test func artistURI() async throws {
        let fixture = try Fixture()
        let songs = try await fixture.catalog.songs(for: "netease://artist/2005")
        expectSongs(songs, [5_000_051, 5_000_052, 5_000_053, 5_000_054, 5_000_055, 5_000_082], in: fixture)
    }

    @Test func dailyURI() async throws {
        let fixture = try Fixture()
        let songs = try await fixture.catalog.songs(for: "netease://daily")
        expectSongs(songs, fixture.demo.dailySongIDs, in: fixture)
    }

    @Test func shareLinks() async throws {
        let fixture = try Fixture()
        expectSongs(try await fixture.catalog.songs(for: "https://music.163.com/#/playlist?id=2000000002"),
                    fixture.demo.playlists[2_000_000_002]!.trackIDs, in: fixture)
        expectSongs(try await fixture.catalog.songs(for: "https://y.music.163.com/m/song?id=5000021"), [5_000_021],
                    in: fixture)
        expectSongs(try await fixture.catalog.songs(for: "https://music.163.com/album?id=3001"),
                    fixture.demo.albums[3001]!.songIDs, in: fixture)
        expectSongs(try await fixture.catalog.songs(for: "https://music.163.com/song/5000031/?userid=1"), [5_000_031],
                    in: fixture)
    }

    /// The database port treats `netease://song/…` like a song path: `lsinfo`/`add` of one gives the song.
    @Test func combinedDatabaseAnswersForSongURIs() async throws {
        let fixture = try Fixture()
        let entries = try await fixture.combined.entries(uri: "netease://song/5000063", recursive: false)
        expectSongs(entries.compactMap(\.song), [5_000_063], in: fixture)
        expectSongs(Array(try await fixture.combined.songsForQueue(uri: "netease://song/5000063")), [5_000_063], in: fixture)
        await #expect(throws: PortError.notFound("No such file")) {
            _ = try await fixture.combined.comments(uri: "netease://song/5000063")
        }
    }

    /// A song the sync stored is known offline: `add netease://song/…` of it sends nothing.
    @Test func syncedSongNeedsNoRequest() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.sync())
        // A new session (the server restarted): nothing remembered, the database still has the song.
        let service = NetEaseService(client: fixture.client, settings: fixture.settings,
                                     cacheDirectory: fixture.root + "/cache2", logger: Fixture.quiet)
        let catalog = NetEaseCatalog(service: service, library: fixture.library, logger: Fixture.quiet)
        fixture.server.clearLog()
        expectSongs(try await catalog.songs(for: "netease://song/5000074"), [5_000_074], in: fixture)
        #expect(await catalog.knownSong(uri: "netease://song/5000074")?.tag("Title") == "凌晨三点")
        #expect(fixture.server.requests.isEmpty, "sent \(fixture.apiPaths)")
    }
}
