/// Songs: details, stream URLs, lyrics, likes.
public enum SongEndpoints {
    /// `song_detail` (`/api/v3/song/detail`), for at most `maximumIDs` ids; `NetEaseClient.songDetails` splits
    /// longer lists. Ids go as `c:'[{"id":1},…]'`, a JSON string inside the JSON.
    public struct Detail: NetEaseEndpoint {
        /// NetEase accepts up to 1000; MBX's 500 leaves a margin and keeps each answer small.
        public static let maximumIDs = 500
        public var ids: [Int64]

        public init(ids: [Int64]) {
            precondition(ids.count <= Self.maximumIDs, "song_detail takes at most \(Self.maximumIDs) ids")
            self.ids = ids
        }

        public var path: String { "/api/v3/song/detail" }
        public var parameters: [String: JSONValue] {
            ["c": .string(JSONValue.array(ids.map { ["id": .int($0)] }).jsonText)]
        }

        public struct Response: Decodable, Sendable, Equatable {
            public var songs: [NetEaseSong]
            public var privileges: [NetEasePrivilege]

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                songs = c.lenientArray(NetEaseSong.self, AnyKey("songs")) ?? []
                privileges = c.lenientArray(NetEasePrivilege.self, AnyKey("privileges")) ?? []
            }
        }
    }

    /// `song_url_v1` (`/api/song/enhance/player/url/v1`): stream URLs at a quality level, over eapi as an
    /// Android client (NCM: `os=android`, `appver=8.10.05`), which gets the levels the apps get.
    public struct URL: NetEaseEndpoint {
        public var ids: [Int64]
        public var level: String
        public var crypto: RequestCrypto

        public init(ids: [Int64], level: String, crypto: RequestCrypto = .eapi) {
            self.ids = ids
            self.level = level
            self.crypto = crypto
        }

        public var path: String { "/api/song/enhance/player/url/v1" }
        public var parameters: [String: JSONValue] {
            var parameters: [String: JSONValue] = [
                "ids": .string(JSONValue.array(ids.map { .int($0) }).jsonText), "level": .string(level),
                "encodeType": "flac",
            ]
            if level == "sky" { parameters["immerseType"] = "c51" }
            return parameters
        }
        public var cookieOverrides: [String: String] {
            crypto == .eapi ? ["os": "android", "appver": "8.10.05"] : [:]
        }

        public struct Response: Decodable, Sendable, Equatable {
            public var data: [Stream]
        }

        public struct Stream: Decodable, Sendable, Equatable {
            public var id: Int64
            /// nil when there is none for this account (no copyright, VIP only): `code` is then 404.
            public var url: String?
            public var bitRate: Int?
            public var size: Int64?
            /// `mp3`, `flac`, …
            public var type: String?
            /// The level granted, which may be lower than the one asked for.
            public var level: String?
            public var code: Int?
            /// Seconds the URL stays valid (1200).
            public var expiresIn: Int?
            /// Set for a trial clip: its start and end in seconds.
            public var freeTrial: FreeTrial?
            /// Milliseconds of audio behind the URL.
            public var time: Int64?
            public var gain: Double?
            public var peak: Double?

            public struct FreeTrial: Decodable, Sendable, Equatable {
                public var start: Double
                public var end: Double
            }

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                id = c.lenientInt(AnyKey("id")) ?? 0
                url = c.lenientString(AnyKey("url"))
                bitRate = c.lenientInt(AnyKey("br")).map(Int.init)
                size = c.lenientInt(AnyKey("size"))
                type = c.lenientString(AnyKey("type"))
                level = c.lenientString(AnyKey("level"))
                code = c.lenientInt(AnyKey("code")).map(Int.init)
                expiresIn = c.lenientInt(AnyKey("expi")).map(Int.init)
                freeTrial = c.lenient(FreeTrial.self, AnyKey("freeTrialInfo"))
                time = c.lenientInt(AnyKey("time"))
                gain = c.lenient(Double.self, AnyKey("gain"))
                peak = c.lenient(Double.self, AnyKey("peak"))
            }
        }
    }

    /// The legacy `song_url` (`/api/song/enhance/player/url`) with a bit rate instead of a level, over weapi (MBX;
    /// GMF retries it when `song_url_v1` gave no URL or a trial). The answer has `song_url_v1`'s shape; its order
    /// is not the request's (match by `id`).
    public struct LegacyURL: NetEaseEndpoint {
        public var ids: [Int64]
        /// bit/s: 128000, 192000, 320000 or 999000 (lossless).
        public var bitRate: Int

        public init(ids: [Int64], bitRate: Int) {
            self.ids = ids
            self.bitRate = bitRate
        }

        public var path: String { "/api/song/enhance/player/url" }
        public var parameters: [String: JSONValue] {
            ["ids": .string(JSONValue.array(ids.map { .string(String($0)) }).jsonText), "br": .int(Int64(bitRate))]
        }
        public typealias Response = URL.Response
    }

    /// `lyric` (`/api/song/lyric`) over weapi (PYNCM): LRC, translation, romanisation.
    public struct Lyric: NetEaseEndpoint {
        public var id: Int64
        public init(id: Int64) { self.id = id }
        public var path: String { "/api/song/lyric" }
        public var parameters: [String: JSONValue] { ["id": .int(id), "tv": -1, "lv": -1, "rv": -1, "kv": -1] }
        public typealias Response = LyricResponse
    }

    /// `lyric_new` (`/api/song/lyric/v1`) over eapi: adds the word-timed `yrc`.
    public struct LyricNew: NetEaseEndpoint {
        public var id: Int64
        public init(id: Int64) { self.id = id }
        public var path: String { "/api/song/lyric/v1" }
        public var crypto: RequestCrypto { .eapi }
        public var parameters: [String: JSONValue] {
            ["id": .string(String(id)), "cp": false, "tv": 0, "lv": 0, "rv": 0, "kv": 0, "yv": 0, "ytv": 0, "yrv": 0]
        }
        public typealias Response = LyricResponse
    }

    /// `likelist` (`/api/song/like/get`): the ids of the user's liked songs (红心).
    public struct LikeList: NetEaseEndpoint {
        public var userID: Int64
        public init(userID: Int64) { self.userID = userID }
        public var path: String { "/api/song/like/get" }
        public var parameters: [String: JSONValue] { ["uid": .int(userID)] }

        public struct Response: Decodable, Sendable, Equatable {
            public var ids: [Int64]
            /// Milliseconds; changes when the list does.
            public var checkPoint: Int64?

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                ids = try c.decode([JSONValue].self, forKey: AnyKey("ids")).compactMap(\.intValue)
                checkPoint = c.lenientInt(AnyKey("checkPoint"))
            }
        }
    }
}

