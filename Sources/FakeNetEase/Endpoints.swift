import Foundation
import NetEase

/// What a handler gets: the decrypted parameters, the cookies, who is asking.
struct Context {
    let server: FakeNetEaseServer
    let params: [String: Any]
    let cookies: [String: String]
    let viewer: FakeNetEaseServer.Viewer
    let scheme: FakeNetEaseServer.Scheme
    let path: String
    let shapes: Shapes

    var catalog: DemoCatalog { shapes.catalog }

    func string(_ key: String) -> String? { FakeNetEaseServer.stringValue(params[key]) }
    func int(_ key: String) -> Int? { FakeNetEaseServer.intValue(params[key]) }

    /// The id at the end of `/api/v1/album/{id}`-style paths.
    var pathID: Int? { path.split(separator: "/").last.flatMap { Int($0) } }
}

struct Reply {
    var json: [String: Any]
    var cookies: [String] = []
    var status = 200

    static func code(_ code: Int, _ message: String) -> Reply {
        Reply(json: ["code": code, "message": message, "msg": message])
    }
}

extension FakeNetEaseServer {
    enum Access {
        /// No cookie needed (login endpoints).
        case open
        /// A guest (`MUSIC_A`) or user cookie (catalog endpoints NetEase lets guests use).
        case guest
        /// `MUSIC_U` of a live session; otherwise `{"code":301}`.
        case login
    }

    struct Endpoint: Sendable {
        var path: String
        /// The path ends in `/{id}`.
        var hasID = false
        var access: Access
        var handler: @Sendable (Context) -> Reply
    }

    /// The endpoint table, by the `/api/...` path the clients send (`Sources/NetEase/Endpoints`).
    static let endpoints: [Endpoint] = [
        Endpoint(path: "/api/login/qrcode/unikey", access: .open, handler: qrKey),
        Endpoint(path: "/api/login/qrcode/client/login", access: .open, handler: qrCheck),
        Endpoint(path: "/api/w/nuser/account/get", access: .open, handler: account),
        Endpoint(path: "/api/nuser/account/get", access: .open, handler: account),
        Endpoint(path: "/api/login/token/refresh", access: .login, handler: refresh),
        Endpoint(path: "/api/logout", access: .open, handler: logout),
        Endpoint(path: "/api/register/anonimous", access: .open, handler: registerAnonymous),
        Endpoint(path: "/api/login/cellphone", access: .open, handler: cellphone),
        Endpoint(path: "/api/w/login/cellphone", access: .open, handler: cellphone),
        Endpoint(path: "/api/sms/captcha/sent", access: .open, handler: smsCode),
        Endpoint(path: "/api/cloudsearch/pc", access: .guest, handler: cloudsearch),
        Endpoint(path: "/api/search/suggest/web", access: .guest, handler: searchSuggest),
        Endpoint(path: "/api/v3/song/detail", access: .guest, handler: songDetail),
        Endpoint(path: "/api/song/enhance/player/url/v1", access: .guest, handler: songURL),
        Endpoint(path: "/api/song/enhance/player/url", access: .guest, handler: songURL),
        Endpoint(path: "/api/song/lyric", access: .guest, handler: lyric),
        Endpoint(path: "/api/song/lyric/v1", access: .guest, handler: lyric),
        Endpoint(path: "/api/user/playlist", access: .guest, handler: userPlaylist),
        Endpoint(path: "/api/v6/playlist/detail", access: .guest, handler: playlistDetail),
        Endpoint(path: "/api/song/like/get", access: .login, handler: likelist),
        Endpoint(path: "/api/radio/like", access: .login, handler: like),
        Endpoint(path: "/api/v3/discovery/recommend/songs", access: .login, handler: recommendSongs),
        Endpoint(path: "/api/v1/discovery/recommend/resource", access: .login, handler: recommendResource),
        Endpoint(path: "/api/v1/radio/get", access: .login, handler: personalFM),
        Endpoint(path: "/api/radio/trash/add", access: .login, handler: fmTrash),
        Endpoint(path: "/api/playmode/intelligence/list", access: .login, handler: intelligence),
        Endpoint(path: "/api/toplist", access: .guest, handler: toplist),
        Endpoint(path: "/api/v1/album", hasID: true, access: .guest, handler: album),
        Endpoint(path: "/api/v1/artist", hasID: true, access: .guest, handler: artist),
        Endpoint(path: "/api/artist/top/song", access: .guest, handler: artistTopSongs),
        Endpoint(path: "/api/artist/albums", hasID: true, access: .guest, handler: artistAlbums),
        Endpoint(path: "/api/album/sublist", access: .login, handler: albumSublist),
        Endpoint(path: "/api/artist/sublist", access: .login, handler: artistSublist),
        Endpoint(path: "/api/v1/play/record", access: .login, handler: userRecord),
        Endpoint(path: "/api/v1/cloud/get", access: .login, handler: userCloud),
        Endpoint(path: "/api/playlist/create", access: .login, handler: playlistCreate),
        Endpoint(path: "/api/playlist/remove", access: .login, handler: playlistRemove),
        Endpoint(path: "/api/playlist/update/name", access: .login, handler: playlistRename),
        Endpoint(path: "/api/playlist/manipulate/tracks", access: .login, handler: playlistTracks),
        Endpoint(path: "/api/v1/playlist/manipulate/tracks", access: .login, handler: playlistTracks),
        Endpoint(path: "/api/play-record/song/list", access: .login, handler: recentSongs),
        Endpoint(path: "/api/feedback/weblog", access: .guest, handler: scrobble),
    ]

    static func route(_ apiPath: String) -> Endpoint? {
        endpoints.first { endpoint in
            if endpoint.hasID {
                guard apiPath.hasPrefix(endpoint.path + "/") else { return false }
                return Int(apiPath.dropFirst(endpoint.path.count + 1)) != nil
            }
            return apiPath == endpoint.path
        }
    }

