import FakeNetEase
import Foundation
import NetEase
import Testing

extension Harness {
    /// A real `NetEaseClient` pointed at this fake, logged in as the demo account unless told otherwise.
    func client(loggedIn: Bool = true) throws -> NetEaseClient {
        let jar = try CookieJar()
        if loggedIn {
            try jar.merge(setCookieHeaders: ["MUSIC_U=\(FakeNetEaseServer.demoSession.musicU); Path=/",
                                             "__csrf=\(FakeNetEaseServer.demoSession.csrf); Path=/"])
        }
        return NetEaseClient(configuration: NetEaseClient.Configuration(
            apiURL: server.baseURL, eapiURL: server.baseURL, publicKey: TestKeys.pair.publicKey, timeout: 10),
                             cookies: jar)
    }

    /// `GET /__fake/state`.
    func state() throws -> [String: Any] {
        let answer = try send("GET", "/__fake/state")
        #expect(answer.status == 200)
        return answer.json
    }
}

/// What the account's edits do to the fake's state, sent through `NetEaseClient` with the `NetEase` endpoints:
/// likes, playlists, FM dislikes, heartbeat mode, scrobbles; and `/__fake/state`, which shows it to scripts.
@Suite struct AccountEditingTests {
    let harness: Harness
    let client: NetEaseClient

    init() throws {
        harness = try Harness()
        client = try harness.client()
    }

    static let liked = Int64(DemoCatalog.likedPlaylistID)

