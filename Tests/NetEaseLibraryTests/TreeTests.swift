import FakeNetEase
import Foundation
import MPDServer
import NetEase
@testable import NetEaseLibrary
import PlayerCore
import ServerPorts
import Testing

/// The virtual directory `NetEase/…`, asked live from the fake server as the demo account.
@Suite struct TreeTests {
    static let folders = ["Daily", "Liked", "Playlists", "Albums", "Artists", "Cloud", "Charts", "Recent"]

    @Test func rootListsTheEightFoldersInOrder() async throws {
        let fixture = try Fixture()
        let entries = try await fixture.entries("NetEase")
        #expect(entries == Self.folders.map { .directory(path: "NetEase/" + $0, lastModified: nil) })
        // The root of the database shows the virtual directory beside the (empty) local library.
        #expect(try await fixture.entries("") == [.directory(path: "NetEase", lastModified: nil)])
    }

    /// `listall NetEase` before any sync shows the folders only: recursion from the root never goes live.
    @Test func recursiveListingOfTheRootSendsNoRequests() async throws {
        let fixture = try Fixture()
        let entries = try await fixture.entries("NetEase", recursive: true)
        #expect(entries.compactMap(\.directoryPath) == ["NetEase"] + Self.folders.map { "NetEase/" + $0 })
        #expect(entries.allSatisfy { $0.directoryPath != nil })
        #expect(fixture.server.requests.isEmpty)
    }