    // MARK: Login

    static func qrKey(_ context: Context) -> Reply {
        guard let type = context.int("type"), type == 1 || type == 3 else { return .code(400, "参数错误") }
        let key = UUID().uuidString.lowercased()
        context.server.lock.withLock {
            context.server.qrKeys[key] = (Date(), nil)
            context.server.qrOrder.append(key)
        }
        return Reply(json: ["code": 200, "unikey": key])
    }

    static func qrCheck(_ context: Context) -> Reply {
        let server = context.server
        guard let key = context.string("key") else { return .code(400, "参数错误") }
        let state: QRState = server.lock.withLock {
            guard let entry = server.qrKeys[key] else { return .expired }
            let age = Date().timeIntervalSince(entry.created)
            var state = entry.state ?? .waiting
            if case .automatic(let scanAfter, let confirmAfter) = server.options.qrMode, entry.state == nil {
                state = age >= confirmAfter ? .confirmed : age >= scanAfter ? .scanned : .waiting
            }
            if state != .confirmed && age > server.options.qrLifetime { state = .expired }
            // A key logs in once; NetEase answers 800 for it afterwards.
            if state == .confirmed || state == .expired { server.qrKeys[key] = nil }
            return state
        }
        switch state {
        case .expired: return Reply(json: ["code": 800, "message": "二维码不存在或已过期"])
        case .waiting: return Reply(json: ["code": 801, "message": "等待扫码"])
        case .scanned:
            return Reply(json: ["code": 802, "message": "授权中", "nickname": context.catalog.account.nickname,
                                "avatarUrl": context.shapes.picURL(context.catalog.account.avatarPicID)])
        case .confirmed:
            return Reply(json: ["code": 803, "message": "授权登陆成功"], cookies: server.newSession(viaQR: true))
        }
    }

    /// A new MUSIC_U/__csrf pair and the Set-Cookie headers NetEase sends with it (reference login_qr sample).
    func newSession(viaQR: Bool) -> [String] {
        let token = "FAKE_MUSIC_U_" + Self.randomHex(64)
        let csrf = Self.randomHex(32)
        lock.withLock { sessions[token] = (csrf, viaQR) }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        return [
            "MUSIC_A_T=\(now); Max-Age=2147483647; Expires=Thu, 16 Feb 2090 08:16:56 GMT; Path=/eapi/clientlog",
            "MUSIC_R_T=\(now + 1); Max-Age=2147483647; Expires=Thu, 16 Feb 2090 08:16:56 GMT; Path=/weapi/feedback",
            "__csrf=\(csrf); Max-Age=1296010; Expires=Sun, 13 Feb 2090 05:02:59 GMT; Path=/",
            "MUSIC_U=\(token); Max-Age=15552000; Expires=Thu, 28 Jul 2090 05:02:49 GMT; Path=/; HTTPOnly",
        ]
    }

    static func accountJSON(_ context: Context) -> [String: Any] {
        let user = context.catalog.account
        return [
            "id": user.id, "userName": "1_********000", "type": 1, "status": 0, "whitelistAuthority": 0,
            "createTime": 1_456_201_315_747, "tokenVersion": 6, "ban": 0, "baoyueVersion": -2, "donateVersion": 0,
            "vipType": user.vipType, "anonimousUser": false, "paidFee": true,
        ]
    }

    static func profileJSON(_ context: Context) -> [String: Any] {
        var profile = context.shapes.userRef(context.catalog.account.id)
        profile["userName"] = "1_********000"
        profile["lastLoginTime"] = 1_700_000_000_000
        profile["createTime"] = 1_456_201_315_747
        for (key, value) in ["accountType": 1, "shortUserName": "********000", "locationStatus": 10,
                             "authenticated": false, "lastLoginIP": "203.0.113.10",
                             "viptypeVersion": 1_700_000_000_000, "authenticationTypes": 0,
                             "avatarDetail": Shapes.null, "anchor": false] as [String: Any] {
            profile[key] = value
        }
        return profile
    }

    static func account(_ context: Context) -> Reply {
        switch context.viewer {
        case .user:
            return Reply(json: ["code": 200, "account": accountJSON(context), "profile": profileJSON(context)])
        case .guest(let id):
            return Reply(json: ["code": 200, "profile": Shapes.null, "account": [
                "id": id, "userName": "0_EXAMPLEGUEST", "type": 0, "status": 0, "whitelistAuthority": 0,
                "createTime": 1_700_000_000_000, "tokenVersion": 0, "ban": 0, "baoyueVersion": 0,
                "donateVersion": 0, "vipType": 0, "anonimousUser": true, "paidFee": false,
            ] as [String: Any]])
        case .nobody:
            return Reply(json: ["code": 200, "account": Shapes.null, "profile": Shapes.null])
        }
    }

    static func refresh(_ context: Context) -> Reply {
        guard case .user(let token, _) = context.viewer else { return .code(301, "需要登录") }
        let viaQR = context.server.lock.withLock { context.server.sessions[token]?.viaQR ?? false }
        if viaQR && context.server.options.refreshRejectsQRCookies { return .code(400, "token refresh failed") }
        return Reply(json: ["code": 200, "bizCode": "200"], cookies: context.server.newSession(viaQR: false))
    }

    static func logout(_ context: Context) -> Reply {
        if case .user(let token, _) = context.viewer {
            context.server.lock.withLock { _ = context.server.sessions.removeValue(forKey: token) }
        }
        return Reply(json: ["code": 200], cookies: [
            "MUSIC_U=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/",
            "__csrf=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/",
        ])
    }

