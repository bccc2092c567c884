import Foundation

/// The JSON objects of NetEase's responses, field for field as in `Tests/NetEaseSamples` (new "Song2" shape,
/// privileges, playlists, users, albums, artists). Picture URLs point at the fake server itself, in the CDN's path
/// shape (`/<token>==/<picId>.jpg`), so clients fetch covers from it.
struct Shapes {
    let catalog: DemoCatalog
    /// `http://127.0.0.1:<port>`
    let base: String
    /// The viewer is a VIP (the logged-in demo account): full privileges instead of the free levels.
    let vip: Bool

    typealias JSON = [String: Any]
    static let null = NSNull()

    func picURL(_ id: Int64) -> String {
        "\(base)/\(Self.picToken(id))==/\(id).jpg"
    }

    /// A stable, CDN-looking path segment per picture (the real one is an encrypted id).
    static func picToken(_ id: Int64) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var value = UInt64(bitPattern: id) &* 0x9E37_79B9_7F4A_7C15
        var token = ""
        for _ in 0..<22 {
            token.append(alphabet[Int(value % 64)])
            value = value / 64 ^ (value &* 31)
        }
        return token
    }

    func artistRef(_ id: Int) -> JSON {
        guard let artist = catalog.artists[id] else {
            // Cloud uploads: NetEase sends a null name.
            return ["id": 0, "name": Self.null, "tns": [Any](), "alias": [Any]()]
        }
        return ["id": artist.id, "name": artist.name, "tns": [Any](), "alias": artist.alias, "alia": artist.alias]
    }

    func quality(_ br: Int, _ size: Int) -> JSON {
        ["br": br, "fid": 0, "size": size, "vd": -2.0, "sr": 44100]
    }

    /// The new song shape (`song_detail`, `cloudsearch`, `playlist_detail.tracks`, `recommend_songs`, …).
    func song(_ song: DemoCatalog.Song) -> JSON {
        let album = catalog.albums[song.albumID]
        let dt = DemoCatalog.mediaSeconds[song.media] * 1000
        let kbytes = dt / 8
        let picID = album?.picID ?? DemoCatalog.cloudPicID
        var json: JSON = [
            "name": song.name, "id": song.id, "pst": 0, "t": song.cloud ? 1 : 0,
            "ar": song.artistIDs.map(artistRef), "alia": song.alias, "pop": song.unavailable ? 5 : 100,
            "st": song.unavailable ? -200 : 0, "rt": song.cloud ? Self.null : "", "fee": song.fee,
            "v": 10, "crbt": Self.null, "cf": "",
            "al": [
                "id": album?.id ?? 0, "name": album?.name ?? Self.null, "picUrl": picURL(picID),
                "tns": [Any](), "pic_str": String(picID), "pic": picID,
            ] as JSON,
            "dt": dt,
            "h": quality(320000, kbytes * 320), "m": quality(192000, kbytes * 192),
            "l": quality(128000, kbytes * 128),
            "sq": song.lossless ? quality(900000, kbytes * 900) : Self.null,
            "hr": Self.null, "a": Self.null, "cd": song.cloud ? Self.null : song.cd, "no": song.no,
            "rtUrl": Self.null, "ftype": 0, "rtUrls": [Any](), "djId": 0, "copyright": 1, "s_id": 0,
            "mark": song.lossless ? 17_179_869_184 : 8192, "originCoverType": 0,
            "originSongSimpleData": Self.null, "resourceState": true, "single": 0,
            "noCopyrightRcmd": song.unavailable ? (["type": 0, "typeDesc": "暂无版权推荐", "songId": Self.null] as JSON) : Self.null,
            "mst": 9, "cp": song.unavailable ? 0 : 1, "mv": 0, "rtype": 0, "rurl": Self.null,
            "publishTime": song.publishTime, "tagPicList": Self.null, "version": 10, "songJumpInfo": Self.null,
            "entertainmentTags": Self.null,
        ]
        if song.cloud { json["pc"] = ["nickname": catalog.account.nickname, "ar": "demo_user", "alb": "", "sn": song.name, "cid": "", "fn": "\(song.name).mp3", "br": 128] as JSON }
        return json
    }

    /// `privileges[]` / inline `privilege`: what this viewer may play (NetEase's `pl`, `plLevel`, …).
    func privilege(_ song: DemoCatalog.Song) -> JSON {
        let maxbr = song.lossless ? 999000 : 320000
        let maxLevel = song.lossless ? "lossless" : "exhigh"
        let playable: Int
        let playLevel: String
        if song.unavailable || song.alwaysTrial {
            (playable, playLevel) = (0, "none")
        } else if vip || song.fee == 0 || song.cloud {
            (playable, playLevel) = (maxbr, maxLevel)
        } else if song.fee == 8 {
            (playable, playLevel) = (128000, "standard")
        } else {
            (playable, playLevel) = (0, "none")
        }
        return [
            "id": song.id, "fee": song.fee, "payed": vip && song.fee == 1 ? 1 : 0,
            "st": song.unavailable ? -200 : 0, "pl": playable, "dl": playable, "sp": song.unavailable ? 0 : 7,
            "cp": song.unavailable ? 0 : 1, "subp": 1, "cs": song.cloud, "maxbr": maxbr, "fl": playable,
            "toast": false, "flag": song.fee == 1 ? 260 : 0, "preSell": false, "playMaxbr": maxbr,
            "downloadMaxbr": maxbr, "maxBrLevel": maxLevel, "playMaxBrLevel": maxLevel,
            "downloadMaxBrLevel": maxLevel, "plLevel": playLevel, "dlLevel": playLevel, "flLevel": playLevel,
            "rscl": Self.null,
            "freeTrialPrivilege": [
                "resConsumable": false, "userConsumable": false, "listenType": Self.null,
                "cannotListenReason": playable == 0 && !song.unavailable ? 1 : Self.null,
            ] as JSON,
            "chargeInfoList": [128000, 192000, 320000, 999000].map {
                ["rate": $0, "chargeUrl": Self.null, "chargeMessage": Self.null,
                 "chargeType": song.fee == 0 || ($0 == 128000 && song.fee == 8) ? 0 : 1] as JSON
            },
        ]
    }

    func songWithPrivilege(_ song: DemoCatalog.Song) -> JSON {
        var json = self.song(song)
        json["privilege"] = privilege(song)
        return json
    }

    /// The old shape (`search_suggest`, `personal_fm`): `artists`, `album`, `duration`.
    func oldSong(_ song: DemoCatalog.Song) -> JSON {
        let album = catalog.albums[song.albumID]
        let dt = DemoCatalog.mediaSeconds[song.media] * 1000
        func music(_ bitrate: Int, _ id: Int) -> JSON {
            ["name": Self.null, "id": song.id * 10 + id, "size": dt / 8 * bitrate / 1000, "extension": "mp3",
             "sr": 44100, "dfsId": 0, "bitrate": bitrate, "playTime": dt, "volumeDelta": -2.0]
        }
        var albumJSON: Any = Self.null
        if let album {
            var json = albumRef(album)
            json["companyId"] = 0
            json["tags"] = ""
            json["songs"] = [Any]()
            json["transName"] = Self.null
            json["onSale"] = false
            json["mark"] = 0
            albumJSON = json
        }
        return [
            "id": song.id, "name": song.name, "position": song.no, "disc": song.cd, "no": song.no,
            "artists": song.artistIDs.map { id -> JSON in
                guard let artist = catalog.artists[id] else { return artistRef(id) }
                var json = self.artist(artist)
                json["followed"] = nil
                return json
            },
            "album": albumJSON, "duration": dt, "copyrightId": 1, "status": song.unavailable ? -200 : 0,
            "alias": song.alias, "rtype": 0, "ftype": 0, "mvid": 0, "fee": song.fee, "rUrl": Self.null, "mark": 0,
            "starred": false, "popularity": 100, "score": 100, "starredNum": 0, "playedNum": 0, "dayPlays": 0,
            "hearTime": 0, "ringtone": Self.null, "crbt": Self.null, "audition": Self.null, "copyFrom": "",
            "commentThreadId": "R_SO_4_\(song.id)", "rtUrl": Self.null, "rtUrls": [Any](), "copyright": 1,
            "transName": Self.null, "sign": Self.null, "originCoverType": 0, "originSongSimpleData": Self.null,
            "single": 0, "noCopyrightRcmd": Self.null, "rurl": Self.null, "mp3Url": Self.null,
            "hMusic": music(320000, 1), "mMusic": music(192000, 2), "lMusic": music(128000, 3),
            "bMusic": music(128000, 3),
        ]
    }

    func userRef(_ id: Int) -> JSON {
        let user = catalog.users[id] ?? catalog.account
        return [
            "userId": user.id, "nickname": user.nickname, "avatarUrl": picURL(user.avatarPicID),
            "avatarImgId": user.avatarPicID, "avatarImgIdStr": String(user.avatarPicID),
            "avatarImgId_str": String(user.avatarPicID), "backgroundImgIdStr": "0", "vipType": user.vipType, "userType": id == 1 ? 2 : 0,
            "signature": "", "defaultAvatar": false, "province": 110000, "city": 110101, "gender": 0,
            "authStatus": 0, "followed": false, "accountStatus": 0, "birthday": 0, "description": "",
            "detailDescription": "", "backgroundImgId": 0, "backgroundUrl": Self.null, "authority": 0,
            "mutual": false, "expertTags": Self.null, "experts": Self.null, "djStatus": 0, "remarkName": Self.null,
        ]
    }

    /// A `user_playlist` entry (no tracks).
    func playlistSummary(_ playlist: DemoCatalog.Playlist) -> JSON {
        let mine = playlist.creatorID == catalog.account.id
        return [
            "subscribers": [Any](), "subscribed": !mine, "creator": userRef(playlist.creatorID),
            "artists": Self.null, "tracks": Self.null, "updateFrequency": Self.null, "backgroundCoverId": 0,
            "backgroundCoverUrl": Self.null, "titleImage": 0, "titleImageUrl": Self.null,
            "englishTitle": Self.null, "opRecommend": false, "recommendInfo": Self.null,
            "userId": playlist.creatorID, "totalDuration": 0, "privacy": 0, "anonimous": false,
            "highQuality": false, "newImported": false, "adType": 0, "status": 0, "sharedUsers": Self.null,
            "shareStatus": Self.null, "id": playlist.id, "name": playlist.name,
            "specialType": playlist.specialType, "trackCount": playlist.trackIDs.count,
            "playCount": playlist.playCount, "subscribedCount": mine ? 0 : 1234,
            "cloudTrackCount": playlist.trackIDs.filter { catalog.songs[$0]?.cloud ?? false }.count,
            "coverImgId": playlist.picID, "coverImgUrl": picURL(playlist.picID),
            "coverImgId_str": String(playlist.picID), "createTime": 1_547_998_926_237,
            "updateTime": 1_700_000_000_000, "trackUpdateTime": 1_700_000_000_000,
            "trackNumberUpdateTime": 1_700_000_000_000, "commentThreadId": "A_PL_0_\(playlist.id)",
            "description": playlist.description ?? Self.null, "tags": playlist.tags,
            "ordered": playlist.specialType != 0,
        ]
    }

    func albumRef(_ album: DemoCatalog.Album) -> JSON {
        [
            "id": album.id, "name": album.name, "picUrl": picURL(album.picID), "pic": album.picID,
            "pic_str": String(album.picID), "picId": album.picID, "picId_str": String(album.picID),
            "publishTime": album.publishTime, "size": album.songIDs.count, "company": album.company,
            "type": "专辑", "subType": "录音室版", "tns": [Any](), "alias": [Any](),
            "artist": artist(catalog.artists[album.artistID]!),
            "artists": [artist(catalog.artists[album.artistID]!)],
            "description": "\(album.name) — a demo album.", "briefDesc": "", "status": 0, "copyrightId": 1,
            "commentThreadId": "R_AL_3_\(album.id)", "blurPicUrl": picURL(album.picID),
        ]
    }

    func artist(_ artist: DemoCatalog.Artist) -> JSON {
        let albums = catalog.albums.values.filter { $0.artistID == artist.id }
        return [
            "id": artist.id, "name": artist.name, "alias": artist.alias, "trans": artist.alias.first ?? "",
            "tns": [Any](), "picId": artist.picID, "picId_str": String(artist.picID), "picUrl": picURL(artist.picID),
            "img1v1Id": artist.picID, "img1v1Url": picURL(artist.picID), "briefDesc": "\(artist.name) (demo artist)",
            "albumSize": albums.count, "musicSize": albums.reduce(0) { $0 + $1.songIDs.count }, "mvSize": 0,
            "topicPerson": 0, "followed": catalog.followedArtistIDs.contains(artist.id),
        ]
    }
}
