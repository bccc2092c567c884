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