    /// Checks the `username` the way the clients build it (`NetEaseCrypto.anonymousUsername`): base64 of
    /// `deviceId + " " + encodedId`.
    static func registerAnonymous(_ context: Context) -> Reply {
        guard let username = context.string("username"), let data = Data(base64Encoded: username),
              let text = String(data: data, encoding: .utf8), let space = text.lastIndex(of: " ")
        else { return .code(400, "参数错误") }
        let deviceID = String(text[..<space])
        guard NetEaseCrypto.anonymousUsername(deviceID: deviceID) == username else { return .code(400, "参数错误") }
        let token = "FAKE_MUSIC_A_" + randomHex(48)
        let id = 9_000_000_000 + Int.random(in: 1..<1_000_000)
        context.server.lock.withLock { context.server.guests[token] = id }
        return Reply(json: ["code": 200, "userId": id, "createTime": Int64(Date().timeIntervalSince1970 * 1000)],
                     cookies: ["MUSIC_A=\(token); Max-Age=2147483647; Expires=Thu, 16 Feb 2090 08:16:56 GMT; Path=/"])
    }

    /// The demo phone with its password (md5) or SMS code 1234 logs in; other numbers give NetEase's risk
    /// answers: …01 → 8821, …02 → -462, …03 → -460; unknown numbers 501; a wrong password 502.
    static func cellphone(_ context: Context) -> Reply {
        guard let phone = context.string("phone") else { return .code(400, "参数错误") }
        switch phone {
        case "13800000001":
            return Reply(json: ["code": 8821, "message": "需要行为验证码验证",
                                "redirectUrl": "https://qa-yyy.igame.163.com/anquanhuanjingfengxian"])
        case "13800000002":
            return Reply(json: ["code": -462, "message": "网络太拥挤，请稍候再试。", "data": [
                "actionCode": "login", "verifyType": 50, "verifyUrl": "https://st.music.163.com/encrypt-pages",
                "blockText": "网络太拥挤，请稍候再试。", "params": ["event_id": "EXAMPLE", "sign": "EXAMPLE"],
            ] as [String: Any]])
        case "13800000003":
            return .code(-460, "网络太拥挤，请稍候再试！")
        case DemoCatalog.demoPhone:
            let password = NetEaseCrypto.md5Hex(Array(DemoCatalog.demoPassword.utf8))
            guard context.string("password") == password || context.string("captcha") == "1234" else {
                return Reply(json: ["msg": "密码错误", "code": 502, "message": "密码错误"])
            }
            let cookies = context.server.newSession(viaQR: false)
            return Reply(json: ["loginType": 1, "code": 200, "account": accountJSON(context),
                                "token": "FAKE_TOKEN_" + randomHex(32), "profile": profileJSON(context),
                                "bindings": [["type": 1, "url": "", "userId": context.catalog.account.id]]],
                         cookies: cookies)
        default:
            return .code(501, "账号不存在")
        }
    }

    /// Any number gets a code (the demo phone's is always 1234).
    static func smsCode(_ context: Context) -> Reply {
        guard context.string("cellphone") != nil else { return .code(400, "参数错误") }
        return Reply(json: ["code": 200, "data": true])
    }

    // MARK: Search

    static func cloudsearch(_ context: Context) -> Reply {
        guard let keyword = context.string("s") else { return .code(400, "参数错误") }
        let type = context.int("type") ?? 1
        let limit = max(1, context.int("limit") ?? 30)
        let offset = max(0, context.int("offset") ?? 0)
        func page<T>(_ items: [T]) -> [T] { Array(items.dropFirst(offset).prefix(limit)) }
        let shapes = context.shapes
        var result: [String: Any] = ["searchQcReminder": Shapes.null]
        switch type {
        case 1:
            let songs = context.catalog.searchSongs(keyword)
            result["songs"] = page(songs).map(shapes.songWithPrivilege)
            result["songCount"] = songs.count
        case 10:
            let albums = context.catalog.searchAlbums(keyword)
            result["albums"] = page(albums).map(shapes.albumRef)
            result["albumCount"] = albums.count
        case 100:
            let artists = context.catalog.searchArtists(keyword)
            result["artists"] = page(artists).map(shapes.artist)
            result["artistCount"] = artists.count
        case 1000:
            let playlists = context.catalog.searchPlaylists(keyword)
            result["playlists"] = page(playlists).map { playlist -> [String: Any] in
                [
                    "id": playlist.id, "name": playlist.name, "coverImgUrl": shapes.picURL(playlist.picID),
                    "creator": ["nickname": context.catalog.users[playlist.creatorID]?.nickname ?? "",
                                "userId": playlist.creatorID, "userType": 0, "avatarUrl": Shapes.null],
                    "subscribed": false, "trackCount": playlist.trackIDs.count, "userId": playlist.creatorID,
                    "playCount": playlist.playCount, "bookCount": 0, "specialType": playlist.specialType,
                    "description": playlist.description ?? Shapes.null, "highQuality": false,
                ]
            }
            result["playlistCount"] = playlists.count
        default:
            break
        }
        return Reply(json: ["result": result, "code": 200])
    }

    static func searchSuggest(_ context: Context) -> Reply {
        guard let keyword = context.string("s"), !keyword.isEmpty else { return .code(400, "参数错误") }
        let catalog = context.catalog
        let shapes = context.shapes
        var result: [String: Any] = [:]
        var order: [String] = []
        let songs = catalog.searchSongs(keyword).prefix(4)
        if !songs.isEmpty {
            result["songs"] = songs.map(shapes.oldSong)
            order.append("songs")
        }
        let artists = catalog.searchArtists(keyword).prefix(2)
        if !artists.isEmpty {
            result["artists"] = artists.map(shapes.artist)
            order.append("artists")
        }
        let albums = catalog.searchAlbums(keyword).prefix(2)
        if !albums.isEmpty {
            result["albums"] = albums.map(shapes.albumRef)
            order.append("albums")
        }
        let playlists = catalog.searchPlaylists(keyword).prefix(2)
        if !playlists.isEmpty {
            result["playlists"] = playlists.map(shapes.playlistSummary)
            order.append("playlists")
        }
        if !order.isEmpty { result["order"] = order }
        return Reply(json: ["result": result, "code": 200])
    }

