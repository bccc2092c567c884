import Foundation
@testable import NetEase
import PlayerCore
import Testing

/// The reference's sample responses (`Tests/NetEaseSamples`), each read
/// through the typed response of its endpoint.
@Suite struct NetEaseSampleTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("NetEaseSamples")

    static func sample(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    static func decode<T: Decodable>(_ type: T.Type, _ name: String, key: String? = nil) throws -> T {
        var data = try sample(name)
        if let key {
            let object = try #require(JSONValue.parse(Array(data))?[key])
            data = Data(object.jsonText.utf8)
        }
        return try NetEaseClient.decode(T.self, from: Array(data), path: name)
    }

    @Test func everySampleIsCovered() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path)
            .filter { $0.hasSuffix(".json") }.sorted()
        #expect(names == ["cloudsearch_songs.json", "likelist.json", "login_qr.json", "login_status.json", "lyric.json",
                          "lyric_new.json", "personal_fm.json", "playlist_detail.json", "recommend_songs.json",
                          "song_detail.json", "song_url_v1.json", "user_playlist.json"])
    }

    @Test func cloudsearch() throws {
        let response = try Self.decode(SearchEndpoints.CloudSearch.Response.self, "cloudsearch_songs.json")
        #expect(response.songs.map(\.id) == [387948, 1986974411])
        #expect(response.songCount == 300)
        let first = response.songs[0].playerSong
        #expect(first.uri == "netease://song/387948")
        #expect(first.tags.first { $0.name == "Title" }?.value == "爱")
        #expect(first.tags.first { $0.name == "Artist" }?.value == "小虎队")
        #expect(first.duration == 269.348)
        #expect(response.songs[0].privilege != nil)
    }

    @Test func likelist() throws {
        let response = try Self.decode(SongEndpoints.LikeList.Response.self, "likelist.json")
        #expect(response.ids == [28493605, 31421450, 115502, 33894312])
        #expect(response.checkPoint == 1_700_000_000_000)
    }

    @Test func loginQR() throws {
        #expect(try Self.decode(LoginEndpoints.QRKey.Response.self, "login_qr.json", key: "unikey_raw").unikey
                == "aca65293-5459-40ed-899d-7c597a613d52")
        #expect(try Self.decode(LoginEndpoints.QRKey.Response.self, "login_qr.json", key: "unikey_via_ncm_proxy").unikey
                == "aca65293-5459-40ed-899d-7c597a613d52")
        typealias Check = LoginEndpoints.QRCheck.Response
        #expect(try Self.decode(Check.self, "login_qr.json", key: "check_800_expired").state == .expired)
        #expect(try Self.decode(Check.self, "login_qr.json", key: "check_801_waiting").state == .waitingForScan)
        let scanned = try Self.decode(Check.self, "login_qr.json", key: "check_802_scanned")
        #expect(scanned.state == .waitingForConfirmation)
        #expect(scanned.nickname == "demo_user")
        #expect(try Self.decode(Check.self, "login_qr.json", key: "check_803_ok_raw").state == .authorized)
        #expect(try Self.decode(Check.self, "login_qr.json", key: "check_803_ok_via_ncm_proxy").state == .authorized)
        // 8821 is not a QR state: the client reports it as an error before decoding.
        let risk = try Self.sample("login_qr.json")
        let body = try #require(JSONValue.parse(Array(risk))?["check_8821_risk"]).jsonText
        #expect(throws: NetEaseError.api(code: 8821, message: "需要行为验证码验证")) {
            try NetEaseClient.interpret(status: 200, body: Array(body.utf8), accepting: LoginEndpoints.QRCheck(key: "k").acceptedCodes)
        }
    }

    @Test func loginStatus() throws {
        let loggedIn = try Self.decode(AccountResponse.self, "login_status.json", key: "logged_in")
        #expect(loggedIn.account?.id == 10000001)
        #expect(loggedIn.profile?.nickname == "demo_user")
        #expect(loggedIn.profile?.vipType == 11)
        #expect(loggedIn.isLoggedIn)
        let guest = try Self.decode(AccountResponse.self, "login_status.json", key: "anonymous_guest")
        #expect(guest.account?.anonymous == true)
        #expect(!guest.isLoggedIn)
        let none = try Self.decode(AccountResponse.self, "login_status.json", key: "not_logged_in")
        #expect(none.account == nil)
        #expect(!none.isLoggedIn)
    }

    @Test func lyrics() throws {
        let old = try Self.decode(LyricResponse.self, "lyric.json")
        #expect(old.lyric?.hasPrefix("[00:04.050]") == true)
        #expect(old.translation == nil)
        let new = try Self.decode(LyricResponse.self, "lyric_new.json")
        #expect(new.wordTimed != nil)
        #expect(new.translation != nil)
        #expect(!new.instrumental)
    }

    @Test func personalFMUsesTheOldShape() throws {
        let response = try Self.decode(RecommendEndpoints.PersonalFM.Response.self, "personal_fm.json")
        let song = try #require(response.songs.first)
        #expect(song.id == 33410933)
        #expect(song.playerSong.tags == [
            .init("Artist", "Bea Miller"), .init("AlbumArtist", "Bea Miller"), .init("Title", "I Dare You"),
            .init("Album", "Not an Apology"), .init("Track", "3"), .init("Disc", "1"), .init("Date", "2015-07-24"),
        ])
        #expect(song.playerSong.duration == 206)
    }

    @Test func playlistDetail() throws {
        let response = try Self.decode(PlaylistEndpoints.Detail.Response.self, "playlist_detail.json")
        #expect(response.playlist.id == 2000000001)
        #expect(response.playlist.trackIDs == [31421450, 28493605, 115502, 33894312])
        #expect(response.playlist.tracks?.map(\.id) == [31421450, 28493605])
        #expect(response.playlist.creator?.nickname == "demo_user")
        #expect(response.privileges.count == 2)
    }

    @Test func recommendSongs() throws {
        let response = try Self.decode(RecommendEndpoints.Songs.Response.self, "recommend_songs.json")
        #expect(response.songs.map(\.id) == [28493605, 31421450])
        #expect(response.reasons[28493605] == "根据你的口味")
    }

    @Test func songDetail() throws {
        let response = try Self.decode(SongEndpoints.Detail.Response.self, "song_detail.json")
        #expect(response.songs.map(\.id) == [33894312, 115502])
        #expect(response.privileges.map(\.id) == [33894312, 115502])
        #expect(response.songs[0].playerSong == Song(uri: "netease://song/33894312", tags: [
            .init("Artist", "群星"), .init("AlbumArtist", "群星"), .init("Title", "情非得已 (童声版)"),
            .init("Album", "热门华语275"), .init("Track", "1"), .init("Disc", "1"), .init("Date", "2014-01-01"),
        ], duration: 267.232))
        #expect(response.songs[1].playerSong.tags.last == .init("Comment", "电视剧《他来自天堂》主题曲"))
        #expect(response.songs[1].coverURL?.hasPrefix("https://p1.music.126.net/") == true)
    }

    @Test func songURL() throws {
        let response = try Self.decode(SongEndpoints.URL.Response.self, "song_url_v1.json")
        #expect(response.data.count == 3)
        #expect(response.data[0].url?.hasPrefix("http://m801.music.126.net/") == true)
        #expect(response.data[0].level == "exhigh")
        #expect(response.data[0].expiresIn == 1200)
        #expect(response.data[0].freeTrial == nil)
        #expect(response.data[1].freeTrial?.start == 96)
        #expect(response.data[2].url == nil)
        #expect(response.data[2].code == 404)
    }

    @Test func userPlaylist() throws {
        let response = try Self.decode(PlaylistEndpoints.UserPlaylists.Response.self, "user_playlist.json")
        #expect(response.playlists.map(\.id) == [2000000000, 2000000001, 19723756])
        #expect(response.playlists[0].specialType == 5)
        #expect(response.playlists[0].trackCount == 938)
        #expect(response.playlists[0].creator?.id == 10000001)
        #expect(response.playlists[2].specialType == 10)
        #expect(!response.more)
    }
}

