import FakeNetEase
import Foundation
import Library
import MPDProtocol
import MPDServer
import NetEase
@testable import NetEaseLibrary
import PlayerCore
import ServerPorts
import Testing

/// `update NetEase` and the background sync: the collection goes into the SQLite library, and the synced folders
/// are then read from it.
@Suite struct SyncTests {
    /// Every song the demo account's collection holds: daily, liked, and each own or subscribed playlist.
    static func collection(_ fixture: Fixture) -> Set<String> {
        let demo = fixture.demo
        var ids = Set(demo.dailySongIDs + demo.likedSongIDs)
        for id in demo.ownPlaylistIDs.dropFirst() + demo.subscribedPlaylistIDs {
            ids.formUnion(demo.playlists[id]!.trackIDs)
        }
        return Set(ids.map(fixture.uri))
    }

    @Test func syncReportsChangesOnlyWhenThereAreAny() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.sync())
        #expect(try await !fixture.sync())
    }

    @Test func syncedSongsAreInTheLibrary() async throws {
        let fixture = try Fixture()
        #expect(try fixture.library.stats().songs == 0)
        #expect(try await fixture.sync())
        let expected = Self.collection(fixture)
        #expect(expected.count == 41)  // the 40 catalogue songs (全部的歌) and the liked cloud upload
        let stats = try fixture.library.stats()
        #expect(stats.songs == expected.count)
        #expect(stats.playtime > 0)
        #expect(stats.lastUpdate != nil)
        // The database queries see them like local files.
        let queries = LibraryQueries(fixture.database)
        let all = try await queries.uris(matching: nil)
        #expect(Set(all) == expected)
        let found = try await queries.songs(matching: try FilterParser.parseQuery(
            arguments: ["(Album == '夏日的回声')", "sort", "Track"], command: .find))
        expectSongs(found, fixture.demo.albums[3001]!.songIDs, in: fixture)
        let searched = try await queries.songs(matching: try FilterParser.parseQuery(
            arguments: ["artist", "이하늘"], command: .search))
        #expect(Set(searched.map(\.uri)) == Set([5_000_051, 5_000_052, 5_000_053, 5_000_054, 5_000_055, 5_000_082]
            .map(fixture.uri)))
        // The port's statistics come from the same database.
        #expect(try await fixture.combined.statistics().songs == expected.count)
    }

    @Test func syncedFoldersAreServedFromTheDatabase() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.sync())
        fixture.server.clearLog()
        let liked = try await fixture.entries("NetEase/Liked").compactMap(\.song)
        expectSongs(liked, fixture.demo.likedSongIDs, in: fixture)
        let daily = try await fixture.entries("NetEase/Daily").compactMap(\.song)
        expectSongs(daily, fixture.demo.dailySongIDs, in: fixture)
        let playlists = try await fixture.entries("NetEase/Playlists").compactMap(\.directoryPath)
        #expect(playlists == (Array(fixture.demo.ownPlaylistIDs.dropFirst()) + fixture.demo.subscribedPlaylistIDs)
            .map { "NetEase/Playlists/" + fixture.playlistName($0) })
        let mix = try await fixture.entries("NetEase/Playlists/Late Night Mix").compactMap(\.song)
        expectSongs(mix, fixture.demo.playlists[2_000_000_002]!.trackIDs, in: fixture)
        #expect(fixture.server.requests.isEmpty, "sent \(fixture.apiPaths)")
        // A folder the sync does not store is still asked live.
        _ = try await fixture.entries("NetEase/Charts")
        #expect(fixture.apiPaths.contains("/api/toplist"))
    }

    /// `listall NetEase` after a sync walks the stored tree, still without a request.
    @Test func recursiveListingAfterSyncShowsTheStoredTree() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.sync())
        fixture.server.clearLog()
        let entries = try await fixture.entries("NetEase", recursive: true)
        #expect(Set(entries.compactMap(\.song).map(\.uri)) == Self.collection(fixture))
        #expect(entries.compactMap(\.directoryPath).contains("NetEase/Playlists/云音乐飙升榜"))
        #expect(fixture.server.requests.isEmpty, "sent \(fixture.apiPaths)")
        // `add NetEase/Playlists/…` expands to the playlist's songs, in order.
        let queued = try await fixture.combined.songsForQueue(uri: "NetEase/Playlists/通勤路上 🚇")
        expectSongs(Array(queued), fixture.demo.playlists[2_000_000_001]!.trackIDs, in: fixture)
    }

    @Test func netEasePlaylistsAreStoredPlaylists() async throws {
        let fixture = try Fixture()
        // Before a sync there are none to list (listplaylists never waits for NetEase).
        #expect(try await fixture.playlists.playlists().isEmpty)
        // … but one named is asked live.
        #expect(try await fixture.playlists.uris(of: "NetEase/Late Night Mix")
            == fixture.demo.playlists[2_000_000_002]!.trackIDs.map(fixture.uri))
        #expect(fixture.apiPaths.contains("/api/v6/playlist/detail"))
        #expect(try await fixture.sync())
        fixture.server.clearLog()
        let listed = try await fixture.playlists.playlists()
        let ids = Array(fixture.demo.ownPlaylistIDs.dropFirst()) + fixture.demo.subscribedPlaylistIDs
        #expect(listed.map(\.name) == ids.map { "NetEase/" + fixture.playlistName($0) })
        #expect(listed.allSatisfy { $0.lastModified == 1_700_000_000 })
        for id in ids {
            let uris = try await fixture.playlists.uris(of: "NetEase/" + fixture.playlistName(id))
            #expect(uris == fixture.demo.playlists[id]!.trackIDs.map(fixture.uri))
        }
        #expect(fixture.server.requests.isEmpty, "sent \(fixture.apiPaths)")
        await #expect(throws: PlayerError.noSuchPlaylist) {
            _ = try await fixture.playlists.uris(of: "NetEase/No such playlist")
        }
        await #expect(throws: PlayerError.noSuchPlaylist) {
            _ = try await fixture.playlists.uris(of: "local one")
        }
    }

    /// The sync as `update NetEase` runs it: an update job of the library.
    @Test func updateNetEaseRunsTheSyncAsAnUpdateJob() async throws {
        let fixture = try Fixture()
        let job = try fixture.combined.startUpdate(uri: "NetEase", rescan: false)
        #expect(job > 0)
        let deadline = ContinuousClock.now + .seconds(20)
        while fixture.combined.updatingJobID != nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(fixture.combined.updatingJobID == nil)
        #expect(try fixture.library.stats().songs == Self.collection(fixture).count)
    }

    /// weapi as NetEase's web client sends it: the PC client's `os`/`appver` cookies stay out (they make NetEase
    /// answer as to a desktop client and are the cause of -460s).
    @Test func syncRequestsCarryTheLoginButNoClientIdentityCookies() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.sync())
        let weapi = fixture.server.requests.filter { $0.scheme == .weapi }
        #expect(weapi.count >= 8)
        for request in weapi {
            #expect(request.cookies["os"] == nil, "\(request.apiPath) sent os")
            #expect(request.cookies["appver"] == nil, "\(request.apiPath) sent appver")
            #expect(request.cookies["MUSIC_U"] == FakeNetEaseServer.demoSession.musicU, "\(request.apiPath)")
            #expect(request.status == 200 && request.code == 200, "\(request.apiPath): \(request.status) \(request.code ?? -1)")
        }
        let paths = Set(weapi.map(\.apiPath))
        for path in ["/api/w/nuser/account/get", "/api/song/like/get", "/api/user/playlist", "/api/v6/playlist/detail",
                     "/api/v3/discovery/recommend/songs", "/api/v3/song/detail"] {
            #expect(paths.contains(path), "no \(path)")
        }
    }

    /// Logging out (the cookie gone) and syncing again empties the stored collection: a previous account's songs
    /// leave with its login.
    @Test func guestSyncEmptiesTheCollection() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.sync())
        #expect(try fixture.library.stats().songs > 0)
        try fixture.client.cookies.removeAll()
        #expect(try await fixture.sync())
        #expect(try await fixture.account() == .guest)
        #expect(try fixture.library.stats().songs == 0)
        #expect(try await fixture.playlists.playlists().isEmpty)
        // Nothing stored, nothing to change: a guest sync on an empty collection leaves the database alone.
        let update = try fixture.library.stats().lastUpdate
        #expect(try await !fixture.sync())
        #expect(try fixture.library.stats().lastUpdate == update)
    }

    /// A failed sync leaves the previous snapshot (and logs why).
    @Test func failedSyncKeepsThePreviousCollection() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.sync())
        let before = try fixture.library.stats().songs
        let update = try fixture.library.stats().lastUpdate
        fixture.server.inject(.code(-447), for: "/api/user/playlist")
        #expect(try await !fixture.sync())
        #expect(fixture.server.requests(for: "/api/user/playlist").last?.code == -447)
        #expect(try fixture.library.stats().lastUpdate == update)
        #expect(try fixture.library.stats().songs == before)
        fixture.server.clearLog()
        expectSongs(try await fixture.entries("NetEase/Liked").compactMap(\.song), fixture.demo.likedSongIDs,
                    in: fixture)
        #expect(fixture.server.requests.isEmpty)
    }

    /// The same when only the daily recommendations fail (a timeout, -460, NetEase busy): the sync goes on and
    /// keeps the stored daily songs.
    @Test func failedDailyRequestKeepsThePreviousDailySongs() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.sync())
        fixture.server.inject(.code(-447), for: "/api/v3/discovery/recommend/songs")
        fixture.server.clearLog()
        #expect(try await fixture.sync() == false)
        #expect(fixture.server.requests(for: "/api/v3/discovery/recommend/songs").count == 1)
        fixture.server.clearLog()
        let daily = try await fixture.entries("NetEase/Daily").compactMap(\.song)
        expectSongs(daily, fixture.demo.dailySongIDs, in: fixture)
        #expect(fixture.server.requests.isEmpty)
    }
}