    @Test func likeAndUnlike() throws {
        _ = try client.send(SongEndpoints.Like(id: 5_000_085, like: true))
        #expect(harness.server.likedSongIDs.first == 5_000_085)
        #expect(try client.send(SongEndpoints.LikeList(userID: 10000001)).ids.first == 5_000_085)
        #expect(harness.server.playlistTrackIDs(DemoCatalog.likedPlaylistID)?.first == 5_000_085)
        let sent = try #require(harness.server.requests(for: "/api/radio/like").last)
        #expect(sent.scheme == .weapi)
        #expect(sent.params["alg"] as? String == "itembased" && sent.params["time"] as? String == "3")

        _ = try client.send(SongEndpoints.Like(id: 5_000_085, like: false))
        #expect(!harness.server.likedSongIDs.contains(5_000_085))
        #expect(throws: NetEaseError.self) { try client.send(SongEndpoints.Like(id: 4_999_999, like: true)) }
        #expect(throws: NetEaseError.loginRequired) {
            try harness.client(loggedIn: false).send(SongEndpoints.Like(id: 5_000_085, like: true))
        }
    }

    @Test func playlistCreateEditReorderRemove() throws {
        let created = try client.send(PlaylistEndpoints.Create(name: "新建歌单 ✨"))
        #expect(created.playlist?.id == created.id && created.playlist?.name == "新建歌单 ✨")
        let id = Int(created.id)
        #expect(harness.server.ownPlaylistIDs.prefix(2) == [DemoCatalog.likedPlaylistID, id])
        #expect(harness.server.playlistTrackIDs(id) == [])

        let added = try client.changePlaylistTracks(.add, playlistID: created.id, trackIDs: [5_000_011, 5_000_021, 5_000_031])
        #expect(Set(added) == [5_000_011, 5_000_021, 5_000_031])
        // New songs go on top, as in NetEase's apps.
        #expect(harness.server.playlistTrackIDs(id) == [5_000_031, 5_000_021, 5_000_011])
        let sent = try #require(harness.server.requests(for: "/api/playlist/manipulate/tracks").last)
        #expect(sent.params["trackIds"] as? String == #"["5000011","5000021","5000031"]"#)
        #expect(sent.params["imme"] as? String == "true")

        _ = try client.changePlaylistTracks(.update, playlistID: created.id, trackIDs: [5_000_011, 5_000_031, 5_000_021])
        #expect(harness.server.playlistTrackIDs(id) == [5_000_011, 5_000_031, 5_000_021])
        // `update` must name exactly the playlist's songs.
        for wrong: [Int64] in [[5_000_011, 5_000_031], [5_000_011, 5_000_031, 5_000_022],
                               [5_000_011, 5_000_031, 5_000_021, 5_000_022]] {
            #expect(throws: NetEaseError.api(code: 400, message: "歌曲与歌单不一致")) {
                try client.changePlaylistTracks(.update, playlistID: created.id, trackIDs: wrong)
            }
        }
        #expect(harness.server.playlistTrackIDs(id) == [5_000_011, 5_000_031, 5_000_021])

        _ = try client.changePlaylistTracks(.delete, playlistID: created.id, trackIDs: [5_000_031])
        #expect(harness.server.playlistTrackIDs(id) == [5_000_011, 5_000_021])
        #expect(throws: NetEaseError.api(code: 502, message: "歌单内歌曲重复")) {
            try client.changePlaylistTracks(.add, playlistID: created.id, trackIDs: [5_000_011])
        }

        // The liked-songs playlist reorders too; others' playlists are not the account's to edit.
        let likedNow = harness.server.likedSongIDs.map(Int64.init)
        _ = try client.changePlaylistTracks(.update, playlistID: Self.liked, trackIDs: likedNow.reversed())
        #expect(harness.server.likedSongIDs.map(Int64.init) == likedNow.reversed())
        #expect(throws: NetEaseError.api(code: 401, message: "没有权限")) {
            try client.changePlaylistTracks(.add, playlistID: 2_000_000_100, trackIDs: [5_000_011])
        }

        _ = try client.send(PlaylistEndpoints.Remove(ids: [created.id]))
        #expect(harness.server.playlistTrackIDs(id) == nil)
        #expect(!harness.server.ownPlaylistIDs.contains(id))
        #expect(harness.server.requests(for: "/api/playlist/remove").last?.params["ids"] as? String == "[\(id)]")
        #expect(throws: NetEaseError.api(code: 401, message: "没有权限")) {
            try client.send(PlaylistEndpoints.Remove(ids: [Self.liked]))
        }
    }

    @Test func changePlaylistTracksRetriesA512WithTheIDsTwice() throws {
        let path = "/api/playlist/manipulate/tracks"
        harness.server.inject(.code(512), for: path)
        _ = try client.changePlaylistTracks(.add, playlistID: 2_000_000_002, trackIDs: [5_000_011, 5_000_012])
        let sent = harness.server.requests(for: path)
        #expect(sent.map(\.code) == [512, 200])
        #expect(sent.map { $0.params["trackIds"] as? String } == [#"["5000011","5000012"]"#,
                                                                  #"["5000011","5000012","5000011","5000012"]"#])
        // The doubled list adds each song once.
        #expect(harness.server.playlistTrackIDs(2_000_000_002)?.prefix(3) == [5_000_012, 5_000_011, 5_000_074])
        #expect(harness.server.playlistTrackIDs(2_000_000_002)?.count == 8)

        // One retry only.
        harness.server.clearLog()
        harness.server.inject(.code(512), for: path, count: 2)
        #expect(throws: NetEaseError.api(code: 512, message: "error 512")) {
            try client.changePlaylistTracks(.delete, playlistID: 2_000_000_002, trackIDs: [5_000_011])
        }
        #expect(harness.server.requests(for: path).count == 2)
        // Other errors are not retried.
        harness.server.clearLog()
        #expect(throws: NetEaseError.api(code: 401, message: "没有权限")) {
            try client.changePlaylistTracks(.delete, playlistID: 2_000_000_100, trackIDs: [5_000_011])
        }
        #expect(harness.server.requests(for: path).count == 1)
    }

    @Test func trashedSongsLeavePersonalFM() throws {
        let first = try client.send(RecommendEndpoints.PersonalFM()).songs.map(\.id)
        #expect(first == [5_000_011, 5_000_012, 5_000_013])
        _ = try client.send(RecommendEndpoints.FMTrash(songID: 5_000_014))
        _ = try client.send(RecommendEndpoints.FMTrash(songID: 5_000_012, seconds: 3))
        #expect(harness.server.trashedSongIDs == [5_000_014, 5_000_012])
        let sent = try #require(harness.server.requests(for: "/api/radio/trash/add").first)
        #expect(sent.params["alg"] as? String == "RT" && (sent.params["time"] as? NSNumber)?.intValue == 25)
        #expect(try client.send(RecommendEndpoints.PersonalFM()).songs.map(\.id) == [5_000_015, 5_000_021, 5_000_022])
        // Round the whole catalogue twice: the trashed songs never come back.
        for _ in 0..<30 { _ = try client.send(RecommendEndpoints.PersonalFM()) }
        let batches = harness.server.fmServedBatches
        #expect(batches.count == 32)
        #expect(batches.allSatisfy { $0.count == 3 })
        #expect(!batches.dropFirst().joined().contains(5_000_014))
        #expect(!batches.dropFirst().joined().contains(5_000_012))
        #expect(batches.dropFirst().joined().contains(5_000_011))
        #expect(harness.server.fmServedSongIDs == Array(batches.joined()))

        #expect(throws: NetEaseError.self) { try client.send(RecommendEndpoints.FMTrash(songID: 4_999_999)) }
        #expect(throws: NetEaseError.loginRequired) {
            try harness.client(loggedIn: false).send(RecommendEndpoints.FMTrash(songID: 5_000_011))
        }
    }

    @Test func heartbeatModeListsSongsLikeTheSeed() throws {
        let songs = try client.send(RecommendEndpoints.Intelligence(songID: 5_000_011, playlistID: Self.liked))
            .songs
        #expect(songs.count == 10)
        #expect(!songs.map(\.id).contains(5_000_011))
        #expect(Set(songs.map(\.id)).count == 10)
        #expect(songs.allSatisfy { !$0.name.isEmpty && !$0.artists.isEmpty && $0.album != nil && $0.privilege != nil })
        let other = try client.send(RecommendEndpoints.Intelligence(songID: 5_000_052, playlistID: Self.liked,
                                                                    startSongID: 5_000_011)).songs
        #expect(other.count == 10 && other.map(\.id) != songs.map(\.id))
        #expect(!other.map(\.id).contains(5_000_052))
        let sent = try #require(harness.server.requests(for: "/api/playmode/intelligence/list").last)
        #expect((sent.params["startMusicId"] as? NSNumber)?.intValue == 5_000_011)

        // The raw items: id, songInfo (new shape), recommended, alg; liked songs are not "recommended".
        let raw = try harness.weapi("/api/playmode/intelligence/list",
                                    ["songId": 5_000_011, "type": "fromPlayOne", "playlistId": Self.liked,
                                     "startMusicId": 5_000_011, "count": 1], cookies: Harness.demoCookies)
        let items = raw.json.array("data")
        #expect(items.count == 10)
        for item in items {
            #expect(item.int("id") == item.object("songInfo")?.int("id"))
            #expect(item.object("songInfo")?["ar"] != nil && item.object("songInfo")?["dt"] != nil)
            #expect(item["recommended"] is Bool && item.string("alg") != nil)
            let id = try #require(item.int("id"))
            #expect((item["recommended"] as? Bool) == !harness.server.likedSongIDs.contains(id))
        }

        #expect(throws: NetEaseError.api(code: 400, message: "歌单不是你喜欢的音乐")) {
            try client.send(RecommendEndpoints.Intelligence(songID: 5_000_011, playlistID: 2_000_000_001))
        }
        #expect(throws: NetEaseError.loginRequired) {
            try harness.client(loggedIn: false).send(RecommendEndpoints.Intelligence(songID: 5_000_011,
                                                                                     playlistID: Self.liked))
        }
    }

    @Test func scrobblesAreRecorded() throws {
        let before = Date()
        _ = try client.send(UserEndpoints.Scrobble(songID: 5_000_011, sourceID: 2_000_000_001, seconds: 0,
                                                   action: "startplay"))
        _ = try client.send(UserEndpoints.Scrobble(songID: 5_000_011, sourceID: 2_000_000_001, seconds: 6))
        _ = try client.send(UserEndpoints.Scrobble(songID: 5_000_031, sourceID: nil, seconds: 8, source: "album"))
        let scrobbles = harness.server.scrobbles
        #expect(scrobbles.map(\.action) == ["startplay", "play", "play"])
        #expect(scrobbles.map(\.id) == [5_000_011, 5_000_011, 5_000_031])
        #expect(scrobbles.map(\.sourceID) == ["2000000001", "2000000001", ""])
        #expect(scrobbles.map(\.time) == [0, 6, 8])
        #expect(scrobbles.map(\.source) == ["list", "list", "album"])
        #expect(scrobbles.allSatisfy { $0.when >= before.addingTimeInterval(-1) && $0.when <= Date() })
        // weapi, and without the identity cookies NetEase drops scrobbles for.
        let sent = try #require(harness.server.requests(for: "/api/feedback/weblog").last)
        #expect(sent.scheme == .weapi && sent.cookies["os"] == nil && sent.cookies["appver"] == nil)
    }

    @Test func stateOverHTTP() throws {
        var state = try harness.state()
        #expect((state["liked"] as? [Int]) == harness.server.likedSongIDs)
        #expect((state["trashed"] as? [Int]) == [])
        #expect((state["fmServed"] as? [Int]) == [])
        #expect((state["scrobbles"] as? [Any])?.isEmpty == true)
        let playlists = state.array("playlists")
        #expect(playlists.prefix(3).map { $0.int("id") } == [2_000_000_000, 2_000_000_001, 2_000_000_002])
        #expect(playlists.prefix(3).allSatisfy { $0["own"] as? Bool == true })
        #expect(playlists.first { $0.int("id") == 2_000_000_100 }?["own"] as? Bool == false)
        #expect(playlists.first?.string("name") == "demo_user喜欢的音乐")
        #expect(playlists.first?["trackIds"] as? [Int] == harness.server.likedSongIDs)

        _ = try client.send(SongEndpoints.Like(id: 5_000_085, like: true))
        _ = try client.send(RecommendEndpoints.PersonalFM())
        _ = try client.send(RecommendEndpoints.FMTrash(songID: 5_000_012))
        _ = try client.send(UserEndpoints.Scrobble(songID: 5_000_011, sourceID: 2_000_000_001, seconds: 6))
        let created = try client.send(PlaylistEndpoints.Create(name: "Mix"))
        _ = try client.changePlaylistTracks(.add, playlistID: created.id, trackIDs: [5_000_021])

        state = try harness.state()
        #expect((state["liked"] as? [Int])?.first == 5_000_085)
        #expect((state["trashed"] as? [Int]) == [5_000_012])
        #expect((state["fmServed"] as? [Int]) == [5_000_011, 5_000_012, 5_000_013])
        #expect((state["fmBatches"] as? [[Int]]) == [[5_000_011, 5_000_012, 5_000_013]])
        let scrobble = try #require(state.array("scrobbles").first)
        #expect(scrobble.string("action") == "play" && scrobble.int("id") == 5_000_011)
        #expect(scrobble.string("sourceId") == "2000000001" && scrobble.int("time") == 6)
        let mix = try #require(state.array("playlists").first { $0.int("id") == Int(created.id) })
        #expect(mix.string("name") == "Mix" && mix["own"] as? Bool == true && mix["trackIds"] as? [Int] == [5_000_021])
    }
}