extension SongEndpoints {
    /// `like` (`/api/radio/like`): likes (红心) or unlikes a song, which adds it to or takes it from the "liked
    /// songs" playlist. weapi with NCM's fixed `alg`/`time`; NetEase's answer says nothing beyond its `code`, so
    /// callers re-read `likelist` when they need the list.
    public struct Like: NetEaseEndpoint {
        public var id: Int64
        public var like: Bool

        public init(id: Int64, like: Bool) {
            self.id = id
            self.like = like
        }

        public var path: String { "/api/radio/like" }
        public var parameters: [String: JSONValue] {
            ["alg": "itembased", "trackId": .int(id), "like": .bool(like), "time": "3"]
        }
        public typealias Response = NetEaseEmptyResponse
    }
}

/// `lyric` and `lyric_new`: each text is LRC (`yrc` has its own line format); nil when absent or empty.
public struct LyricResponse: Decodable, Sendable, Equatable {
    public var lyric: String?
    public var translation: String?
    public var romanization: String?
    public var wordTimed: String?
    /// Instrumental: there is no lyric to find.
    public var instrumental: Bool

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        func text(_ key: String) -> String? {
            guard let inner = try? c.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey(key)),
                  let text = inner.lenientString(AnyKey("lyric")), !text.isEmpty else { return nil }
            return text
        }
        lyric = text("lrc")
        translation = text("tlyric")
        romanization = text("romalrc")
        wordTimed = text("yrc")
        instrumental = c.lenientBool(AnyKey("nolyric")) ?? false
    }
}
