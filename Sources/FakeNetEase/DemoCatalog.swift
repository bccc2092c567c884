import Foundation

/// The demo account's world: a deterministic catalog of a few dozen songs with names in several scripts, albums,
/// artists, playlists (own, subscribed, charts), liked songs, daily picks, listening records and a cloud disk.
/// Generated in code (not fixtures) so ids stay consistent across every endpoint that mentions them.
///
/// Ids: songs 5_000_011…5_000_085 (album n's track k is 5_000_000 + 10n + k), cloud uploads 5_000_901…903,
/// albums 3001…3008, artists 2001…2006, the account 10000001 with its liked-songs playlist 2_000_000_000.
/// Songs with a story for the tests:
/// - `unavailableSongID` 5_000_045: no copyright, greyed out; `song_url` answers `url:null, code:404`.
/// - 5_000_013: VIP (`fee` 1), a 30 s-style trial (`freeTrialInfo`) for guests, complete for the demo account.
/// - `trialSongID` 5_000_801: a paid-album song (`fee` 4) that is a trial for everybody, the demo account too:
///   `freeTrialInfo {start:0,end:3}` and a URL serving a `trialSeconds`-long clip, while its `dt` is the whole
///   song's. Only reachable by id (`song_detail`, `song_url`, lyrics): no album, playlist, search or FM lists it,
///   so every listing stays as it was.
/// - `instrumentalSongID` 5_000_032 and `uncollectedSongID` 5_000_044: no lyrics (`nolyric`, `uncollected`).
/// - `gainSongID` 5_000_022 (gain -6.5 dB, peak 0.9) and 5_000_033 (gain +2.5 dB, peak 0.6): non-zero
///   loudness normalisation in `song_url`; every other song has gain 0 and peak 1.
public struct DemoCatalog: Sendable {
    public struct Artist: Sendable {
        public var id: Int
        public var name: String
        public var alias: [String]
        public var picID: Int64
    }

    public struct Album: Sendable {
        public var id: Int
        public var name: String
        public var artistID: Int
        public var picID: Int64
        public var publishTime: Int64
        public var company: String
        public var songIDs: [Int]
    }

    public struct Song: Sendable {
        public var id: Int
        public var name: String
        public var alias: [String]
        public var artistIDs: [Int]
        /// 0 for cloud uploads without an album.
        public var albumID: Int
        public var no: Int
        public var cd: String
        /// Which generated audio file plays for this song (`MediaFiles`).
        public var media: Int
        public var fee: Int
        /// Has a FLAC (`sq`) version: lossless/hires levels answer with FLAC.
        public var lossless: Bool
        /// `t`: 0 catalog, 1 cloud-only upload.
        public var cloud: Bool
        /// No copyright: greyed out (`st:-200`), `song_url` answers `url:null, code:404`.
        public var unavailable: Bool
        public var publishTime: Int64
        /// A trial (`freeTrialInfo`, a `trialSeconds` clip) for every viewer, VIP or not: a paid album's song.
        public var alwaysTrial = false
        /// `song_url`'s loudness normalisation: dB to apply, and the peak sample level (0…1).
        public var gain = 0.0
        public var peak = 1.0
    }

    public struct Playlist: Sendable {
        public var id: Int
        public var name: String
        public var creatorID: Int
        public var specialType: Int
        public var trackIDs: [Int]
        public var description: String?
        public var picID: Int64
        public var playCount: Int
        public var tags: [String]
    }

    public struct User: Sendable {
        public var id: Int
        public var nickname: String
        public var avatarPicID: Int64
        public var vipType: Int
    }

    public var artists: [Int: Artist] = [:]
    public var albums: [Int: Album] = [:]
    public var songs: [Int: Song] = [:]
    /// Catalog order (album by album, then cloud uploads), so lists and searches are deterministic.
    public var songOrder: [Int] = []
    public var albumOrder: [Int] = []
    public var artistOrder: [Int] = []
    public var playlists: [Int: Playlist] = [:]
    public var users: [Int: User] = [:]