    // MARK: Songs

    /// Ids from `c` (`'[{"id":1}]'`) or `ids` (`'[1,2]'`), as strings or as arrays.
    static func songIDs(_ value: Any?) -> [Int]? {
        var array = value as? [Any]
        if array == nil, let text = value as? String {
            array = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [Any]
        }
        return array?.compactMap { item in
            if let object = item as? [String: Any] { return intValue(object["id"]) }
            return intValue(item)
        }
    }

    static func songDetail(_ context: Context) -> Reply {
        guard let ids = songIDs(context.params["c"]) ?? songIDs(context.params["ids"]) else {
            return .code(400, "参数错误")
        }
        guard ids.count <= context.server.options.songDetailLimit else { return .code(400, "歌曲数量超过限制") }
        let songs = ids.compactMap { context.catalog.songs[$0] }.filter { !$0.cloud || context.viewer.isUser }
        return Reply(json: ["songs": songs.map(context.shapes.song), "privileges": songs.map(context.shapes.privilege),
                            "code": 200])
    }

    static let levels = ["standard": 128000, "higher": 192000, "exhigh": 320000, "lossless": 999000,
                         "hires": 1999000, "jyeffect": 999000, "sky": 999000, "jymaster": 999000]

    /// `song_url_v1` (by `level`) and the legacy `song_url` (by `br`). URLs point at this server, carry their issue
    /// time like the CDN's, and expire after `urlLifetime`. Answers come in reverse request order, since NetEase
    /// does not keep the order either.
    static func songURL(_ context: Context) -> Reply {
        guard let ids = songIDs(context.params["ids"]) else { return .code(400, "参数错误") }
        let requestedBR = context.string("level").flatMap { levels[$0] } ?? context.int("br") ?? 999000
        let server = context.server
        let vip = context.viewer.isUser
        let stamp = DateFormatter()
        stamp.dateFormat = "yyyyMMddHHmmss"
        stamp.timeZone = TimeZone(identifier: "Asia/Shanghai")
        let entries = ids.reversed().map { id -> [String: Any] in
            var entry: [String: Any] = [
                "id": id, "url": Shapes.null, "br": 0, "size": 0, "md5": Shapes.null, "code": 404,
                "expi": Int(server.options.urlLifetime), "type": Shapes.null, "gain": 0.0, "peak": Shapes.null,
                "fee": 0, "payed": 0, "flag": 0, "freeTrialInfo": Shapes.null, "level": Shapes.null,
                "encodeType": Shapes.null, "time": 0, "musicId": Shapes.null, "sr": 0, "urlSource": 0,
                "rightSource": 0, "closedGain": 0.0, "closedPeak": 0.0, "uf": Shapes.null, "canExtend": false,
                "channelLayout": Shapes.null, "podcastCtrp": Shapes.null, "effectTypes": Shapes.null,
                "message": Shapes.null, "levelConfuse": Shapes.null, "accompany": Shapes.null, "auEff": Shapes.null,
                "immerseType": Shapes.null,
                "freeTrialPrivilege": ["resConsumable": false, "userConsumable": false, "listenType": Shapes.null,
                                       "cannotListenReason": Shapes.null, "playReason": Shapes.null,
                                       "freeLimitTagType": Shapes.null] as [String: Any],
                "freeTimeTrialPrivilege": ["resConsumable": false, "userConsumable": false, "type": 0,
                                           "remainTime": 0] as [String: Any],
            ]
            guard let song = context.catalog.songs[id], !song.unavailable, !song.cloud || vip else { return entry }
            let trial = (song.fee == 1 && !vip) || song.alwaysTrial
            var br = min(requestedBR, song.lossless ? 999000 : 320000)
            if (!vip && song.fee != 0) || song.alwaysTrial { br = 128000 }
            let flac = br > 320000
            let seconds = DemoCatalog.mediaSeconds[song.media]
            let file = song.alwaysTrial ? server.media.clip(song.media) : server.media.audio(song.media, flac: flac)
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            let digest = randomHex(32)
            let now = Date()
            server.lock.withLock {
                server.issuedURLs[digest] = IssuedURL(issued: now, media: song.media, flac: flac,
                                                      clip: song.alwaysTrial, song: id)
            }
            let level = flac ? "lossless" : br >= 320000 ? "exhigh" : br >= 192000 ? "higher" : "standard"
            entry["url"] = "\(context.shapes.base)/\(stamp.string(from: now))/\(digest)/jdymusic/obj/\(id).\(flac ? "flac" : "mp3")"
            entry["br"] = br
            entry["size"] = size
            entry["md5"] = digest
            entry["code"] = 200
            entry["type"] = flac ? "flac" : "mp3"
            entry["encodeType"] = flac ? "flac" : "mp3"
            entry["level"] = level
            entry["fee"] = song.fee
            entry["payed"] = vip && song.fee == 1 ? 1 : 0
            entry["gain"] = song.gain
            entry["peak"] = song.peak
            entry["sr"] = 44100
            entry["musicId"] = String(id)
            entry["time"] = seconds * 1000
            if trial {
                // A guest's VIP song gets NetEase's 30 s trial window (here the whole short tone); a paid-album
                // song its real clip.
                let end = song.alwaysTrial ? DemoCatalog.trialSeconds : min(30, seconds)
                entry["freeTrialInfo"] = ["fragmentType": 2, "start": 0, "end": end,
                                          "algData": ["fragSource": "default"]] as [String: Any]
                entry["time"] = end * 1000
                entry["flag"] = 260
            }
            return entry
        }
        return Reply(json: ["data": entries, "code": 200])
    }

