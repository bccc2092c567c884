import FakeNetEase
import Foundation
import NetEase
import Testing

@Suite struct ZZScratchInterop {
    @Test func everyEndpointAgainstTheFake() throws {
        let server = try FakeNetEaseServer(options: .init(privateKey: TestKeys.pair.privateKey))
        try server.start()
        defer { server.stop() }
        let jar = try CookieJar()
        let client = NetEaseClient(configuration: .init(apiURL: server.baseURL, eapiURL: server.baseURL,
                                                        publicKey: TestKeys.pair.publicKey, timeout: 10), cookies: jar)
        func run<E: NetEaseEndpoint>(_ e: E) -> E.Response? {
            do { return try client.send(e) } catch { Issue.record("\(e.path): \(error)"); return nil }
        }
        _ = run(LoginEndpoints.RegisterAnonymous(deviceID: "NMUSIC"))
        print("guest jar", jar)
        print("search", run(SearchEndpoints.CloudSearch(keywords: "a"))?.songs.count ?? -1)
        print("suggest", run(SearchEndpoints.Suggest(keywords: "a"))?.songs.count ?? -1)
        let key = run(LoginEndpoints.QRKey())?.unikey
        print("qr", key ?? "-", run(LoginEndpoints.QRCheck(key: key ?? ""))?.state as Any)
        _ = run(LoginEndpoints.Cellphone(phone: DemoCatalog.demoPhone, secret: .password(DemoCatalog.demoPassword)))
        print("logged in jar", jar)
        let status = run(LoginEndpoints.Status())
        print("status", status?.isLoggedIn as Any)
        let uid = status?.account?.id ?? 0
        _ = run(AccountEndpoints.Account())
        let lists = run(PlaylistEndpoints.UserPlaylists(userID: uid))?.playlists ?? []
        print("playlists", lists.map(\.name))
        for list in lists.prefix(3) {
            do {
                let (p, songs) = try client.playlistTracks(id: list.id)
                print("playlist", p.name, p.trackCount ?? -1, songs.count)
            } catch { Issue.record("playlistTracks: \(error)") }
        }
        print("likes", run(SongEndpoints.LikeList(userID: uid))?.ids.count ?? -1)
        print("daily", run(RecommendEndpoints.Songs())?.songs.count ?? -1)
        print("resource", run(RecommendEndpoints.Resource())?.playlists.count ?? -1)
        print("fm", run(RecommendEndpoints.PersonalFM())?.songs.map(\.playerSong) as Any)
        print("toplist", run(PlaylistEndpoints.Toplist())?.list.count ?? -1)
        let song = run(SearchEndpoints.CloudSearch(keywords: "a"))?.songs.first
        print("song", song?.playerSong as Any)
        if let song {
            print("url", run(SongEndpoints.URL(ids: [song.id], level: "exhigh"))?.data as Any)
            print("lyric", run(SongEndpoints.Lyric(id: song.id))?.lyric?.prefix(30) as Any)
            print("lyricnew", run(SongEndpoints.LyricNew(id: song.id))?.lyric?.prefix(30) as Any)
            if let album = song.album?.id {
                print("album", run(AlbumEndpoints.Album(id: album))?.songs.count ?? -1)
            }
            if let artist = song.artists.first?.id {
                print("artist", run(ArtistEndpoints.Artist(id: artist))?.hotSongs.count ?? -1)
                print("top", run(ArtistEndpoints.TopSongs(id: artist))?.songs.count ?? -1)
                print("artist albums", run(ArtistEndpoints.Albums(id: artist))?.albums.count ?? -1)
            }
        }
        print("album sub", run(AlbumEndpoints.Subscribed())?.items.count ?? -1)
        print("artist sub", run(ArtistEndpoints.Subscribed())?.items.count ?? -1)
        print("record", run(UserEndpoints.Record(userID: uid))?.entries.count ?? -1)
        print("cloud", run(UserEndpoints.Cloud())?.entries.map(\.song.playerSong) as Any)
        _ = run(LoginEndpoints.Refresh())
        _ = run(LoginEndpoints.Logout())
        print("after logout", jar)
    }
}
