/// Personal recommendations; all need a login.
public enum RecommendEndpoints {
    /// `recommend_songs` (`/api/v3/discovery/recommend/songs`): the daily songs (每日推荐).
    public struct Songs: NetEaseEndpoint {
        public init() {}
        public var path: String { "/api/v3/discovery/recommend/songs" }

        public struct Response: Decodable, Sendable, Equatable {
            public var songs: [NetEaseSong]
            /// Why each song was picked, by song id.
            public var reasons: [Int64: String]

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                let data = try c.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("data"))
                songs = data.lenientArray(NetEaseSong.self, AnyKey("dailySongs")) ?? []
                var reasons: [Int64: String] = [:]
                for reason in data.lenientArray(Reason.self, AnyKey("recommendReasons")) ?? [] {
                    reasons[reason.songId] = reason.reason
                }
                self.reasons = reasons
            }

            private struct Reason: Decodable {
                var songId: Int64
                var reason: String
            }
        }
    }

    /// `recommend_resource` (`/api/v1/discovery/recommend/resource`): the daily playlists.
    public struct Resource: NetEaseEndpoint {
        public init() {}
        public var path: String { "/api/v1/discovery/recommend/resource" }

        public struct Response: Decodable, Sendable, Equatable {
            public var playlists: [NetEasePlaylist]
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                playlists = c.lenientArray(NetEasePlaylist.self, AnyKey("recommend")) ?? []
            }
        }
    }

    /// `personal_fm` (`/api/v1/radio/get`): the next three songs of the personal radio (old song shape).
    public struct PersonalFM: NetEaseEndpoint {
        public init() {}
        public var path: String { "/api/v1/radio/get" }

        public struct Response: Decodable, Sendable, Equatable {
            public var songs: [NetEaseSong]
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                songs = c.lenientArray(NetEaseSong.self, AnyKey("data")) ?? []
            }
        }
    }
}

extension RecommendEndpoints {
    /// `fm_trash` (`/api/radio/trash/add`): "不喜欢" (dislike) on a personal FM song, so the radio stops playing it.
    /// `time` is how many seconds of it were heard; NCM always sends 25.
    public struct FMTrash: NetEaseEndpoint {
        public var songID: Int64
        public var seconds: Int

        public init(songID: Int64, seconds: Int = 25) {
            self.songID = songID
            self.seconds = seconds
        }

        public var path: String { "/api/radio/trash/add" }
        public var parameters: [String: JSONValue] {
            ["songId": .int(songID), "alg": "RT", "time": .int(Int64(seconds))]
        }
        public typealias Response = NetEaseEmptyResponse
    }

    /// `playmode_intelligence_list` (`/api/playmode/intelligence/list`): heartbeat mode (心动模式), songs like
    /// `songID` mixed with the liked songs. `playlistID` must be the account's liked-songs playlist; `startSongID`
    /// is the song playing when the mode starts (NCM `sid`, the seed when not given).
    public struct Intelligence: NetEaseEndpoint {
        public var songID: Int64
        public var playlistID: Int64
        public var startSongID: Int64?

        public init(songID: Int64, playlistID: Int64, startSongID: Int64? = nil) {
            self.songID = songID
            self.playlistID = playlistID
            self.startSongID = startSongID
        }

        public var path: String { "/api/playmode/intelligence/list" }
        public var parameters: [String: JSONValue] {
            ["songId": .int(songID), "type": "fromPlayOne", "playlistId": .int(playlistID),
             "startMusicId": .int(startSongID ?? songID), "count": 1]
        }

        public struct Response: Decodable, Sendable, Equatable {
            /// `data[].songInfo` (new song shape), in NetEase's order; entries without one are skipped.
            public var songs: [NetEaseSong]

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                songs = (c.lenientArray(Item.self, AnyKey("data")) ?? []).compactMap(\.song)
            }

            private struct Item: Decodable {
                var song: NetEaseSong?
                init(from decoder: any Decoder) throws {
                    let c = try decoder.container(keyedBy: AnyKey.self)
                    song = c.lenient(NetEaseSong.self, AnyKey("songInfo"))
                }
            }
        }
    }
}