    public var account: User
    /// The account's own playlists (the liked-songs one first) then the subscribed ones, as `user_playlist` lists them.
    public var ownPlaylistIDs: [Int] = []
    public var subscribedPlaylistIDs: [Int] = []
    public var toplistIDs: [Int] = []
    public var likedSongIDs: [Int] = []
    public var dailySongIDs: [Int] = []
    public var recommendedPlaylistIDs: [Int] = []
    public var subscribedAlbumIDs: [Int] = []
    public var followedArtistIDs: [Int] = []
    public var cloudSongIDs: [Int] = []
    /// `user_record`: (song, play count) for the week and for all time.
    public var weekRecord: [(Int, Int)] = []
    public var allRecord: [(Int, Int)] = []

    /// The demo phone login (`login_cellphone`): this number with this password succeeds; see `FakeNetEaseServer`
    /// for the numbers that trigger the risk answers.
    public static let demoPhone = "13800000000"
    public static let demoPassword = "nosignal"

    /// A catalog song's timed lyric lines (ms): its title at 1 s, two more lines 1.5 s apart, and an empty line a
    /// second before the song ends (every song is at least 6 s long).
    public static func lyricLines(of song: Song) -> [(start: Int, text: String)] {
        [(1000, song.name), (2500, "\(song.name) ♪"), (4000, "la la la"), (mediaSeconds[song.media] * 1000 - 1000, "")]
    }

    /// Durations of the generated audio files (`MediaFiles`), one per `Song.media`.
    public static let mediaSeconds = [6, 7, 8, 9]
    /// Length of the trial clips (`MediaFiles.clip`), the `end` of `trialSongID`'s `freeTrialInfo`.
    public static let trialSeconds = 3

    /// Songs the tests single out (see the type's comment).
    public static let trialSongID = 5_000_801
    public static let gainSongID = 5_000_022
    public static let unavailableSongID = 5_000_045
    /// `lyric`/`lyric_new` answer `nolyric` (instrumental) for this song, `uncollected` for the other.
    public static let instrumentalSongID = 5_000_032
    public static let uncollectedSongID = 5_000_044
    /// The demo account's liked-songs playlist (`specialType` 5), the only one heartbeat mode accepts.
    public static let likedPlaylistID = 2_000_000_000

    public static let demo = DemoCatalog()