    @Test func playlistsAreOwnAndSubscribedWithoutTheLikedOne() async throws {
        let fixture = try Fixture()
        let entries = try await fixture.entries("NetEase/Playlists")
        let expectedIDs = Array(fixture.demo.ownPlaylistIDs.dropFirst()) + fixture.demo.subscribedPlaylistIDs
        #expect(expectedIDs == [2_000_000_001, 2_000_000_002, 2_000_000_100, 19_723_756])
        #expect(entries.compactMap(\.directoryPath) == expectedIDs.map { "NetEase/Playlists/" + fixture.playlistName($0) })
        #expect(entries.compactMap(\.directoryPath) == [
            "NetEase/Playlists/通勤路上 🚇", "NetEase/Playlists/Late Night Mix",
            "NetEase/Playlists/全部的歌 · All the Songs", "NetEase/Playlists/云音乐飙升榜",
        ])
        #expect(!entries.contains { $0.directoryPath?.contains("喜欢的音乐") == true })
        // NetEase's `updateTime` (milliseconds) as Last-Modified seconds.
        #expect(entries.allSatisfy { if case .directory(_, 1_700_000_000) = $0 { true } else { false } })
    }

    @Test func playlistNamesAreMadeUniqueAndSlashFree() async throws {
        let fixture = try Fixture()
        // Two more own playlists: one with a slash, one named like an existing one (NetEase lists new ones first).
        for name in ["Late Night Mix", "Road/Trip"] {
            _ = try await fixture.blocking { try fixture.client.request(path: "/api/playlist/create", params: ["name": .string(name)]) }
        }
        let names = try await fixture.entries("NetEase/Playlists").compactMap(\.directoryPath)
            .map { String($0.dropFirst("NetEase/Playlists/".count)) }
        #expect(names == ["Road／Trip", "Late Night Mix", "通勤路上 🚇", "Late Night Mix (2)",
                          "全部的歌 · All the Songs", "云音乐飙升榜"])
        #expect(Set(names).count == names.count)
        #expect(!names.contains { $0.contains("/") })
        // Each name leads to its own playlist: the new one is empty, "(2)" is the demo's mix.
        #expect(try await fixture.entries("NetEase/Playlists/Late Night Mix").isEmpty)
        let mix = try await fixture.entries("NetEase/Playlists/Late Night Mix (2)").compactMap(\.song)
        expectSongs(mix, fixture.demo.playlists[2_000_000_002]!.trackIDs, in: fixture)
        #expect(try await fixture.entries("NetEase/Playlists/Road／Trip").isEmpty)
    }

    @Test func uniqueNamesRules() {
        #expect(NetEaseCatalog.uniqueNames(["a/b", "x", "x", "x", " ", "..", "two\nlines", "x (2)"])
            == ["a／b", "x", "x (2)", "x (3)", "Untitled", "Untitled (2)", "two lines", "x (2) (2)"])
    }

    @Test func playlistFolderListsItsSongsWithTags() async throws {
        let fixture = try Fixture()
        let ids = fixture.demo.playlists[2_000_000_001]!.trackIDs
        let entries = try await fixture.entries("NetEase/Playlists/通勤路上 🚇")
        #expect(entries.allSatisfy { $0.song != nil })
        expectSongs(entries.compactMap(\.song), ids, in: fixture)
        // One song spelled out, so the helper's expectations are checked against the catalogue's own words.
        let first = try #require(entries.first?.song)
        #expect(first.uri == "netease://song/5000012")
        #expect(first.tag("Title") == "海风")
        #expect(first.tag("Artist") == "林夕雨")
        #expect(first.tag("AlbumArtist") == "林夕雨")
        #expect(first.tag("Album") == "夏日的回声")
        #expect(first.tag("Track") == "2")
        #expect(first.tag("Disc") == "1")
        #expect(first.tag("Date") == "2010-01-01")
        #expect(first.duration == 7)
    }

    /// A subscribed playlist whose `playlist_detail` answer is truncated (20 tracks for others' playlists): the rest
    /// come from `song_detail`, all 40 in order.
    @Test func subscribedPlaylistListsEveryTrack() async throws {
        let fixture = try Fixture()
        let ids = fixture.demo.playlists[2_000_000_100]!.trackIDs
        #expect(ids.count == 40)
        let songs = try await fixture.entries("NetEase/Playlists/全部的歌 · All the Songs").compactMap(\.song)
        expectSongs(songs, ids, in: fixture)
    }

    @Test func dailyLikedCloudAndRecentListSongs() async throws {
        let fixture = try Fixture()
        expectSongs(try await fixture.entries("NetEase/Daily").compactMap(\.song), fixture.demo.dailySongIDs,
                    in: fixture)
        expectSongs(try await fixture.entries("NetEase/Liked").compactMap(\.song), fixture.demo.likedSongIDs,
                    in: fixture)
        let cloud = try await fixture.entries("NetEase/Cloud").compactMap(\.song)
        #expect(!fixture.demo.cloudSongIDs.isEmpty)
        expectSongs(cloud, fixture.demo.cloudSongIDs, in: fixture)
        #expect(cloud.map { $0.tag("Title") } == ["我的录音 001", "demo — bedroom take", "无名曲"])
        expectSongs(try await fixture.entries("NetEase/Recent").compactMap(\.song), fixture.demo.weekRecord.map(\.0),
                    in: fixture)
    }

    @Test func albumsListSubscribedAlbumsAndTheirSongs() async throws {
        let fixture = try Fixture()
        let entries = try await fixture.entries("NetEase/Albums")
        #expect(entries.compactMap(\.directoryPath) == [
            "NetEase/Albums/Sigur Ósk - Norðurljós", "NetEase/Albums/Café Ñandú - Canción del Río",
        ])
        let songs = try await fixture.entries("NetEase/Albums/Sigur Ósk - Norðurljós").compactMap(\.song)
        expectSongs(songs, fixture.demo.albums[3003]!.songIDs, in: fixture)
        #expect(songs.map { $0.tag("Track") } == ["1", "2", "3", "4", "5"])
    }

    @Test func artistsListFollowedArtistsAndTheirTopSongs() async throws {
        let fixture = try Fixture()
        let entries = try await fixture.entries("NetEase/Artists")
        #expect(entries.compactMap(\.directoryPath) == ["NetEase/Artists/星野ゆめ", "NetEase/Artists/이하늘"])
        let songs = try await fixture.entries("NetEase/Artists/이하늘").compactMap(\.song)
        // The artist's own album, then the duet on 星野ゆめ's album.
        expectSongs(songs, [5_000_051, 5_000_052, 5_000_053, 5_000_054, 5_000_055, 5_000_082], in: fixture)
        #expect(songs.last?.all("Artist") == ["星野ゆめ", "이하늘"])
    }

    @Test func chartsListTheToplistsAndTheirSongs() async throws {
        let fixture = try Fixture()
        let entries = try await fixture.entries("NetEase/Charts")
        #expect(entries.compactMap(\.directoryPath) == ["NetEase/Charts/云音乐飙升榜", "NetEase/Charts/云音乐新歌榜",
                                                       "NetEase/Charts/云音乐热歌榜"])
        let songs = try await fixture.entries("NetEase/Charts/云音乐新歌榜").compactMap(\.song)
        expectSongs(songs, fixture.demo.playlists[3_779_629]!.trackIDs, in: fixture)
    }

    /// Clients repeat `lsinfo` while browsing: a listing is remembered for a minute.
    @Test func repeatedListingWithinAMinuteSendsNoRequest() async throws {
        let fixture = try Fixture()
        let first = try await fixture.entries("NetEase/Charts")
        #expect(fixture.server.requests(for: "/api/toplist").count == 1)
        fixture.server.clearLog()
        #expect(try await fixture.entries("NetEase/Charts") == first)
        #expect(fixture.server.requests.isEmpty)
    }

    /// NetEase unreachable (`api_url` at a closed port: connections are refused). Cantata lists every folder at each
    /// start: nothing synced lists as an empty folder (`OK`), with the failure logged, never an ACK; the root keeps
    /// its folders and an unknown folder is still not found. What needs NetEase to be answered at all — adding a
    /// folder, a song not known — is an ACK.
    @Test func anUnreachableNetEaseListsNothingInsteadOfFailing() async throws {
        let fixture = try Fixture(apiURL: "http://127.0.0.1:9")
        let c = await ProtocolClient(fixture)
        for folder in Self.folders {
            #expect(await c.send("lsinfo \"NetEase/\(folder)\"") == "OK\n", "\(folder)")
        }
        #expect(await c.send("lsinfo \"NetEase/Playlists/Late Night Mix\"") == "OK\n")
        #expect(await c.send("listallinfo NetEase/Daily") == "directory: NetEase/Daily\nOK\n")
        #expect(await c.send("lsinfo NetEase") == Self.folders.map { "directory: NetEase/\($0)\n" }.joined() + "OK\n")
        #expect(await c.send("lsinfo NetEase/Nope") == "ACK [50@0] {lsinfo} No such directory\n")
        let added = await c.send("add NetEase/Charts")
        #expect(added.hasPrefix("ACK [52@0] {add} NetEase: network error"), "\(added)")
        let song = await c.send("add netease://song/5000011")
        #expect(song.hasPrefix("ACK [52@0] {add} NetEase: network error"), "\(song)")
    }

    /// Unreachable after a sync (the fake stopped; a short timeout, as a stopped fake may leave a connection to
    /// wait on): the synced folders list as before, from the database.
    @Test func anUnreachableNetEaseListsWhatIsSynced() async throws {
        let fixture = try Fixture(timeout: 2)
        #expect(try await fixture.sync())
        let c = await ProtocolClient(fixture)
        let liked = await c.send("lsinfo NetEase/Liked")
        let playlists = await c.send("lsinfo NetEase/Playlists")
        #expect(liked.contains("file: netease://song/"))
        fixture.server.stop()
        #expect(await c.send("lsinfo NetEase/Liked") == liked)
        #expect(await c.send("lsinfo NetEase/Playlists") == playlists)
        #expect(await c.send("lsinfo NetEase/Charts") == "OK\n")
    }

    @Test func unknownPathsAreNotFound() async throws {
        let fixture = try Fixture()
        for path in ["NetEase/Nope", "NetEase/Playlists/Nope", "NetEase/Daily/x/y"] {
            await #expect(throws: PortError.notFound("No such directory")) {
                _ = try await fixture.entries(path)
            }
        }
    }
}
