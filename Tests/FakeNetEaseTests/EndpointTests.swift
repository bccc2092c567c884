import FakeNetEase
import Foundation
import NetEase
import Testing

/// Every endpoint answers in the samples' shapes (`Tests/NetEaseSamples`) with the demo account's data.
@Suite struct EndpointTests {
    let harness: Harness
    let me = Harness.demoCookies

    init() throws { harness = try Harness() }

    func user(_ path: String, _ params: [String: Any] = [:]) throws -> [String: Any] {
        let answer = try harness.weapi(path, params, cookies: me)
        #expect(answer.code == 200, "\(path): \(String(decoding: answer.body.prefix(200), as: UTF8.self))")
        return answer.json
    }

    /// The new song shape's key fields (song_detail.json).
    func checkSong(_ song: [String: Any]) {
        #expect(song.int("id") != nil)
        #expect(song.string("name")?.isEmpty == false)
        #expect(!(song["ar"] as? [[String: Any]] ?? []).isEmpty)
        #expect(song.object("al")?.string("picUrl")?.hasPrefix("http://127.0.0.1:") == true)
        #expect(song.int("dt") ?? 0 > 0)
        #expect(song["fee"] is NSNumber && song["no"] is NSNumber && song["publishTime"] is NSNumber)
    }

    @Test func songDetail() throws {
        let json = try user("/api/v3/song/detail", ["c": #"[{"id":5000011},{"id":5000082},{"id":1}]"#,
                                                    "ids": "[5000011,5000082,1]"])
        let songs = json.array("songs")
        #expect(songs.map { $0.int("id") } == [5_000_011, 5_000_082])
        songs.forEach(checkSong)
        #expect(songs[1].array("ar").compactMap { $0.string("name") } == ["星野ゆめ", "이하늘"])
        #expect(json.array("privileges").map { $0.int("id") } == [5_000_011, 5_000_082])
        #expect(json.array("privileges")[0].string("plLevel") != nil)
        let many = "[" + (0..<1001).map { #"{"id":\#(5_000_011 + $0)}"# }.joined(separator: ",") + "]"
        #expect(try harness.weapi("/api/v3/song/detail", ["c": many], cookies: me).code == 400)
        let fiveHundred = "[" + (0..<500).map { #"{"id":\#(5_000_000 + $0)}"# }.joined(separator: ",") + "]"
        #expect(try harness.weapi("/api/v3/song/detail", ["c": fiveHundred], cookies: me).code == 200)
    }

    @Test func userPlaylistHasOwnAndSubscribed() throws {
        let json = try user("/api/user/playlist", ["uid": 10000001, "limit": 30, "offset": 0, "includeVideo": true])
        let playlists = json.array("playlist")
        #expect(playlists.count == 5)
        #expect(json["more"] as? Bool == false)
        #expect(playlists[0].int("specialType") == 5)
        #expect(playlists[0].object("creator")?.int("userId") == 10000001)
        #expect(playlists.map { $0["subscribed"] as? Bool } == [false, false, false, true, true])
        #expect(playlists.allSatisfy { $0.string("coverImgUrl") != nil && $0.int("trackCount") != nil })
        let paged = try user("/api/user/playlist", ["uid": 10000001, "limit": 2, "offset": 0])
        #expect(paged["more"] as? Bool == true)
    }

    @Test func playlistDetailIsTruncatedButTrackIdsAreComplete() throws {
        let big = try user("/api/v6/playlist/detail", ["id": 2_000_000_100, "n": 100000, "s": 8]).object("playlist")
        #expect(big?.array("tracks").count == 20)
        #expect(big?.array("trackIds").count == 40)
        #expect(big?.int("trackCount") == 40)
        let own = try user("/api/v6/playlist/detail", ["id": 2_000_000_001, "n": 100000]).object("playlist")
        #expect(own?.array("tracks").count == 8)
        #expect(own?.array("trackIds").count == 8)
        own?.array("tracks").forEach(checkSong)
        let guest = try harness.api("/api/v6/playlist/detail", [("id", "2000000100"), ("n", "100000")],
                                    cookies: try harness.guestCookies())
        #expect(guest.json.object("playlist")?.array("tracks").count == 6)
        #expect(try harness.weapi("/api/v6/playlist/detail", ["id": 42], cookies: me).code == 404)
    }

    @Test func likesAndLikelist() throws {
        let before = try user("/api/song/like/get", ["uid": 10000001])
        #expect((before["ids"] as? [Int])?.count == 12)
        #expect(before.int("checkPoint") != nil)
        _ = try user("/api/radio/like", ["alg": "itembased", "trackId": 5_000_085, "like": true, "time": "3"])
        let after = try user("/api/song/like/get", ["uid": 10000001])
        #expect((after["ids"] as? [Int])?.first == 5_000_085)
        let liked = try user("/api/v6/playlist/detail", ["id": 2_000_000_000]).object("playlist")
        #expect(liked?.array("trackIds").first?.int("id") == 5_000_085)
    }

    @Test func recommendations() throws {
        let songs = try user("/api/v3/discovery/recommend/songs").object("data")
        let daily = songs?.array("dailySongs") ?? []
        #expect(daily.count == 10)
        daily.forEach(checkSong)
        #expect(daily[0].object("privilege")?.int("id") == daily[0].int("id"))
        #expect(daily[0].string("alg") == "itembased2")
        #expect(songs?.array("recommendReasons").first?.int("songId") == daily[0].int("id"))
        let resource = try user("/api/v1/discovery/recommend/resource")
        #expect(resource.array("recommend").count == 3)
        #expect(resource.array("recommend")[0].string("picUrl") != nil)
    }

    @Test func chartsAlbumsArtists() throws {
        let toplist = try user("/api/toplist")
        #expect(toplist.array("list").map { $0.int("id") } == [19_723_756, 3_779_629, 3_778_678])
        let chart = try user("/api/v6/playlist/detail", ["id": 19_723_756]).object("playlist")
        #expect(chart?.int("specialType") == 10)

        let album = try user("/api/v1/album/3002")
        #expect(album.object("album")?.string("name") == "雨の街角")
        #expect(album.object("album")?.object("artist")?.string("name") == "星野ゆめ")
        #expect(album.array("songs").map { $0.int("no") } == [1, 2, 3, 4, 5])
        #expect(try harness.weapi("/api/v1/album/9", cookies: me).code == 404)

        let artist = try user("/api/v1/artist/2002")
        #expect(artist.object("artist")?.string("name") == "星野ゆめ")
        #expect(artist.array("hotSongs").count == 10)
        let top = try user("/api/artist/top/song", ["id": 2005])
        #expect(top.array("songs").count == 6)
        let albums = try user("/api/artist/albums/2001", ["limit": 30, "offset": 0, "total": true])
        #expect(albums.array("hotAlbums").map { $0.string("name") } == ["夏日的回声", "城市森林"])
        let subAlbums = try user("/api/album/sublist", ["limit": 25, "offset": 0, "total": true])
        #expect(subAlbums.array("data").map { $0.int("id") } == [3003, 3006])
        let subArtists = try user("/api/artist/sublist", ["limit": 25, "offset": 0, "total": true])
        #expect(subArtists.array("data").map { $0.string("name") } == ["星野ゆめ", "이하늘"])
    }

    @Test func recordAndCloud() throws {
        let week = try user("/api/v1/play/record", ["uid": 10000001, "type": 1])
        #expect(week.array("weekData").count == 8)
        #expect(week.array("weekData")[0].int("playCount") == 12)
        week.array("weekData").compactMap { $0.object("song") }.forEach(checkSong)
        let all = try user("/api/v1/play/record", ["uid": 10000001, "type": 0])
        #expect(all.array("allData").count > 8)
        let cloud = try user("/api/v1/cloud/get", ["limit": 30, "offset": 0])
        #expect(cloud.array("data").count == 3)
        #expect(cloud.int("count") == 3)
        let first = cloud.array("data")[0]
        #expect(first.object("simpleSong")?.int("t") == 1)
        #expect(first.object("simpleSong")?.array("ar").first?["name"] is NSNull)
        #expect(first.string("fileName")?.hasSuffix(".mp3") == true)
    }

    @Test func searchByType() throws {
        func search(_ s: String, _ type: Int) throws -> [String: Any] {
            try user("/api/cloudsearch/pc", ["s": s, "type": type, "limit": 30, "offset": 0, "total": true])
                .object("result") ?? [:]
        }
        let songs = try search("夜", 1)
        #expect(songs.array("songs").compactMap { $0.string("name") }.contains("夜明けまで"))
        #expect(songs.int("songCount") == songs.array("songs").count)
        #expect(songs.array("songs").allSatisfy { $0.object("privilege") != nil })
        #expect(try search("sigur osk", 1).array("songs").count == 5)
        #expect(try search("城市", 10).array("albums").map { $0.string("name") } == ["城市森林"])
        #expect(try search("night city", 100).array("artists").map { $0.string("name") } == ["Ночной Город"])
        #expect(try search("通勤", 1000).array("playlists").map { $0.int("id") } == [2_000_000_001])
        #expect(try search("zzzz", 1).int("songCount") == 0)
        let paged = try user("/api/cloudsearch/pc", ["s": "", "type": 1, "limit": 10, "offset": 35])
        #expect(paged.object("result")?.array("songs").count == 5)

        let suggest = try user("/api/search/suggest/web", ["s": "星"])
        #expect(suggest.object("result")?.array("songs").first?["artists"] != nil)
        #expect((suggest.object("result")?["order"] as? [String])?.contains("artists") == true)
    }

    @Test func lyrics() throws {
        let plain = try user("/api/song/lyric", ["id": 5_000_021, "lv": -1, "tv": -1])
        #expect(plain.object("lrc")?.string("lyric")?.contains("[00:01.00]雨の街角") == true)
        let new = try harness.eapi("/api/song/lyric/v1", ["id": "5000021", "cp": false, "tv": 0, "lv": 0, "rv": 0,
                                                          "kv": 0, "yv": 0, "ytv": 0, "yrv": 0], cookies: me).json
        #expect(new.object("yrc")?.string("lyric")?.contains("[1000,1400](1000,") == true)
        #expect(new.object("ytlrc")?.string("lyric")?.contains("[00:02.50](translation) 雨の街角 ♪") == true)
        #expect(new.object("tlyric")?.string("lyric")?.contains("[00:01.00](translation) 雨の街角") == true)
        // A Japanese artist's song is romanized; a Chinese one is not.
        #expect(new.object("romalrc")?.string("lyric")?.contains("[00:04.00](romaji) la la la") == true)
        #expect(new.object("yromalrc")?.string("lyric")?.isEmpty == false)
        let chinese = try user("/api/song/lyric", ["id": 5_000_011])
        #expect(chinese.object("romalrc")?.string("lyric") == "")
        // Nothing to show: an instrumental, a song nobody has sent lyrics for yet, a cloud upload.
        let instrumental = try user("/api/song/lyric", ["id": DemoCatalog.instrumentalSongID])
        #expect(instrumental["nolyric"] as? Bool == true && instrumental["lrc"] == nil)
        for id in [DemoCatalog.uncollectedSongID, 5_000_901] {
            let none = try user("/api/song/lyric", ["id": id])
            #expect(none["uncollected"] as? Bool == true && none["nolyric"] == nil && none["lrc"] == nil)
        }
    }

    @Test func personalFM() throws {
        let fm = try user("/api/v1/radio/get")
        #expect(fm.array("data").count == 3)
        #expect(fm.array("data")[0]["artists"] != nil && fm.array("data")[0]["duration"] != nil)
        #expect(fm.array("data").map { $0.int("id") } == [5_000_011, 5_000_012, 5_000_013])
        #expect(try user("/api/v1/radio/get").array("data").first?.int("id") == 5_000_014)
    }
}

extension EndpointTests {
    @Test func recentSongsAndScrobble() throws {
        let recent = try user("/api/play-record/song/list", ["limit": 100]).object("data")
        #expect(recent?.array("list").count == 8)
        #expect(recent?.array("list").first?.string("resourceType") == "SONG")
        recent?.array("list").compactMap { $0.object("data") }.forEach(checkSong)
        let logs = #"[{"action":"play","json":{"download":0,"end":"playend","id":5000011,"sourceId":"2000000001","time":6,"type":"song","wifi":0,"source":"list"}}]"#
        let answer = try user("/api/feedback/weblog", ["logs": logs])
        #expect(answer.string("data") == "success")
        let logged = try #require(harness.server.requests(for: "/api/feedback/weblog").last)
        #expect(logged.cookies["os"] == nil && logged.cookies["appver"] == nil)
        #expect(try harness.weapi("/api/feedback/weblog", ["logs": "nope"], cookies: me).code == 400)
    }

    /// libcurl sends `Expect: 100-continue` with bodies over 1 KiB; the fake answers it rather than letting curl
    /// wait (here five seconds) before sending the body.
    @Test func expectContinueIsAnswered() throws {
        let ids = "[" + (0..<200).map { #"{"id":\#(5_000_011 + $0)}"# }.joined(separator: ",") + "]"
        let (params, encSecKey) = NetEaseCrypto.weapi(Harness.json(["c": ids, "csrf_token": me["__csrf"]!]),
                                                      publicKey: TestKeys.pair.publicKey)
        let body = FormCoding.encode([("params", params), ("encSecKey", encSecKey)])
        #expect(body.utf8.count > 1024)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "-s", "--expect100-timeout", "5", "-H", "Expect: 100-continue",
                             "-b", "MUSIC_U=\(me["MUSIC_U"]!); __csrf=\(me["__csrf"]!)", "--data-binary", body,
                             "http://127.0.0.1:\(harness.port)/weapi/v3/song/detail"]
        let output = Pipe()
        process.standardOutput = output
        let started = Date()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(Date().timeIntervalSince(started) < 3)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json.array("songs").count == 40)
    }
}

extension EndpointTests {
    @Test func playlistEditing() throws {
        let created = try user("/api/playlist/create", ["name": "新建歌单 ✨", "privacy": "0", "type": "NORMAL"])
        let id = try #require(created.int("id"))
        #expect(created.object("playlist")?.string("name") == "新建歌单 ✨")
        let mine = try user("/api/user/playlist", ["uid": 10000001]).array("playlist")
        #expect(mine.map { $0.int("id") }.prefix(2) == [2_000_000_000, id])

        let added = try user("/api/playlist/manipulate/tracks",
                             ["op": "add", "pid": id, "trackIds": #"["5000011","5000021"]"#, "imme": "true"])
        #expect(added.int("count") == 2)
        #expect(try harness.weapi("/api/playlist/manipulate/tracks",
                                  ["op": "add", "pid": id, "trackIds": #"["5000011"]"#], cookies: me).code == 502)
        _ = try user("/api/playlist/manipulate/tracks", ["op": "del", "pid": id, "trackIds": #"["5000021"]"#])
        let detail = try user("/api/v6/playlist/detail", ["id": id]).object("playlist")
        #expect(detail?.array("trackIds").map { $0.int("id") } == [5_000_011])

        // Subscribed playlists are not the account's to edit.
        #expect(try harness.weapi("/api/playlist/manipulate/tracks",
                                  ["op": "add", "pid": 2_000_000_100, "trackIds": #"["5000011"]"#],
                                  cookies: me).code == 401)
        #expect(try harness.weapi("/api/playlist/remove", ["ids": "[2000000100]"], cookies: me).code == 401)
        #expect(try harness.weapi("/api/playlist/remove", ["ids": "[2000000000]"], cookies: me).code == 401)

        // Renaming: the account's own playlist, to a name that is not empty; the liked-songs one keeps its name.
        _ = try user("/api/playlist/update/name", ["id": id, "name": "改名 ✨"])
        #expect(try user("/api/v6/playlist/detail", ["id": id]).object("playlist")?.string("name") == "改名 ✨")
        #expect(try harness.weapi("/api/playlist/update/name", ["id": id, "name": " "], cookies: me).code == 400)
        #expect(try harness.weapi("/api/playlist/update/name", ["id": 2_000_000_100, "name": "x"], cookies: me).code
            == 401)
        #expect(try harness.weapi("/api/playlist/update/name", ["id": 2_000_000_000, "name": "x"], cookies: me).code
            == 401)
        #expect(try harness.weapi("/api/playlist/update/name", ["id": 1, "name": "x"], cookies: me).code == 404)
        _ = try user("/api/playlist/remove", ["ids": "[\(id)]"])
        #expect(try harness.weapi("/api/v6/playlist/detail", ["id": id], cookies: me).code == 404)
    }

    /// Key fields of the reference samples (song_detail.json, song_url_v1.json, user_playlist.json) are all there.
    @Test func answersCarryTheSamplesKeys() throws {
        let songKeys = ["name", "id", "pst", "t", "ar", "alia", "pop", "st", "rt", "fee", "v", "crbt", "cf", "al", "dt",
                        "h", "m", "l", "sq", "hr", "a", "cd", "no", "rtUrl", "ftype", "rtUrls", "djId", "copyright",
                        "s_id", "mark", "originCoverType", "originSongSimpleData", "resourceState", "single",
                        "noCopyrightRcmd", "mst", "cp", "mv", "rtype", "rurl", "publishTime"]
        let privilegeKeys = ["id", "fee", "payed", "st", "pl", "dl", "sp", "cp", "subp", "cs", "maxbr", "fl", "toast",
                             "flag", "preSell", "playMaxbr", "downloadMaxbr", "maxBrLevel", "playMaxBrLevel",
                             "downloadMaxBrLevel", "plLevel", "dlLevel", "flLevel", "rscl", "freeTrialPrivilege",
                             "chargeInfoList"]
        let detail = try user("/api/v3/song/detail", ["c": #"[{"id":5000011}]"#])
        let song = try #require(detail.array("songs").first)
        #expect(songKeys.filter { song[$0] == nil } == [])
        #expect(["id", "name", "picUrl", "tns", "pic_str", "pic"].filter { song.object("al")?[$0] == nil } == [])
        let privilege = try #require(detail.array("privileges").first)
        #expect(privilegeKeys.filter { privilege[$0] == nil } == [])

        let urlKeys = ["id", "url", "br", "size", "md5", "code", "expi", "type", "gain", "peak", "fee", "payed",
                       "flag", "freeTrialInfo", "level", "encodeType", "freeTrialPrivilege", "time", "musicId", "sr",
                       "freeTimeTrialPrivilege", "urlSource", "rightSource"]
        let url = try #require(try harness.eapi("/api/song/enhance/player/url/v1", ["ids": "[5000011]", "level": "standard"],
                                                cookies: me).json.array("data").first)
        #expect(urlKeys.filter { url[$0] == nil } == [])

        let playlistKeys = ["subscribers", "subscribed", "creator", "userId", "privacy", "id", "name", "specialType",
                            "trackCount", "playCount", "coverImgId", "coverImgUrl", "coverImgId_str", "createTime",
                            "updateTime", "trackUpdateTime", "commentThreadId", "description", "tags", "ordered"]
        let playlist = try #require(try user("/api/user/playlist", ["uid": 10000001]).array("playlist").first)
        #expect(playlistKeys.filter { playlist[$0] == nil } == [])
    }
}