    // swiftlint:disable:next function_body_length
    init() {
        account = User(id: 10000001, nickname: "demo_user", avatarPicID: 109951163000000000, vipType: 11)
        users[account.id] = account
        users[10000002] = User(id: 10000002, nickname: "小夜", avatarPicID: 109951163000000002, vipType: 0)
        users[1] = User(id: 1, nickname: "网易云音乐", avatarPicID: 109951163000000003, vipType: 0)

        let artistList: [(String, [String])] = [
            ("林夕雨", ["Lin Xiyu"]), ("星野ゆめ", ["Hoshino Yume"]), ("Sigur Ósk", []),
            ("Ночной Город", ["Night City"]), ("이하늘", ["Lee Haneul"]), ("Café Ñandú", []),
        ]
        for (index, (name, alias)) in artistList.enumerated() {
            let id = 2001 + index
            artists[id] = Artist(id: id, name: name, alias: alias, picID: 109951160000000000 + Int64(id))
            artistOrder.append(id)
        }
        let albumList: [(String, Int, String, [String])] = [
            ("夏日的回声", 2001, "滚石唱片", ["晴天的约定", "海风", "夏日的回声", "萤火虫", "再见，七月"]),
            ("雨の街角", 2002, "Victor", ["雨の街角", "さくら色の手紙", "夜明けまで", "ふたりの傘", "星屑ラジオ"]),
            ("Norðurljós", 2003, "Smekkleysa", ["Ljósið", "Þögn", "Við hafið", "Snjór í maí", "Heim"]),
            ("Полночь", 2004, "Мелодия", ["Белые ночи", "Метро", "Полночь", "Огни", "Дорога домой"]),
            ("별빛 노래", 2005, "Stone Music", ["별빛 노래", "바다", "첫눈", "너에게", "밤하늘 🌙"]),
            ("Canción del Río", 2006, "Nacional", ["Canción del Río", "Mañana", "Corazón ☀️", "La Última Noche", "Niño"]),
            ("城市森林", 2001, "滚石唱片", ["城市森林", "地铁站", "霓虹", "凌晨三点", "归途"]),
            ("ひかりの旅", 2002, "Victor", ["ひかりの旅", "風の歌 (feat. 이하늘)", "青い空", "約束", "おやすみ"]),
        ]
        var mediaIndex = 0
        for (albumIndex, (name, artistID, company, titles)) in albumList.enumerated() {
            let albumID = 3001 + albumIndex
            let publishTime = Int64(1_262_304_000_000) + Int64(albumIndex) * 31_536_000_000
            var ids: [Int] = []
            for (trackIndex, title) in titles.enumerated() {
                let id = 5_000_000 + (albumIndex + 1) * 10 + trackIndex + 1
                var artistIDs = [artistID]
                if title.contains("feat. 이하늘") { artistIDs.append(2005) }
                songs[id] = Song(
                    id: id, name: title, alias: trackIndex == 0 && albumIndex % 3 == 0 ? ["Title track"] : [],
                    artistIDs: artistIDs, albumID: albumID, no: trackIndex + 1, cd: "1",
                    media: mediaIndex % Self.mediaSeconds.count,
                    fee: id == 5_000_013 ? 1 : (trackIndex % 2 == 0 ? 8 : 0),
                    lossless: albumIndex == 2 || albumIndex == 5, cloud: false, unavailable: id == 5_000_045,
                    publishTime: publishTime)
                mediaIndex += 1
                ids.append(id)
                songOrder.append(id)
            }
            albums[albumID] = Album(id: albumID, name: name, artistID: artistID,
                                    picID: 109951165000000000 + Int64(albumID), publishTime: publishTime,
                                    company: company, songIDs: ids)
            albumOrder.append(albumID)
        }
        songs[5_000_022]?.gain = -6.5
        songs[5_000_022]?.peak = 0.9
        songs[5_000_033]?.gain = 2.5
        songs[5_000_033]?.peak = 0.6
        // Not in `songOrder` or any album's list, so no listing changes (see the type's comment).
        songs[Self.trialSongID] = Song(
            id: Self.trialSongID, name: "试听片段 · Preview Only", alias: [], artistIDs: [2002], albumID: 3008, no: 6,
            cd: "1", media: 3, fee: 4, lossless: false, cloud: false, unavailable: false,
            publishTime: albums[3008]!.publishTime, alwaysTrial: true)
        cloudSongIDs = []
        for (index, title) in ["我的录音 001", "demo — bedroom take", "无名曲"].enumerated() {
            let id = 5_000_901 + index
            songs[id] = Song(id: id, name: title, alias: [], artistIDs: [0], albumID: 0, no: 0, cd: "",
                             media: index % Self.mediaSeconds.count, fee: 0, lossless: false, cloud: true,
                             unavailable: false, publishTime: 0)
            songOrder.append(id)
            cloudSongIDs.append(id)
        }

        likedSongIDs = [5_000_011, 5_000_021, 5_000_022, 5_000_031, 5_000_042, 5_000_051, 5_000_053, 5_000_063,
                        5_000_071, 5_000_082, 5_000_013, 5_000_901]
        let catalogSongs = songOrder.filter { !songs[$0]!.cloud }
        func playlist(_ id: Int, _ name: String, _ creator: Int, _ special: Int, _ tracks: [Int],
                      _ description: String?, _ tags: [String] = [], _ plays: Int = 100) {
            playlists[id] = Playlist(id: id, name: name, creatorID: creator, specialType: special, trackIDs: tracks,
                                     description: description, picID: 109951166000000000 + Int64(id % 1_000_000),
                                     playCount: plays, tags: tags)
        }
        playlist(2_000_000_000, "demo_user喜欢的音乐", account.id, 5, likedSongIDs, nil, [], 1508)
        playlist(2_000_000_001, "通勤路上 🚇", account.id, 0,
                 [5_000_012, 5_000_024, 5_000_033, 5_000_041, 5_000_055, 5_000_061, 5_000_072, 5_000_085],
                 "每天上班路上听的歌", ["华语", "流行"], 241)
        playlist(2_000_000_002, "Late Night Mix", account.id, 0,
                 [5_000_074, 5_000_043, 5_000_055, 5_000_025, 5_000_032, 5_000_085], nil, ["夜晚"], 37)
        playlist(2_000_000_100, "全部的歌 · All the Songs", 10000002, 0, catalogSongs,
                 "Everything in the demo catalog, more than a truncated playlist_detail shows.", ["合集"], 99_999)
        playlist(19_723_756, "云音乐飙升榜", 1, 10, stride(from: 0, to: 15, by: 1).map { catalogSongs[($0 * 7) % 40] },
                 "云音乐中每天热度上升最快的100首单曲，每日更新。", [], 958_718_848)
        playlist(3_779_629, "云音乐新歌榜", 1, 10, Array(catalogSongs.suffix(10).reversed()),
                 "云音乐新歌榜：云音乐用户一周内收听所有新歌。", [], 600_000_000)
        playlist(3_778_678, "云音乐热歌榜", 1, 10, stride(from: 0, to: 12, by: 1).map { catalogSongs[($0 * 3) % 40] },
                 "云音乐热歌榜：云音乐用户一周内收听所有线上歌曲。", [], 900_000_000)
        ownPlaylistIDs = [2_000_000_000, 2_000_000_001, 2_000_000_002]
        subscribedPlaylistIDs = [2_000_000_100, 19_723_756]
        toplistIDs = [19_723_756, 3_779_629, 3_778_678]
        dailySongIDs = [5_000_014, 5_000_023, 5_000_035, 5_000_044, 5_000_052, 5_000_062, 5_000_073, 5_000_081,
                        5_000_015, 5_000_064]
        recommendedPlaylistIDs = [2_000_000_100, 3_779_629, 3_778_678]
        subscribedAlbumIDs = [3003, 3006]
        followedArtistIDs = [2002, 2005]
        weekRecord = [(5_000_021, 12), (5_000_011, 9), (5_000_053, 7), (5_000_031, 5), (5_000_082, 4),
                      (5_000_063, 3), (5_000_042, 2), (5_000_071, 1)]
        let known = songs
        allRecord = weekRecord.map { ($0.0, $0.1 * 10) }
            + [(5_000_012, 8), (5_000_022, 7), (5_000_033, 6), (5_000_044, 5), (5_000_055, 4), (5_000_066, 0)]
                .filter { known[$0.0] != nil }
    }