    /// `lyric` and `lyric_new`. Every catalog song has timed lines (a credit line at 0, its title at 1 s, two more
    /// 1.5 s apart, an empty line a second before its end) with a translation of each; the Japanese and Korean
    /// artists' songs also a romanization. `lyric_new` adds the word-timed `yrc` (one word per character, each line
    /// 1.4 s long) with `ytlrc`/`yromalrc` on its times. `instrumentalSongID` answers `nolyric`,
    /// `uncollectedSongID` and cloud uploads `uncollected` (no lyric yet), as NetEase does.
    static func lyric(_ context: Context) -> Reply {
        guard let id = context.int("id") else { return .code(400, "参数错误") }
        guard let song = context.catalog.songs[id], !song.cloud, id != DemoCatalog.uncollectedSongID else {
            return Reply(json: ["sgc": true, "sfy": false, "qfy": false, "needDesc": true, "uncollected": true,
                                "code": 200])
        }
        if id == DemoCatalog.instrumentalSongID {
            return Reply(json: ["sgc": false, "sfy": false, "qfy": false, "nolyric": true, "code": 200])
        }
        let artist = song.artistIDs.compactMap { context.catalog.artists[$0]?.name }.joined(separator: "/")
        let lines = DemoCatalog.lyricLines(of: song)
        let romanized = song.artistIDs.contains { [2002, 2005].contains($0) }
        func stamp(_ ms: Int) -> String { String(format: "[%02d:%02d.%02d]", ms / 60000, ms / 1000 % 60, ms % 1000 / 10) }
        let credit = "作词 : \(artist)"
        let lrc = stamp(0) + credit + "\n" + lines.map { stamp($0.start) + $0.text + "\n" }.joined()
        let translation = "[by:demo_translator]\n"
            + lines.filter { !$0.text.isEmpty }.map { stamp($0.start) + "(translation) \($0.text)\n" }.joined()
        let romanization = romanized
            ? lines.filter { !$0.text.isEmpty }.map { stamp($0.start) + "(romaji) \($0.text)\n" }.joined() : ""
        func text(_ version: Int, _ lyric: String) -> [String: Any] { ["version": lyric.isEmpty ? 0 : version, "lyric": lyric] }
        var json: [String: Any] = [
            "sgc": false, "sfy": false, "qfy": false,
            "lrc": text(3, lrc), "klyric": text(0, ""), "tlyric": text(1, translation), "romalrc": text(2, romanization),
            "code": 200,
        ]
        if context.path.hasSuffix("/v1") {
            let yrc = lines.filter { !$0.text.isEmpty }.map { line -> String in
                let characters = Array(line.text)
                let step = 1400 / max(1, characters.count)
                let words = characters.enumerated()
                    .map { "(\(line.start + $0.offset * step),\(step),0)\($0.element)" }.joined()
                return "[\(line.start),1400]\(words)\n"
            }.joined()
            json["yrc"] = text(1, #"{"t":0,"c":[{"tx":"作词: "},{"tx":"\#(artist)"}]}"# + "\n" + yrc)
            json["ytlrc"] = text(1, translation)
            json["yromalrc"] = text(1, romanization)
            json["nolyric"] = false
            json["uncollected"] = false
        }
        return Reply(json: json)
    }

    // MARK: Playlists

    static func userPlaylist(_ context: Context) -> Reply {
        guard let uid = context.int("uid") else { return .code(400, "参数错误") }
        let catalog = context.catalog
        let ids: [Int]
        if uid == catalog.account.id {
            ids = context.server.ownPlaylistIDs + catalog.subscribedPlaylistIDs
        } else {
            ids = catalog.playlists.values.filter { $0.creatorID == uid }.map(\.id).sorted()
        }
        let limit = max(1, context.int("limit") ?? 30)
        let offset = max(0, context.int("offset") ?? 0)
        let page = ids.dropFirst(offset).prefix(limit).compactMap { context.server.playlist($0) }
        var summaries = page.map(context.shapes.playlistSummary)
        if uid == catalog.account.id {
            // Seen from the account itself: own playlists are not "subscribed"; the others are.
            for index in summaries.indices {
                summaries[index]["subscribed"] = !context.server.ownPlaylistIDs.contains(page[index].id)
            }
        }
        return Reply(json: ["version": "0", "more": offset + page.count < ids.count, "playlist": summaries,
                            "code": 200])
    }

    static func playlistDetail(_ context: Context) -> Reply {
        guard let id = context.int("id") else { return .code(400, "参数错误") }
        guard let playlist = context.server.playlist(id) else { return .code(404, "歌单不存在") }
        let options = context.server.options
        let own = playlist.creatorID == context.catalog.account.id && context.viewer.isUser
        var limit = own ? options.ownPlaylistTrackLimit
            : context.viewer.isUser ? options.otherPlaylistTrackLimit : options.anonymousPlaylistTrackLimit
        if let n = context.int("n") { limit = min(limit, max(0, n)) }
        let songs = playlist.trackIDs.compactMap { context.catalog.songs[$0] }
        let shown = Array(songs.prefix(limit))
        var json = context.shapes.playlistSummary(playlist)
        json["subscribed"] = context.catalog.subscribedPlaylistIDs.contains(id) && context.viewer.isUser
        json["tracks"] = shown.map(context.shapes.song)
        json["trackIds"] = playlist.trackIDs.enumerated().map { index, songID -> [String: Any] in
            ["id": songID, "v": 10, "t": 0, "at": 1_547_999_000_000 + Int64(index) * 100_000, "alg": Shapes.null,
             "uid": playlist.creatorID, "rcmdReason": ""]
        }
        json["shareCount"] = 0
        json["commentCount"] = 0
        return Reply(json: ["code": 200, "relatedVideos": Shapes.null, "playlist": json, "urls": Shapes.null,
                            "privileges": shown.map(context.shapes.privilege)])
    }

    static func likelist(_ context: Context) -> Reply {
        guard let uid = context.int("uid") else { return .code(400, "参数错误") }
        let ids = uid == context.catalog.account.id ? context.server.likedSongIDs : []
        return Reply(json: ["ids": ids, "checkPoint": Int64(Date().timeIntervalSince1970 * 1000), "code": 200])
    }

    static func like(_ context: Context) -> Reply {
        guard let id = context.int("trackId"), context.catalog.songs[id] != nil else { return .code(400, "参数错误") }
        let on = context.params["like"].map { boolValue($0) } ?? true
        context.server.lock.withLock {
            context.server.liked.removeAll { $0 == id }
            if on { context.server.liked.insert(id, at: 0) }
        }
        return Reply(json: ["code": 200, "playlistId": 2_000_000_000, "songs": [Any]()])
    }

    static func recommendSongs(_ context: Context) -> Reply {
        let songs = context.catalog.dailySongIDs.compactMap { context.catalog.songs[$0] }
        let daily = songs.enumerated().map { index, song -> [String: Any] in
            var json = context.shapes.songWithPrivilege(song)
            let reason: Any = index % 3 == 0 ? "根据你的口味" : Shapes.null
            json["reason"] = reason
            json["recommendReason"] = reason
            json["alg"] = "itembased2"
            return json
        }
        let reasons = songs.enumerated().filter { $0.offset % 3 == 0 }.map { _, song -> [String: Any] in
            ["songId": song.id, "reason": "根据你的口味", "reasonId": "EXAMPLE", "targetUrl": Shapes.null]
        }
        return Reply(json: ["code": 200, "data": ["dailySongs": daily, "orderSongs": [Any](),
                                                  "recommendReasons": reasons,
                                                  "mvResourceInfos": Shapes.null] as [String: Any]])
    }

    static func recommendResource(_ context: Context) -> Reply {
        let list = context.catalog.recommendedPlaylistIDs.compactMap { context.catalog.playlists[$0] }.map {
            playlist -> [String: Any] in
            [
                "id": playlist.id, "type": 1, "name": playlist.name, "copywriter": "根据你喜欢的单曲推荐",
                "picUrl": context.shapes.picURL(playlist.picID), "playcount": playlist.playCount,
                "createTime": 1_600_000_000_000, "creator": context.shapes.userRef(playlist.creatorID),
                "trackCount": playlist.trackIDs.count, "userId": playlist.creatorID, "alg": "alg_fake",
            ]
        }
        return Reply(json: ["code": 200, "featureFirst": true, "haveRcmdSongs": false, "recommend": list])
    }

    /// `personal_fm`: the next three catalogue songs after the last answer's, skipping the trashed ones (fewer
    /// when nearly everything is trashed). Each answer's ids are recorded (`fmServedBatches`).
    static func personalFM(_ context: Context) -> Reply {
        let all = context.catalog.songOrder.filter { !(context.catalog.songs[$0]?.cloud ?? true) }
        let server = context.server
        let ids: [Int] = server.lock.withLock {
            var ids: [Int] = []
            var step = 0
            while ids.count < 3 && step < all.count {
                let id = all[(server.fmCursor + step) % all.count]
                if !server.trashed.contains(id) { ids.append(id) }
                step += 1
            }
            server.fmCursor += step
            server.fmBatches.append(ids)
            return ids
        }
        let songs = ids.compactMap { context.catalog.songs[$0] }
        return Reply(json: ["popAdjust": false, "code": 200, "data": songs.map { song -> [String: Any] in
            var json = context.shapes.oldSong(song)
            json["alg"] = "itembased"
            json["privilege"] = context.shapes.privilege(song)
            return json
        }])
    }

    /// `fm_trash`: `{songId, alg, time}`; the song never comes back in personal FM.
    static func fmTrash(_ context: Context) -> Reply {
        guard let id = context.int("songId"), context.catalog.songs[id] != nil else { return .code(400, "参数错误") }
        context.server.lock.withLock {
            if !context.server.trashed.contains(id) { context.server.trashed.append(id) }
        }
        return Reply(json: ["code": 200, "data": true, "count": 1])
    }

    /// `playmode_intelligence_list` (heartbeat mode): ten catalogue songs other than the seed `songId`, a
    /// different ten for each seed, the liked ones marked `recommended:false` as NetEase mixes the user's liked songs
    /// with recommendations. Only the account's liked-songs playlist is accepted as `playlistId`.
    static func intelligence(_ context: Context) -> Reply {
        guard let seed = context.int("songId"), context.catalog.songs[seed] != nil else { return .code(400, "参数错误") }
        guard context.int("playlistId") == DemoCatalog.likedPlaylistID else {
            return .code(400, "歌单不是你喜欢的音乐")
        }
        let pool = context.catalog.songOrder.filter { id in
            guard let song = context.catalog.songs[id] else { return false }
            return id != seed && !song.cloud && !song.unavailable
        }
        guard !pool.isEmpty else { return Reply(json: ["code": 200, "data": [Any](), "message": ""]) }
        let liked = Set(context.server.likedSongIDs)
        let start = (seed * 7) % pool.count
        let picks = (0..<min(10, pool.count)).map { pool[(start + $0) % pool.count] }
        let data = picks.compactMap { context.catalog.songs[$0] }.map { song -> [String: Any] in
            ["id": song.id, "songInfo": context.shapes.songWithPrivilege(song), "recommended": !liked.contains(song.id),
             "alg": liked.contains(song.id) ? "liked" : "itembased_intelligence"]
        }
        return Reply(json: ["code": 200, "data": data, "message": ""])
    }

    static func toplist(_ context: Context) -> Reply {
        let list = context.catalog.toplistIDs.compactMap { context.catalog.playlists[$0] }.map {
            playlist -> [String: Any] in
            var json = context.shapes.playlistSummary(playlist)
            json["creator"] = Shapes.null
            json["subscribed"] = false
            json["updateFrequency"] = "每天更新"
            json["ToplistType"] = ["S", "N", "H"][context.catalog.toplistIDs.firstIndex(of: playlist.id)! % 3]
            return json
        }
        return Reply(json: ["code": 200, "list": list, "artistToplist": [
            "coverUrl": context.shapes.picURL(context.catalog.artists[2001]!.picID), "name": "云音乐歌手榜",
            "upateFrequency": "每天更新", "position": 5, "updateFrequency": "每天更新",
        ] as [String: Any]])
    }

    // MARK: Albums and artists

    static func album(_ context: Context) -> Reply {
        guard let id = context.pathID, let album = context.catalog.albums[id] else { return .code(404, "专辑不存在") }
        let songs = album.songIDs.compactMap { context.catalog.songs[$0] }
        return Reply(json: ["code": 200, "resourceState": true, "album": context.shapes.albumRef(album),
                            "songs": songs.map(context.shapes.songWithPrivilege)])
    }

    static func artistSongs(_ context: Context, _ id: Int) -> [DemoCatalog.Song] {
        context.catalog.songOrder.compactMap { context.catalog.songs[$0] }.filter { $0.artistIDs.contains(id) }
    }

    static func artist(_ context: Context) -> Reply {
        guard let id = context.pathID, let artist = context.catalog.artists[id] else { return .code(404, "歌手不存在") }
        return Reply(json: ["code": 200, "more": false, "artist": context.shapes.artist(artist),
                            "hotSongs": artistSongs(context, id).prefix(50).map(context.shapes.songWithPrivilege)])
    }

    static func artistTopSongs(_ context: Context) -> Reply {
        guard let id = context.int("id"), context.catalog.artists[id] != nil else { return .code(404, "歌手不存在") }
        return Reply(json: ["code": 200, "more": false,
                            "songs": artistSongs(context, id).prefix(50).map(context.shapes.songWithPrivilege)])
    }

    static func artistAlbums(_ context: Context) -> Reply {
        guard let id = context.pathID, let artist = context.catalog.artists[id] else { return .code(404, "歌手不存在") }
        let albums = context.catalog.albumOrder.compactMap { context.catalog.albums[$0] }.filter { $0.artistID == id }
        let limit = max(1, context.int("limit") ?? 30)
        let offset = max(0, context.int("offset") ?? 0)
        let page = albums.dropFirst(offset).prefix(limit)
        return Reply(json: ["code": 200, "artist": context.shapes.artist(artist),
                            "hotAlbums": page.map(context.shapes.albumRef),
                            "more": offset + page.count < albums.count])
    }

    static func albumSublist(_ context: Context) -> Reply {
        let albums = context.catalog.subscribedAlbumIDs.compactMap { context.catalog.albums[$0] }
        let data = albums.map { album -> [String: Any] in
            let artist = context.catalog.artists[album.artistID]!
            return ["subTime": 1_650_000_000_000, "msg": [Any](), "alias": [Any](),
                    "artists": [context.shapes.artist(artist)], "picId": album.picID,
                    "picUrl": context.shapes.picURL(album.picID), "name": album.name, "id": album.id,
                    "size": album.songIDs.count, "transNames": [Any]()]
        }
        return Reply(json: ["data": data, "count": data.count, "hasMore": false, "paidCount": 0, "code": 200])
    }

    static func artistSublist(_ context: Context) -> Reply {
        let data = context.catalog.followedArtistIDs.compactMap { context.catalog.artists[$0] }.map {
            artist -> [String: Any] in
            var json = context.shapes.artist(artist)
            json["info"] = ""
            return json
        }
        return Reply(json: ["data": data, "hasMore": false, "count": data.count, "code": 200])
    }

    static func userRecord(_ context: Context) -> Reply {
        guard context.int("uid") != nil else { return .code(400, "参数错误") }
        let week = (context.int("type") ?? 1) == 1
        let record = week ? context.catalog.weekRecord : context.catalog.allRecord
        let top = record.first?.1 ?? 1
        let entries = record.compactMap { id, count -> [String: Any]? in
            guard let song = context.catalog.songs[id] else { return nil }
            return ["playCount": count, "score": top == 0 ? 0 : count * 100 / top,
                    "song": context.shapes.songWithPrivilege(song)]
        }
        return Reply(json: [week ? "weekData" : "allData": entries, "code": 200])
    }

    static func userCloud(_ context: Context) -> Reply {
        let limit = max(1, context.int("limit") ?? 30)
        let offset = max(0, context.int("offset") ?? 0)
        let songs = context.catalog.cloudSongIDs.compactMap { context.catalog.songs[$0] }
        let page = songs.dropFirst(offset).prefix(limit)
        let data = page.map { song -> [String: Any] in
            let size = DemoCatalog.mediaSeconds[song.media] * 16000
            return ["simpleSong": context.shapes.songWithPrivilege(song), "songId": song.id, "songName": song.name,
                    "artist": "demo_user", "album": "", "fileName": "\(song.name).mp3", "fileSize": size,
                    "bitrate": 128, "addTime": 1_690_000_000_000 + Int64(song.id % 100) * 1000,
                    "cover": 0, "coverId": String(DemoCatalog.cloudPicID), "lyricId": "", "version": 1]
        }
        return Reply(json: ["data": data, "count": songs.count, "size": String(songs.count * 128_000),
                            "maxSize": "64424509440", "upgradeSign": 0, "hasMore": offset + page.count < songs.count,
                            "code": 200])
    }

    /// `record_recent_song`: the week's record, most recent first, one play a minute apart.
    static func recentSongs(_ context: Context) -> Reply {
        let limit = max(1, context.int("limit") ?? 100)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let list = context.catalog.weekRecord.prefix(limit).enumerated().compactMap { index, record -> [String: Any]? in
            guard let song = context.catalog.songs[record.0] else { return nil }
            return ["resourceId": String(song.id), "playTime": now - Int64(index) * 60_000, "resourceType": "SONG",
                    "data": context.shapes.songWithPrivilege(song), "banned": false, "multiTerminalInfo": Shapes.null]
        }
        return Reply(json: ["code": 200, "message": "", "data": ["total": list.count, "list": list] as [String: Any]])
    }

    /// `scrobble`: `logs` is a JSON string of `[{action, json{id, time, end, …}}]`; malformed logs answer 400.
    static func scrobble(_ context: Context) -> Reply {
        guard let text = context.string("logs"),
              let logs = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[String: Any]],
              logs.allSatisfy({ $0["action"] is String && $0["json"] is [String: Any] })
        else { return .code(400, "参数错误") }
        let now = Date()
        let entries = logs.compactMap { log -> Scrobble? in
            guard let action = log["action"] as? String, let json = log["json"] as? [String: Any],
                  let id = intValue(json["id"]) else { return nil }
            return Scrobble(action: action, id: id, sourceID: stringValue(json["sourceId"]) ?? "",
                            time: (json["time"] as? NSNumber)?.doubleValue ?? stringValue(json["time"]).flatMap(Double.init) ?? 0,
                            source: stringValue(json["source"]), when: now)
        }
        context.server.lock.withLock { context.server.scrobbleLog += entries }
        return Reply(json: ["code": 200, "data": "success", "message": ""])
    }