/// Both song shapes → the same PlayerCore song.
@Suite struct NetEaseSongMappingTests {
    static let newShape = #"""
    {"id": 33410933, "name": "I Dare You", "ar": [{"id": 908180, "name": "Bea Miller", "tns": [], "alias": []},
     {"id": 1, "name": "Guest"}], "alia": ["Alias"], "al": {"id": 3210110, "name": "Not an Apology",
     "picUrl": "http://p3.music.126.net/x.jpg", "pic_str": "3330420720534055", "pic": 3330420720534055},
     "dt": 206000, "cd": "01", "no": 3, "publishTime": 1437667200007, "fee": 0, "t": 0}
    """#
    static let oldShape = #"""
    {"id": 33410933, "name": "I Dare You", "artists": [{"id": 908180, "name": "Bea Miller"}, {"id": 1, "name": "Guest"}],
     "alias": ["Alias"], "album": {"id": 3210110, "name": "Not an Apology", "picUrl": "http://p3.music.126.net/x.jpg",
     "publishTime": 1437667200007, "artist": {"id": 0, "name": ""}}, "duration": 206000, "disc": "1", "no": 3,
     "fee": 0, "mvid": 5343151}
    """#

    static func song(_ text: String) throws -> NetEaseSong {
        try JSONDecoder().decode(NetEaseSong.self, from: Data(text.utf8))
    }

    @Test func bothShapesGiveTheSameSong() throws {
        let new = try Self.song(Self.newShape).playerSong
        let old = try Self.song(Self.oldShape).playerSong
        #expect(new == old)
        #expect(new.tags == [
            .init("Artist", "Bea Miller"), .init("Artist", "Guest"), .init("AlbumArtist", "Bea Miller"),
            .init("Title", "I Dare You"), .init("Album", "Not an Apology"), .init("Track", "3"), .init("Disc", "1"),
            .init("Date", "2015-07-24"), .init("Comment", "Alias"),
        ])
        #expect(new.duration == 206)
        #expect(try Self.song(Self.newShape).coverURL == "http://p3.music.126.net/x.jpg")
    }

    @Test func unknownFieldsAreLeftOut() throws {
        let song = try Self.song(#"{"id": "42", "name": "X", "ar": [{"id": 0, "name": null}], "al": {"id": 0, "name": ""}, "dt": 0, "cd": null, "no": 0, "publishTime": 0}"#)
        #expect(song.playerSong == Song(uri: "netease://song/42", tags: [.init("Title", "X")], duration: nil))
    }

    @Test func albumArtistComesFromTheOldShapesAlbum() throws {
        let song = try Self.song(#"{"id": 1, "name": "T", "artists": [{"id": 2, "name": "A"}], "album": {"id": 3, "name": "B", "artist": {"id": 4, "name": "Various"}}, "duration": 1000, "disc": "2/2", "no": 7}"#)
        #expect(song.playerSong.tags == [.init("Artist", "A"), .init("AlbumArtist", "Various"), .init("Title", "T"),
                                         .init("Album", "B"), .init("Track", "7"), .init("Disc", "2")])
    }

    @Test func uris() {
        #expect(NetEaseURI.song(5) == "netease://song/5")
        #expect(NetEaseURI.songID("netease://song/33894312") == 33894312)
        #expect(NetEaseURI.songID("netease://album/1") == nil)
    }
}