    /// Every picture id a response can mention, so the server serves covers only at real picUrl paths.
    public var pictureIDs: Set<Int64> {
        var ids = Set(artists.values.map(\.picID))
        ids.formUnion(albums.values.map(\.picID))
        ids.formUnion(playlists.values.map(\.picID))
        ids.formUnion(users.values.map(\.avatarPicID))
        ids.insert(Self.cloudPicID)
        return ids
    }

    static let cloudPicID: Int64 = 109951163000000099

    /// Songs whose name, alias, artists or album contain `keyword` (case-insensitive); every song when empty.
    func searchSongs(_ keyword: String) -> [Song] {
        songOrder.compactMap { songs[$0] }.filter { song in
            !song.cloud && (matches(song.name, keyword) || song.alias.contains { matches($0, keyword) }
                || song.artistIDs.contains { artists[$0].map { matches($0.name, keyword) } ?? false }
                || albums[song.albumID].map { matches($0.name, keyword) } ?? false)
        }
    }

    func searchAlbums(_ keyword: String) -> [Album] {
        albumOrder.compactMap { albums[$0] }.filter {
            matches($0.name, keyword) || matches(artists[$0.artistID]?.name ?? "", keyword)
        }
    }

    func searchArtists(_ keyword: String) -> [Artist] {
        artistOrder.compactMap { artists[$0] }.filter { artist in
            matches(artist.name, keyword) || artist.alias.contains { matches($0, keyword) }
        }
    }

    func searchPlaylists(_ keyword: String) -> [Playlist] {
        (ownPlaylistIDs + subscribedPlaylistIDs + toplistIDs.filter { !subscribedPlaylistIDs.contains($0) })
            .compactMap { playlists[$0] }.filter { matches($0.name, keyword) }
    }

    private func matches(_ text: String, _ keyword: String) -> Bool {
        let keyword = keyword.trimmingCharacters(in: .whitespaces)
        return keyword.isEmpty || text.range(of: keyword, options: [.caseInsensitive, .diacriticInsensitive]) != nil
    }
}