    // MARK: Playlist editing

    static func playlistCreate(_ context: Context) -> Reply {
        guard let name = context.string("name"), !name.isEmpty else { return .code(400, "参数错误") }
        let server = context.server
        let playlist: DemoCatalog.Playlist = server.lock.withLock {
            let id = (server.playlists.keys.filter { $0 >= 2_000_000_000 && $0 < 2_000_000_100 }.max() ?? 2_000_000_002) + 1
            let playlist = DemoCatalog.Playlist(id: id, name: name, creatorID: context.catalog.account.id,
                                                specialType: 0, trackIDs: [], description: nil,
                                                picID: 109951166000000000 + Int64(id % 1_000_000), playCount: 0,
                                                tags: [])
            server.playlists[id] = playlist
            // NetEase lists a new playlist right after the liked-songs one.
            server.ownPlaylists.insert(id, at: min(1, server.ownPlaylists.count))
            return playlist
        }
        return Reply(json: ["code": 200, "id": playlist.id, "playlist": context.shapes.playlistSummary(playlist)])
    }

    /// `ids` is `'[pid]'`; only the account's own playlists (never the liked-songs one) can go.
    static func playlistRemove(_ context: Context) -> Reply {
        guard let ids = songIDs(context.params["ids"]) ?? context.int("id").map({ [$0] }), !ids.isEmpty else {
            return .code(400, "参数错误")
        }
        let server = context.server
        let allowed = server.lock.withLock {
            ids.allSatisfy { id in server.ownPlaylists.contains(id) && server.playlists[id]?.specialType != 5 }
        }
        guard allowed else { return .code(401, "没有权限") }
        server.lock.withLock {
            for id in ids {
                server.playlists[id] = nil
                server.ownPlaylists.removeAll { $0 == id }
            }
        }
        return Reply(json: ["code": 200])
    }

    /// `{id, name}`: only the account's own playlists, never the liked-songs one, and never to an empty name.
    static func playlistRename(_ context: Context) -> Reply {
        guard let id = context.int("id"), let name = context.string("name"),
              !name.trimmingCharacters(in: .whitespaces).isEmpty
        else { return .code(400, "参数错误") }
        let server = context.server
        return server.lock.withLock {
            guard server.playlists[id] != nil else { return .code(404, "歌单不存在") }
            guard server.ownPlaylists.contains(id), server.playlists[id]?.specialType != 5 else {
                return .code(401, "没有权限")
            }
            server.playlists[id]?.name = name
            return Reply(json: ["code": 200])
        }
    }

    /// `playlist_tracks`: `{op:add|del|update, pid, trackIds:'["id",…]'}`. Others' playlists answer 401; adding a
    /// song already there answers 502 ("歌单内歌曲重复"), as NetEase does. `update` (NCM `song_order_update`) sets the
    /// order: its ids must be exactly the playlist's songs, rearranged (else 400). Ids sent twice count once, so
    /// NCM's retry of a 512 with the list doubled does what the first request meant.
    static func playlistTracks(_ context: Context) -> Reply {
        guard let op = context.string("op"), ["add", "del", "update"].contains(op), let pid = context.int("pid"),
              let sent = songIDs(context.params["trackIds"]), !sent.isEmpty
        else { return .code(400, "参数错误") }
        var seen = Set<Int>()
        let ids = sent.filter { seen.insert($0).inserted }
        let server = context.server
        return server.lock.withLock {
            guard var playlist = server.playlists[pid] else { return .code(404, "歌单不存在") }
            guard server.ownPlaylists.contains(pid) else { return .code(401, "没有权限") }
            var tracks = playlist.specialType == 5 ? server.liked : playlist.trackIDs
            switch op {
            case "add":
                let fresh = ids.filter { context.catalog.songs[$0] != nil && !tracks.contains($0) }
                guard !fresh.isEmpty else { return .code(502, "歌单内歌曲重复") }
                tracks = fresh.reversed() + tracks
            case "update":
                guard ids.count == tracks.count, Set(ids) == Set(tracks) else {
                    return .code(400, "歌曲与歌单不一致")
                }
                tracks = ids
            default:
                tracks.removeAll { ids.contains($0) }
            }
            if playlist.specialType == 5 {
                server.liked = tracks
            } else {
                playlist.trackIDs = tracks
                server.playlists[pid] = playlist
            }
            return Reply(json: ["code": 200, "trackIds": "[" + tracks.map(String.init).joined(separator: ",") + "]",
                                "count": tracks.count, "cloudCount": 0])
        }
    }
}
